// host:port as Go's net package joins and splits it (IPv6 hosts in brackets).

export const joinHostPort = (host: string, port: unknown) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);

/** Go's net.SplitHostPort; null where it fails. */
export function splitHostPort(s: string): { host: string; port: string } | null {
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:[\]]*)$/.exec(s);
  return m ? { host: m[1] ?? m[2], port: m[3] } : null;
}
