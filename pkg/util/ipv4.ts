// IPv4 addresses as 32-bit numbers, and CIDR ranges over them: the Service allocator's cluster IPs and
// the node agent's pod addresses.

export const ipToInt = (ip: string): number | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
};

export const intToIp = (n: number) => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** Parses an IPv4 CIDR; throws a message fit for a flag error. */
export function parseIPv4Range(cidr: string): { base: number; size: number } {
  const [ip, bits] = cidr.split("/");
  const base = ipToInt(ip ?? ""), n = Number(bits);
  if (base === undefined || !Number.isInteger(n) || n < 8 || n > 30) throw new Error(`"${cidr}" is not an IPv4 CIDR with a prefix of /8 to /30`);
  const size = 2 ** (32 - n);
  return { base: base - (base % size), size };
}
