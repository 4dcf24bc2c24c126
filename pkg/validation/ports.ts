// Port numbers, port names (IANA service names) and protocols, as upstream's IsValidPortNum and IsValidPortName word them.
import type { Errs } from "./field.ts";
import { unmarshal } from "./decode.ts";

export const PROTOCOLS = ["SCTP", "TCP", "UDP"];
export const PORT_RANGE = "must be between 1 and 65535, inclusive";

/** A good value's messages: one shared empty list (callers only read it). */
const NONE: string[] = [];
const OUT_OF_RANGE = [PORT_RANGE];

export const portNum = (n: unknown): string[] => (Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535 ? NONE : OUT_OF_RANGE);

const PORT_NAME_CHARS = /^[-a-z0-9]+$/;
const LETTER = /[a-z]/;

export function portName(v: string): string[] {
  const chars = PORT_NAME_CHARS.test(v), letter = LETTER.test(v);
  const hyphens = v.includes("--"), edge = v.startsWith("-") || v.endsWith("-");
  if (v.length <= 15 && chars && letter && !hyphens && !edge) return NONE;
  const errs: string[] = [];
  if (v.length > 15) errs.push("must be no more than 15 characters");
  if (!chars) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) errs.push("must contain at least one letter (a-z)");
  if (hyphens) errs.push("must not contain consecutive hyphens");
  if (edge) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** ValidatePortNumOrName for an IntOrString port: a number in range or a valid port name (an absent one is the number 0). */
export function portNumOrName(e: Errs, field: string, port: unknown) {
  if (typeof port === "string") return e.invalidEach(field, port, portName(port));
  const n = port ?? 0;
  if (typeof n !== "number" || !Number.isInteger(n)) throw unmarshal(n, field, "intstr.IntOrString");
  e.invalidEach(field, n, portNum(n));
}
