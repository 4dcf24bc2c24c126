// DNS over loopback for tests: a client (UDP or TCP, dns-packet) and a fake upstream resolver that
// answers A queries from a fixed table, so forwarding never leaves the machine.
import * as packet from "dns-packet";
import type { Answer, DecodedPacket } from "dns-packet";
import { createSocket } from "node:dgram";
import { connect, createServer } from "node:net";

/** A message as TCP carries it: its length first. */
const framed = (b: Buffer) => Buffer.concat([Buffer.from([b.length >> 8, b.length & 255]), b]);

/** Asks 127.0.0.1:port one question; resolves to the decoded answer (fails after 5 s). */
export function query(port: number, name: string, type: string, tcp = false): Promise<DecodedPacket> {
  const msg = packet.encode({ type: "query", id: Math.floor(Math.random() * 65536), flags: packet.RECURSION_DESIRED, questions: [{ name, type: type as never }] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer for ${name} ${type}`)), 5000);
    const finish = (buf: Buffer, close: () => void) => { clearTimeout(timer); close(); resolve(packet.decode(buf)); };
    if (!tcp) {
      const sock = createSocket("udp4");
      sock.on("message", (buf) => finish(buf, () => sock.close()));
      sock.send(msg, port, "127.0.0.1");
      return;
    }
    const sock = connect({ host: "127.0.0.1", port });
    let buf = Buffer.alloc(0);
    sock.on("error", reject);
    sock.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) finish(buf.subarray(2, 2 + buf.readUInt16BE(0)), () => sock.destroy());
    });
    sock.write(framed(msg));
  });
}

/** The rcode of an answer (dns-packet decodes it; its types leave it out). */
export const rcode = (p: DecodedPacket): string => (p as DecodedPacket & { rcode: string }).rcode;

/** The data of the answers of a type, e.g. the addresses of A records. */
export const dataOf = (answers: Answer[] | undefined, type: string): unknown[] => (answers ?? []).filter((a) => a.type === type).map((a) => (a as { data: unknown }).data);

export interface FakeUpstream { port: number; queries: string[]; stop(): void }

/** A resolver on 127.0.0.1 (UDP and TCP, one port) answering A queries for `names`, NXDOMAIN otherwise. */
export async function startFakeUpstream(names: Record<string, string>): Promise<FakeUpstream> {
  const queries: string[] = [];
  const answer = (msg: Buffer): Buffer => {
    const q = packet.decode(msg);
    const question = q.questions![0];
    queries.push(`${question.name} ${question.type}`);
    const ip = names[question.name.toLowerCase()];
    const answers: Answer[] = ip && question.type === "A" ? [{ type: "A", name: question.name, ttl: 30, class: "IN", data: ip }] : [];
    return packet.encode({ type: "response", id: q.id, flags: packet.RECURSION_AVAILABLE | (ip ? 0 : 3), questions: q.questions, answers });
  };
  const udp = createSocket("udp4");
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  udp.on("message", (msg, from) => udp.send(answer(msg), from.port, from.address));
  const port = udp.address().port;
  const tcp = createServer((c) => c.on("data", (chunk: Buffer) => c.write(framed(answer(chunk.subarray(2))))));
  await new Promise<void>((resolve) => tcp.listen(port, "127.0.0.1", resolve));
  return { port, queries, stop() { udp.close(); tcp.close(); } };
}
