// IP addresses and CIDRs, as Go's net package parses them and upstream's IsValidIP and ValidateNonSpecialIP word them.
import type { Errs } from "./field.ts";

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
export const ipErrors = (v: string) => (isIP(v) ? [] : ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]);

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
