// SPDY/3.1 framing (the draft's section 2), what kubectl's SPDY streams (moby/spdystream) put on the
// wire: control frames (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS,
// WINDOW_UPDATE) and data frames, split out of a byte stream; header blocks compressed with one zlib
// context per direction and the SPDY/3 dictionary, as the draft's section 2.6.10 asks.
import zlib from "node:zlib";
import { HEADER_DICTIONARY } from "./dictionary.ts";

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;

export const ControlType = {
  SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9,
} as const;

/** RST_STREAM status codes used here. */
export const RstStatus = { PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, CANCEL: 5, INTERNAL_ERROR: 6 } as const;

export type Frame =
  | { control: false; streamId: number; flags: number; data: Uint8Array }
  | { control: true; type: number; flags: number; payload: Uint8Array };

const HEADER = 8;

/** Splits a byte stream into frames; `push` returns the frames completed by a chunk. */
export class FrameReader {
  /** The chunks of an incomplete frame, their size, and the size that completes it (or its header). */
  private parts: Uint8Array[] = [];
  private size = 0;
  private need = 0;

  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    // an incomplete frame is completed with just the bytes it lacks (a join of one frame, not of the whole
    // chunk: the rest is read where it lies)
    while (this.parts.length) {
      if (this.size + chunk.length < this.need) {
        this.parts.push(chunk);
        this.size += chunk.length;
        return frames;
      }
      const take = this.need - this.size;
      this.parts.push(chunk.subarray(0, take));
      chunk = chunk.subarray(take);
      const joined = Buffer.concat(this.parts, this.need);
      this.parts = [];
      this.split(joined, frames);
    }
    this.split(chunk, frames);
    return frames;
  }

  /** Adds the whole frames of `b` to `frames`; keeps what follows them as an incomplete frame. */
  private split(b: Uint8Array, frames: Frame[]) {
    let at = 0;
    while (b.length - at >= HEADER) {
      const len = (b[at + 5] << 16) | (b[at + 6] << 8) | b[at + 7];
      if (b.length - at < HEADER + len) break;
      const flags = b[at + 4];
      const body = b.subarray(at + HEADER, at + HEADER + len);
      if (b[at] & 0x80) {
        const version = ((b[at] & 0x7f) << 8) | b[at + 1];
        if (version !== SPDY_VERSION) throw new Error(`unsupported SPDY version ${version}`);
        frames.push({ control: true, type: (b[at + 2] << 8) | b[at + 3], flags, payload: body });
      } else {
        const streamId = ((b[at] & 0x7f) << 24 | b[at + 1] << 16 | b[at + 2] << 8 | b[at + 3]) >>> 0;
        frames.push({ control: false, streamId, flags, data: body });
      }
      at += HEADER + len;
    }
    if (at < b.length) {
      const rest = b.subarray(at);
      this.parts = [rest];
      this.size = rest.length;
      this.need = rest.length >= HEADER ? HEADER + ((rest[5] << 16) | (rest[6] << 8) | rest[7]) : HEADER;
    }
  }
}

/** A frame's 8 bytes: the first word (control bit, version, type; or the stream id), flags, length. */
function frameHeader(first: number, flags: number, length: number): Buffer {
  const h = Buffer.alloc(HEADER);
  h.writeUInt32BE(first >>> 0, 0);
  h.writeUInt32BE(((flags & 0xff) << 24 | length) >>> 0, 4);
  return h;
}

/**
 * Data frames of at most `chunk` bytes each carrying `data`, back to back in one buffer (one write for
 * all of them); `room` bytes are left free before them, for a transport's own framing.
 */
export function dataFrames(streamId: number, data: Uint8Array, fin = false, room = 0, chunk = data.length || 1): Buffer {
  const count = Math.max(1, Math.ceil(data.length / chunk));
  const f = Buffer.allocUnsafe(room + count * HEADER + data.length);
  for (let i = 0, at = room; i < count; i++) {
    const part = data.subarray(i * chunk, (i + 1) * chunk);
    f.writeUInt32BE((streamId & 0x7fffffff) >>> 0, at);
    f.writeUInt32BE((((fin && i === count - 1 ? FLAG_FIN : 0) << 24) | part.length) >>> 0, at + 4);
    f.set(part, at + HEADER);
    at += HEADER + part.length;
  }
  return room ? f.subarray(room) : f;
}

/** One data frame. */
export const dataFrame = (streamId: number, data: Uint8Array, fin = false) => dataFrames(streamId, data, fin);

export function controlFrame(type: number, flags: number, payload: Uint8Array): Buffer {
  return Buffer.concat([frameHeader((0x8000 | SPDY_VERSION) << 16 | type, flags, payload.length), payload]);
}

const u32 = (...values: number[]) => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
};

export const rstStreamFrame = (streamId: number, status: number) => controlFrame(ControlType.RST_STREAM, 0, u32(streamId & 0x7fffffff, status));
export const pingFrame = (id: number) => controlFrame(ControlType.PING, 0, u32(id));
export const goAwayFrame = (lastGoodStreamId: number, status = 0) => controlFrame(ControlType.GOAWAY, 0, u32(lastGoodStreamId & 0x7fffffff, status));
export const synReplyFrame = (streamId: number, block: Uint8Array, fin = false) => controlFrame(ControlType.SYN_REPLY, fin ? FLAG_FIN : 0, Buffer.concat([u32(streamId & 0x7fffffff), block]));
export const synStreamFrame = (streamId: number, block: Uint8Array, fin = false) =>
  controlFrame(ControlType.SYN_STREAM, fin ? FLAG_FIN : 0, Buffer.concat([u32(streamId & 0x7fffffff, 0), Buffer.from([0, 0]), block]));

/** The stream id a control frame's payload starts with (SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE). */
export const payloadStreamId = (p: Uint8Array) => Buffer.from(p.buffer, p.byteOffset, p.byteLength).readUInt32BE(0) & 0x7fffffff;

/** Where a control frame's header block starts. */
export const headerBlockOffset = (type: number) => (type === ControlType.SYN_STREAM ? 10 : 4);

export type Headers = Record<string, string>;

/** An uncompressed header block: a count, then length-prefixed names and values (several values NUL-separated). */
export function encodeHeaderBlock(headers: Headers): Buffer {
  const parts: Buffer[] = [u32(Object.keys(headers).length)];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name.toLowerCase()), v = Buffer.from(value);
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(raw: Buffer): Headers {
  const headers: Headers = {};
  const count = raw.readUInt32BE(0);
  let at = 4;
  const next = () => {
    const len = raw.readUInt32BE(at);
    const s = raw.subarray(at + 4, at + 4 + len).toString();
    at += 4 + len;
    return s;
  };
  for (let i = 0; i < count; i++) {
    const name = next();
    headers[name] = next();
  }
  return headers;
}

/** One direction's zlib context, used one block at a time in order (node:zlib streams are asynchronous). */
class ZContext {
  private chain: Promise<unknown> = Promise.resolve();
  private readonly out: Buffer[] = [];
  constructor(private readonly z: zlib.Deflate | zlib.Inflate) {
    z.on("data", (c: Buffer) => this.out.push(c));
    z.on("error", () => {});
  }

  run(input: Uint8Array): Promise<Buffer> {
    const step = this.chain.then(() => new Promise<Buffer>((resolve, reject) => {
      this.z.write(input, (e) => { if (e) reject(e); });
      this.z.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(this.out.splice(0))));
    }));
    this.chain = step.catch(() => {});
    return step;
  }

  close() { this.z.close(); }
}

/** A connection's header compression: what we send deflated, what we receive inflated. */
export class HeaderCodec {
  private readonly deflater = new ZContext(zlib.createDeflate({ dictionary: HEADER_DICTIONARY }));
  private readonly inflater = new ZContext(zlib.createInflate({ dictionary: HEADER_DICTIONARY }));

  async encode(headers: Headers): Promise<Buffer> {
    return this.deflater.run(encodeHeaderBlock(headers));
  }

  async decode(block: Uint8Array): Promise<Headers> {
    return decodeHeaderBlock(await this.inflater.run(block));
  }

  close() {
    this.deflater.close();
    this.inflater.close();
  }
}
