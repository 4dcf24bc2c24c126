// Port numbers, port names (IANA service names) and protocols, as upstream's IsValidPortNum and IsValidPortName word them.
import type { Errs } from "./field.ts";
import { unmarshal } from "./decode.ts";

export const PROTOCOLS = ["SCTP", "TCP", "UDP"];
export const PORT_RANGE = "must be between 1 and 65535, inclusive";

export const portNum = (n: unknown): string[] => (Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535 ? [] : [PORT_RANGE]);

export function portName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(v)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(v)) errs.push("must contain at least one letter (a-z)");
  if (v.includes("--")) errs.push("must not contain consecutive hyphens");
  if (v.startsWith("-") || v.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** ValidatePortNumOrName for an IntOrString port: a number in range or a valid port name (an absent one is the number 0). */
export function portNumOrName(e: Errs, field: string, port: unknown) {
  if (typeof port === "string") return e.invalidEach(field, port, portName(port));
  const n = port ?? 0;
  if (typeof n !== "number" || !Number.isInteger(n)) throw unmarshal(n, field, "intstr.IntOrString");
  e.invalidEach(field, n, portNum(n));
}
