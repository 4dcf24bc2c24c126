// etcd's watch over gRPC (HTTP/2 and protobuf) for the shared watch of the whole key range. Through the
// JSON gateway every watch event costs etcd its JSON marshalling (~130 µs of CPU for a 1 KiB value, more
// than the write itself) and Kite a base64 and JSON decode; on gRPC it is a protobuf message. Unary
// calls stay on the gateway (see etcd.ts). Message field numbers are etcd's (etcdserverpb.WatchRequest,
// WatchResponse; mvccpb.Event, KeyValue).
import http2 from "node:http2";
import { Reader, WIRE_LEN, Writer } from "../protobuf/wire.ts";
import type { EtcdStore } from "./etcd.ts";
import { valueOf, watchEvent } from "./etcdwire.ts";
import { type KeyValue, StoreError, type WatchEvent } from "./store.ts";

const WATCH_PATH = "/etcdserverpb.Watch/Watch";
const utf8 = new TextDecoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** WatchRequest{create_request{key, range_end, start_revision, prev_kv}} in a gRPC frame. */
function createRequest(key: Uint8Array, end: Uint8Array, startRevision: number, prevKv: boolean): Buffer {
  const create = new Writer();
  create.uint32((1 << 3) | WIRE_LEN); create.bytes(key);
  create.uint32((2 << 3) | WIRE_LEN); create.bytes(end);
  create.uint32(3 << 3); create.int64(startRevision);
  if (prevKv) { create.uint32(6 << 3); create.bool(true); }
  const req = new Writer();
  req.uint32((1 << 3) | WIRE_LEN); req.bytes(create.finish());
  const msg = req.finish();
  const frame = Buffer.alloc(5 + msg.length);
  frame.writeUInt32BE(msg.length, 1);
  frame.set(msg, 5);
  return frame;
}

interface RawKV { key: Uint8Array; value: Uint8Array; createRevision: number; modRevision: number }
interface Response { created: boolean; canceled: boolean; cancelReason: string; compactRevision: number; events: { del: boolean; kv: RawKV; prev?: RawKV }[] }

function readKV(r: Reader, end: number): RawKV {
  const kv: RawKV = { key: new Uint8Array(), value: new Uint8Array(), createRevision: 0, modRevision: 0 };
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1: kv.key = r.bytes(); break;
      case 2: kv.createRevision = r.int64(); break;
      case 3: kv.modRevision = r.int64(); break;
      case 5: kv.value = r.bytes(); break;
      default: r.skip(tag & 7);
    }
  }
  return kv;
}

function readResponse(buf: Uint8Array): Response {
  const r = new Reader(buf);
  const out: Response = { created: false, canceled: false, cancelReason: "", compactRevision: 0, events: [] };
  while (r.pos < r.limit) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 3: out.created = r.bool(); break;
      case 4: out.canceled = r.bool(); break;
      case 5: out.compactRevision = r.int64(); break;
      case 6: out.cancelReason = r.string(); break;
      case 11: {
        const end = r.lenEnd();
        let del = false, kv: RawKV | undefined, prev: RawKV | undefined;
        while (r.pos < end) {
          const t = r.uint32();
          const f = t >>> 3;
          if (f === 1) del = r.int64() === 1;
          else if (f === 2 || f === 3) { const e = r.lenEnd(); const x = readKV(r, e); r.pos = e; if (f === 2) kv = x; else prev = x; }
          else r.skip(t & 7);
        }
        if (kv) out.events.push({ del, kv, prev });
        break;
      }
      default: r.skip(tag & 7);
    }
  }
  return out;
}

/**
 * One gRPC watch of [key, end); it reconnects (to the next member) from the last revision it delivered,
 * and fails with Compacted when that revision is gone.
 */
export class GrpcWatch {
  private closed = false;
  private session: http2.ClientHttp2Session | null = null;
  private lastRev: number;

  constructor(
    private s: EtcdStore, private key: Uint8Array, private end: Uint8Array, afterRevision: number,
    private onEvent: (ev: WatchEvent) => void, private onError: (err: Error) => void,
    /** Ask for each event's previous value (a read in etcd per event). */
    private prevKv = true,
  ) {
    this.lastRev = afterRevision;
  }

  /** Connects (each member once) and resolves when etcd has created the watch. */
  start(): Promise<void> {
    return this.s.onSomeMember((ep) => this.connect(ep));
  }

  private connect(ep: string): Promise<void> {
    return new Promise((resolve, reject) => {
      let created = false, over = false;
      const session = http2.connect(ep, this.s.tlsOptions ?? {});
      this.session = session;
      /** Ends this connection once: before the watch exists the caller hears of it, after it we reconnect. */
      const end = (err: Error) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        session.destroy();
        if (this.closed) return reject(err);
        if (!created) return reject(err);
        if (err instanceof StoreError && err.code === "Compacted") return this.fail(err);
        void this.reconnect();
      };
      const timer = setTimeout(() => end(new StoreError("Unavailable", "", `etcd: gRPC watch on ${ep} not created within ${this.s.requestTimeoutMs} ms`)), this.s.requestTimeoutMs);
      session.on("error", (e) => end(new StoreError("Unavailable", "", `etcd: gRPC watch on ${ep}: ${e.message}`)));
      // hasleader: etcd cancels the watch when this member loses the leader, so it moves to one that has one.
      const stream = session.request({ ":method": "POST", ":path": WATCH_PATH, "content-type": "application/grpc", te: "trailers", hasleader: "true" });
      let pending: Buffer = Buffer.alloc(0);
      stream.on("data", (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        try {
          while (pending.length >= 5 && !over) {
            const n = pending.readUInt32BE(1);
            if (pending.length < 5 + n) break;
            const res = readResponse(pending.subarray(5, 5 + n));
            pending = pending.subarray(5 + n);
            this.handle(res);
            if (res.created && !created) { created = true; clearTimeout(timer); resolve(); }
          }
        } catch (e) {
          end(e as Error);
        }
      });
      stream.on("close", () => end(new StoreError("Unavailable", "", `etcd: gRPC watch on ${ep} ended`)));
      stream.on("error", () => { /* "close" follows */ });
      stream.write(createRequest(this.key, this.end, this.lastRev + 1, this.prevKv));
    });
  }

  private handle(r: Response) {
    if (r.compactRevision > 0) {
      this.s.learnCompacted(r.compactRevision);
      throw new StoreError("Compacted", "", `revision ${this.lastRev + 1} has been compacted (compact revision ${r.compactRevision})`);
    }
    if (r.canceled) throw new StoreError("Unavailable", "", `etcd: watch canceled: ${r.cancelReason || "no reason given"}`);
    for (const e of r.events) {
      if (this.closed) return;
      // A reconnect asks for lastRev + 1 on; events of one multi-key txn share a revision.
      if (e.kv.modRevision < this.lastRev) continue;
      this.lastRev = e.kv.modRevision;
      this.onEvent(watchEvent(e.del, this.toKV(e.kv), e.prev && this.toKV(e.prev)));
    }
  }

  private toKV(r: RawKV): KeyValue {
    return { key: this.s.stripKey(utf8.decode(r.key)), value: valueOf(r.value), modRevision: r.modRevision, createRevision: r.createRevision };
  }

  /** The stream broke: connect again (next member, backing off) from the last delivered revision. */
  private async reconnect() {
    this.session = null;
    let delay = 50;
    while (!this.closed) {
      await sleep(delay);
      if (this.closed) return;
      const ep = this.s.endpoint();
      try {
        await this.connect(ep);
        return;
      } catch (e) {
        if (e instanceof StoreError && e.code === "Compacted") return this.fail(e);
        this.s.rotate(ep);
        delay = Math.min(delay * 2, 2000);
      }
    }
  }

  private fail(err: Error) {
    if (this.closed) return;
    this.close();
    this.onError(err);
  }

  close() {
    this.closed = true;
    this.session?.destroy();
    this.session = null;
  }
}
