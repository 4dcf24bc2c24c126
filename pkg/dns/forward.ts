// Names outside the cluster domain go to the host's resolvers (CoreDNS's `forward . /etc/resolv.conf`):
// the query as received, over the protocol it came in on, to each upstream in turn until one answers
// within the read timeout (CoreDNS's 2 s); none answering is SERVFAIL, which the server writes.
import { createSocket } from "node:dgram";
import { connect, isIPv6 } from "node:net";

export interface Upstream { host: string; port: number }

export const READ_TIMEOUT_MS = 2000;

/** "1.2.3.4", "1.2.3.4:5353", "fd00::1" or "[fd00::1]:5353" (port 53 when unsaid). */
export function parseUpstream(s: string): Upstream {
  const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(s);
  if (bracketed) return { host: bracketed[1], port: Number(bracketed[2] ?? 53) };
  if (isIPv6(s)) return { host: s, port: 53 };
  const [host, port] = s.split(":");
  return { host, port: Number(port ?? 53) };
}

/** The first upstream's answer to query, or undefined when none answered. */
export async function forward(query: Buffer, upstreams: Upstream[], tcp: boolean): Promise<Buffer | undefined> {
  for (const u of upstreams) {
    try {
      return await (tcp ? overTCP : overUDP)(query, u);
    } catch { /* the next upstream */ }
  }
  return undefined;
}

function overUDP(query: Buffer, u: Upstream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = createSocket(isIPv6(u.host) ? "udp6" : "udp4");
    let settled = false;
    const done = (err?: Error, msg?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.close();
      if (err) reject(err);
      else resolve(msg!);
    };
    const timer = setTimeout(() => done(new Error("timeout")), READ_TIMEOUT_MS);
    sock.on("error", (e) => done(e));
    // Only an answer to this query's id counts (a late answer to an earlier one does not).
    sock.on("message", (msg) => { if (msg.length >= 2 && msg.readUInt16BE(0) === query.readUInt16BE(0)) done(undefined, msg); });
    sock.send(query, u.port, u.host, (e) => { if (e) done(e); });
  });
}

function overTCP(query: Buffer, u: Upstream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const sock = connect({ host: u.host, port: u.port });
    let settled = false;
    const done = (err?: Error, msg?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(msg!);
    };
    const timer = setTimeout(() => done(new Error("timeout")), READ_TIMEOUT_MS);
    sock.on("error", (e) => done(e));
    sock.on("close", () => done(new Error("connection closed before an answer")));
    sock.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) done(undefined, buf.subarray(2, 2 + buf.readUInt16BE(0)));
    });
    const len = Buffer.alloc(2);
    len.writeUInt16BE(query.length);
    sock.write(Buffer.concat([len, query]));
  });
}
