// Port numbers and names (IANA service names), as upstream's IsValidPortNum and IsValidPortName word them.
import type { Errs } from "./field.ts";

export const PORT_RANGE = "must be between 1 and 65535, inclusive";

export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name)) errs.push("must contain only alphanumeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

export const validPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;

/** An IntOrString port: a number in range or a valid port name. */
export function validatePortNumOrName(errs: Errs, port: unknown, path: string) {
  if (typeof port === "number") {
    if (!validPort(port)) errs.invalid(path, port, PORT_RANGE);
  } else if (typeof port === "string") {
    for (const m of portNameErrors(port)) errs.invalid(path, port, m);
  } else errs.invalid(path, port ?? "", "must be an integer or a port name");
}
