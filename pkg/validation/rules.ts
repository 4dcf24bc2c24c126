// Checks shared by the kinds of kinds-other.ts, each worded as upstream's apimachinery and core validation
// word them (IsDNS1123Label, IsValidPortNum, IsValidIP, ValidateNonnegativeField, ...).
import { nameErrors } from "../registry/validation.ts";
import type { Obj } from "../registry/types.ts";
import { Errs } from "./field.ts";
import { parseQuantity } from "./quantity.ts";

export const isMap = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v);
export const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const has = (v: unknown): boolean => v !== undefined && v !== null;
/** Go's empty value: what upstream's typed fields make of absent, null, "" and 0. */
export const empty = (v: unknown) => !has(v) || v === "" || v === 0 || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

/** Adds a cause whose value is printed as Go's %#v prints it (a slice or a struct), not as a string. */
export function invalidShown(e: Errs, field: string, shown: string, detail: string) {
  e.causes.push({ field, reason: "FieldValueInvalid", message: `Invalid value: ${shown}: ${detail}` });
}

/** `[]string{"a", "b"}`, as %#v prints a string slice (`[]string(nil)` when absent). */
export const goStrings = (v: unknown, type = "string") =>
  Array.isArray(v) ? `[]${type}{${v.map((s) => JSON.stringify(s)).join(", ")}}` : `[]${type}(nil)`;

/** Deep equality that treats absent, null and empty maps and lists alike, as a stored round trip does. */
export function same(a: unknown, b: unknown): boolean {
  if (empty(a) && empty(b) && typeof a !== "boolean" && typeof b !== "boolean") return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => same(a[k], b[k]));
  }
  return a === b;
}

export const dns1123Label = (v: string) => nameErrors(v, "label");
export const dns1123Subdomain = (v: string) => nameErrors(v, "subdomain");
export const dns1035Label = (v: string) => nameErrors(v, "dns1035");
export const pathSegmentName = (v: string) => nameErrors(v, "segment");

/** Each message of `check(value)` becomes an Invalid cause on field. */
export function each(e: Errs, field: string, value: unknown, msgs: string[]) {
  for (const m of msgs) e.invalid(field, value, m);
}

const QUALIFIED = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUALIFIED_MSG = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** IsQualifiedName: an optional DNS-subdomain prefix, a slash, and a name of at most 63 characters. */
export function qualifiedName(v: string): string[] {
  const parts = v.split("/");
  let name = v;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 characters");
  if (name.length > 0 && !QUALIFIED.test(name)) errs.push(QUALIFIED_MSG);
  return errs;
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
export function labelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push("must be no more than 63 characters");
  if (!LABEL_VALUE.test(v)) errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  return errs;
}

/** ValidateLabels: each key a qualified name, each value a label value, all reported on the map's path. */
export function labels(e: Errs, field: string, m: unknown) {
  if (!isMap(m)) return;
  for (const [k, v] of Object.entries(m)) {
    each(e, field, k, qualifiedName(k));
    each(e, field, v, labelValue(String(v)));
  }
}

/** metav1 ValidateLabelSelector. */
export function labelSelector(e: Errs, field: string, sel: unknown) {
  if (!isMap(sel)) return;
  labels(e, `${field}.matchLabels`, sel.matchLabels);
  e.each<Obj>(`${field}.matchExpressions`, sel.matchExpressions, (r, p) => {
    if (r.operator === "In" || r.operator === "NotIn") {
      if (empty(r.values)) e.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (r.operator === "Exists" || r.operator === "DoesNotExist") {
      if (!empty(r.values)) e.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else e.invalid(`${p}.operator`, r.operator ?? "", "not a valid selector operator");
    each(e, `${p}.key`, r.key ?? "", qualifiedName(String(r.key ?? "")));
  });
}

export const PORT_RANGE = "must be between 1 and 65535, inclusive";
export const portNum = (n: unknown) => (Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535 ? [] : [PORT_RANGE]);

/** IsValidPortName: an IANA service name. */
export function portName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(v)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(v)) errs.push("must contain at least one letter (a-z)");
  if (v.includes("--")) errs.push("must not contain consecutive hyphens");
  if (v.startsWith("-") || v.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** ValidatePortNumOrName: an int-or-string port. */
export function portNumOrName(e: Errs, field: string, v: unknown) {
  if (typeof v === "number") each(e, field, v, portNum(v));
  else if (typeof v === "string") each(e, field, v, portName(v));
}

export const PROTOCOLS = ["SCTP", "TCP", "UDP"];
/** A required enum; absent values that upstream's defaulting fills in are left to it (`defaulted`). */
export function oneOf(e: Errs, field: string, v: unknown, values: string[], opts: { defaulted?: boolean; required?: boolean } = {}) {
  if (!has(v) || v === "") {
    if (opts.required && !(opts.defaulted && !has(v))) e.required(field);
    return;
  }
  if (!values.includes(v as string)) e.notSupported(field, v, values);
}

const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
export const isIPv4 = (v: string) => IPV4.test(v);
export function isIPv6(v: string): boolean {
  if (!v.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(v)) return false;
  let s = v;
  const tail = s.match(/:(\d+\.\d+\.\d+\.\d+)$/);
  let groups = 8;
  if (tail) {
    if (!isIPv4(tail[1])) return false;
    s = s.slice(0, -tail[1].length) + "0";
    groups = 7;
  }
  const halves = s.split("::");
  if (halves.length > 2) return false;
  const parts = halves.flatMap((h) => (h === "" ? [] : h.split(":")));
  if (parts.some((p) => !/^[0-9A-Fa-f]{1,4}$/.test(p))) return false;
  return halves.length === 2 ? parts.length < groups : parts.length === groups;
}
export const isIP = (v: string) => isIPv4(v) || isIPv6(v);
export const IP_MSG = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
export const ipErrors = (v: string) => (isIP(v) ? [] : [IP_MSG]);

/** A CIDR as Go's net.ParseCIDR takes it. */
export function isCIDR(v: string): boolean {
  const [ip, bits, ...rest] = v.split("/");
  if (rest.length || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  return (isIPv4(ip) && Number(bits) <= 32) || (isIPv6(ip) && Number(bits) <= 128);
}

/** ValidateNonSpecialIP: endpoints and external IPs may not be unspecified, loopback or link-local. */
export function nonSpecialIP(e: Errs, field: string, ip: string) {
  if (!isIP(ip)) return e.invalid(field, ip, "must be a valid IP address");
  const v4 = isIPv4(ip) ? ip.split(".").map(Number) : null;
  const low = ip.toLowerCase();
  if (v4 ? v4.every((b) => b === 0) : /^[0:]+$/.test(low)) e.invalid(field, ip, "may not be unspecified (0.0.0.0)");
  if (v4 ? v4[0] === 127 : /^[0:]+1$/.test(low)) e.invalid(field, ip, "may not be in the loopback range (127.0.0.0/8)");
  if (v4 ? v4[0] === 169 && v4[1] === 254 : /^fe[89ab]/.test(low)) e.invalid(field, ip, "may not be in the link-local range (169.254.0.0/16)");
  if (v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : /^ff02:/.test(low)) e.invalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24)");
}

export const NEGATIVE = "must be greater than or equal to 0";
export function nonNegative(e: Errs, field: string, v: unknown) {
  if (typeof v === "number" && v < 0) e.invalid(field, v, NEGATIVE);
}

/** A quantity that must be ≥ 0 (and > 0 with `positive`); its value in base units, or null. */
export function quantity(e: Errs, field: string, v: unknown, positive = false): number | null {
  const n = parseQuantity(v);
  if (n === null) return null;
  if (n < 0) e.invalid(field, String(v), NEGATIVE);
  else if (positive && n === 0) e.invalid(field, String(v), "must be greater than zero");
  return n;
}

/** ValidateImmutableField. */
export function immutable(e: Errs, field: string, now: unknown, was: unknown) {
  if (!same(now, was)) e.immutable(field, now ?? null);
}

/** IsDomainPrefixedPath: `example.com/path`. */
export function domainPrefixedPath(e: Errs, field: string, v: unknown) {
  const s = String(v ?? "");
  if (!s) return e.required(field);
  const slash = s.indexOf("/");
  if (slash <= 0 || slash === s.length - 1) return e.invalid(field, s, "must be a domain-prefixed path (such as \"acme.io/foo\")");
  const host = s.slice(0, slash), path = s.slice(slash + 1);
  each(e, field, host, dns1123Subdomain(host));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(path)) e.invalid(field, path, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");
}

/** A validator run over a fresh Errs. */
export const run = (fn: (e: Errs) => void) => {
  const e = new Errs();
  fn(e);
  return e.causes;
};
