// The DNS server: one address, UDP and TCP (length-prefixed messages, several per connection). Names in
// the cluster domain are answered from ClusterRecords (authoritative, no recursion offered, as CoreDNS's
// kubernetes plugin); the rest go to the upstreams as received. A UDP answer larger than the client can
// take (512 bytes, or its EDNS size) goes out truncated (TC) so the client asks again over TCP.
import * as packet from "dns-packet";
import type { Answer, DecodedPacket, Packet } from "dns-packet";
import { createSocket, type Socket as UDPSocket } from "node:dgram";
import { createServer, isIPv6, type Server, type Socket } from "node:net";
import { forward, type Upstream } from "./forward.ts";
import { inDomain } from "./names.ts";
import type { ClusterRecords } from "./records.ts";

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4 } as const;
const OPCODE_QUERY = 0;
const MIN_UDP_SIZE = 512;
/** How many CNAMEs an ExternalName chase follows within the cluster domain before giving up. */
const MAX_CHASE = 8;
/** A TCP connection with nothing to read for this long is closed (CoreDNS's idle timeout). */
const TCP_IDLE_MS = 10_000;

export interface DNSServerOptions {
  host: string;
  port: number;
  records: ClusterRecords;
  upstreams: Upstream[];
}

export class DNSServer {
  private udp?: UDPSocket;
  private tcp?: Server;
  private readonly conns = new Set<Socket>();

  constructor(private readonly o: DNSServerOptions) {}

  /** Binds UDP then TCP on the same port (port 0: the one UDP got); resolves to that port. */
  async start(): Promise<number> {
    const udp = createSocket({ type: isIPv6(this.o.host) ? "udp6" : "udp4" });
    await new Promise<void>((resolve, reject) => {
      udp.once("error", reject);
      udp.bind(this.o.port, this.o.host, () => { udp.off("error", reject); resolve(); });
    });
    this.udp = udp;
    udp.on("message", (msg, from) => {
      void this.handle(msg, false).then((out) => { if (out) udp.send(out, from.port, from.address); });
    });
    const port = udp.address().port;
    const tcp = createServer((c) => this.serveTCP(c));
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(port, this.o.host, () => { tcp.off("error", reject); resolve(); });
    });
    this.tcp = tcp;
    return port;
  }

  stop(): void {
    this.udp?.close();
    this.tcp?.close();
    this.udp = this.tcp = undefined;
    for (const c of this.conns) c.destroy();
  }

  private serveTCP(c: Socket): void {
    this.conns.add(c);
    c.on("close", () => this.conns.delete(c));
    c.on("error", () => c.destroy());
    c.setTimeout(TCP_IDLE_MS, () => c.destroy());
    let buf = Buffer.alloc(0);
    c.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        void this.handle(msg, true).then((out) => {
          if (!out || c.destroyed) return;
          const len = Buffer.alloc(2);
          len.writeUInt16BE(out.length);
          c.write(Buffer.concat([len, out]));
        });
      }
    });
  }

  /** The answer to one message, or undefined for what deserves none (garbage, a response). */
  async handle(msg: Buffer, tcp: boolean): Promise<Buffer | undefined> {
    if (msg.length < 12 || msg[2] & 0x80) return undefined;
    let q: DecodedPacket;
    try { q = packet.decode(msg); } catch { return reply(msg, undefined, RCODE.FORMERR); }
    if (((msg[2] >> 3) & 0xf) !== OPCODE_QUERY) return reply(msg, q, RCODE.NOTIMP);
    const question = q.questions?.length === 1 ? q.questions[0] : undefined;
    if (!question) return reply(msg, q, RCODE.FORMERR);
    if (!inDomain(question.name, this.o.records.domain)) {
      return (await forward(msg, this.o.upstreams, tcp)) ?? reply(msg, q, RCODE.SERVFAIL);
    }
    const local = this.o.records.answer(question.name, question.type);
    const answers = [...local.answers];
    if (local.chase) answers.push(...(await this.chase(local.chase, question.type, MAX_CHASE)));
    const opt = q.additionals?.find((a) => a.type === "OPT") as Extract<Answer, { type: "OPT" }> | undefined;
    const out: Packet = {
      type: "response", id: q.id, questions: q.questions,
      flags: packet.AUTHORITATIVE_ANSWER | (q.flags! & packet.RECURSION_DESIRED) | RCODE[local.rcode],
      answers, authorities: local.authorities,
      additionals: opt ? [...local.additionals, { type: "OPT", name: ".", udpPayloadSize: Math.max(opt.udpPayloadSize, MIN_UDP_SIZE) } as Answer] : local.additionals,
    };
    const encoded = packet.encode(out);
    const limit = opt ? Math.max(opt.udpPayloadSize, MIN_UDP_SIZE) : MIN_UDP_SIZE;
    if (tcp || encoded.length <= limit) return encoded;
    return packet.encode({ ...out, flags: out.flags! | packet.TRUNCATED_RESPONSE, answers: [], authorities: [], additionals: [] });
  }

  /** The records an ExternalName's target has for qtype: from the cluster, or from the upstreams. */
  private async chase(name: string, qtype: string, depth: number): Promise<Answer[]> {
    if (depth === 0) return [];
    if (inDomain(name, this.o.records.domain)) {
      const local = this.o.records.answer(name, qtype);
      return local.chase ? [...local.answers, ...(await this.chase(local.chase, qtype, depth - 1))] : local.answers;
    }
    const query = packet.encode({
      type: "query", id: Math.floor(Math.random() * 65536), flags: packet.RECURSION_DESIRED,
      questions: [{ type: qtype as never, name }],
    });
    const answer = await forward(query, this.o.upstreams, false);
    if (!answer) return [];
    try { return packet.decode(answer).answers ?? []; } catch { return []; }
  }
}

/** An answer with no records and the given rcode; the question echoed when it could be read. */
function reply(msg: Buffer, q: DecodedPacket | undefined, rcode: number): Buffer {
  return packet.encode({
    type: "response", id: msg.readUInt16BE(0), flags: (msg.readUInt16BE(2) & packet.RECURSION_DESIRED) | rcode,
    questions: q?.questions ?? [], answers: [], authorities: [], additionals: [],
  });
}
