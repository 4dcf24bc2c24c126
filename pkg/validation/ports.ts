// Port numbers and names (IANA service names), as upstream's IsValidPortNum and IsValidPortName word them.
import type { Errs } from "./field.ts";
import { unmarshal } from "./decode.ts";

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

/** An IntOrString port: a number in range or a valid port name (an absent one is the number 0). */
export function validatePortNumOrName(errs: Errs, port: unknown, path: string) {
  if (typeof port === "string") {
    for (const m of portNameErrors(port)) errs.invalid(path, port, m);
    return;
  }
  const n = port ?? 0;
  if (typeof n !== "number" || !Number.isInteger(n)) throw unmarshal(n, path, "intstr.IntOrString");
  if (!validPort(n)) errs.invalid(path, n, PORT_RANGE);
}
