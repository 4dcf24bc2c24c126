// The server side of a WebSocket (RFC 6455) on a connection the TLS front took over, for a stream whose
// messages are only a carrier of bytes (SPDY tunneled through binary messages, kubectl 1.31+): what the
// client's frames carry goes on as it arrives, unmasked in place, without waiting for a frame or a message
// to be whole; what we send goes out as one unmasked binary frame per write.
import { createHash } from "node:crypto";

const Op = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** The Sec-WebSocket-Accept answer to a client's Sec-WebSocket-Key. */
export const acceptKey = (key: string) => createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");

/** A frame's header: FIN, the opcode, the length (7, 16 or 64 bits); a server's frames are not masked. */
export function frameHeader(opcode: number, length: number, into: Uint8Array = new Uint8Array(headerSize(length))): Uint8Array {
  into[0] = 0x80 | opcode;
  if (length < 126) into[1] = length;
  else if (length < 0x10000) {
    into[1] = 126;
    into[2] = length >>> 8;
    into[3] = length & 0xff;
  } else {
    into[1] = 127;
    new DataView(into.buffer, into.byteOffset, 10).setBigUint64(2, BigInt(length));
  }
  return into;
}

export const headerSize = (length: number) => (length < 126 ? 2 : length < 0x10000 ? 4 : 10);

/** A binary frame of `data`: header and payload in one buffer (one write, one TLS record run). */
export function binaryFrame(data: Uint8Array): Uint8Array {
  const h = headerSize(data.length);
  const f = new Uint8Array(h + data.length);
  frameHeader(Op.binary, data.length, f);
  f.set(data, h);
  return f;
}

/** The longest frame header. */
export const MAX_HEADER = 10;

/** A binary frame of `data`, its header written into the (free) bytes before `data` in its buffer. */
export function framedInPlace(data: Uint8Array): Uint8Array {
  const h = headerSize(data.length);
  const f = new Uint8Array(data.buffer, data.byteOffset - h, h + data.length);
  frameHeader(Op.binary, data.length, f);
  return f;
}

export const closeFrame = (code = 1000) => { const f = frameHeader(Op.close, 2); return Uint8Array.of(...f, code >>> 8, code & 0xff); };

/** XORs `b` with the 4-byte `mask`, starting at mask byte `phase`: four bytes at a time where aligned. */
function unmask(b: Uint8Array, mask: Uint8Array, phase: number) {
  let i = 0;
  while (i < b.length && (b.byteOffset + i) % 4) b[i++] ^= mask[phase++ & 3];
  const words = (b.length - i) >>> 2;
  if (words) {
    const m = mask[phase & 3] | (mask[(phase + 1) & 3] << 8) | (mask[(phase + 2) & 3] << 16) | (mask[(phase + 3) & 3] << 24);
    const w = new Int32Array(b.buffer, b.byteOffset + i, words);
    for (let j = 0; j < words; j++) w[j] ^= m;
    i += words * 4;
    phase += words * 4;
  }
  while (i < b.length) b[i++] ^= mask[phase++ & 3];
}

export interface FrameEvents {
  /** Bytes of a data frame (binary, text or continuation), in order; may be part of a frame. */
  data(bytes: Uint8Array): void;
  /** A ping's payload: answer with a pong. */
  ping(payload: Uint8Array): void;
  /** The client's close frame, or a frame breaking the protocol (`code` 1002). */
  close(code: number): void;
}

/**
 * Reads a client's frames from a byte stream. Control frames (at most 125 bytes) are collected whole;
 * data frames' payloads are handed on as they come, those of one read together.
 */
export class FrameReader {
  /** Bytes of a frame header (or a control frame) not yet whole. */
  private partial = new Uint8Array(0);
  /** The data frame being read: its mask, how much of its payload is left, the mask phase. */
  private left = 0;
  private phase = 0;
  private mask = new Uint8Array(4);
  private done = false;

  constructor(private readonly on: FrameEvents) {}

  push(chunk: Uint8Array) {
    let b = chunk, at = 0;
    while (at < b.length && !this.done) {
      if (this.left) {
        const n = Math.min(this.left, b.length - at);
        unmask(b.subarray(at, at + n), this.mask, this.phase);
        this.phase = (this.phase + n) & 3;
        this.left -= n;
        this.gather(b, at, n);
        at += n;
        continue;
      }
      if (this.partial.length) {
        this.flush();
        const joined = new Uint8Array(this.partial.length + b.length - at);
        joined.set(this.partial);
        joined.set(b.subarray(at), this.partial.length);
        this.partial = new Uint8Array(0);
        b = joined;
        at = 0;
      }
      const used = this.header(b.subarray(at));
      if (used < 0) {
        this.partial = new Uint8Array(b.subarray(at));
        break;
      }
      at += used;
    }
    this.flush();
  }

  /**
   * The payloads of one read, moved together over the frame headers between them (a memmove within the
   * read, where handing them on one by one would have the SPDY reader join most of its frames: kubectl
   * 1.33 sends frames of about 10 KB, its SPDY frames are 32 KB).
   */
  private run?: { b: Uint8Array; start: number; end: number };

  private gather(b: Uint8Array, at: number, n: number) {
    const r = this.run;
    if (!r || r.b !== b) {
      this.flush();
      this.run = { b, start: at, end: at + n };
      return;
    }
    if (r.end !== at) b.copyWithin(r.end, at, at + n);
    r.end += n;
  }

  /** Hands on what has been gathered. */
  private flush() {
    const r = this.run;
    this.run = undefined;
    if (r && r.end > r.start) this.on.data(r.b.subarray(r.start, r.end));
  }

  /** Reads one frame's header (and a control frame's payload): the bytes used, or -1 when not all there. */
  private header(b: Uint8Array): number {
    if (b.length < 2) return -1;
    const opcode = b[0] & 0x0f, masked = b[1] & 0x80;
    let len = b[1] & 0x7f, at = 2;
    if (len === 126) {
      if (b.length < 4) return -1;
      len = (b[2] << 8) | b[3];
      at = 4;
    } else if (len === 127) {
      if (b.length < 10) return -1;
      len = Number(new DataView(b.buffer, b.byteOffset, 10).getBigUint64(2));
      at = 10;
    }
    // a client masks every frame; reserved bits and opcodes are not for us
    if (!masked || b[0] & 0x70 || (opcode > Op.binary && opcode < Op.close) || opcode > Op.pong) return this.fail();
    if (b.length < at + 4) return -1;
    const mask = b.subarray(at, at + 4);
    at += 4;
    if (opcode >= Op.close) {
      if (len > 125 || !(b[0] & 0x80)) return this.fail();
      if (b.length < at + len) return -1;
      const payload = new Uint8Array(b.subarray(at, at + len));
      unmask(payload, mask, 0);
      // the data before it first
      this.flush();
      if (opcode === Op.ping) this.on.ping(payload);
      else if (opcode === Op.close) {
        this.done = true;
        this.on.close(len >= 2 ? (payload[0] << 8) | payload[1] : 1000);
      }
      return at + len;
    }
    // copies (a Buffer's slice would be a view, and the payloads moved over it)
    this.mask = new Uint8Array(mask);
    this.phase = 0;
    this.left = len;
    return at;
  }

  private fail(): number {
    this.flush();
    this.done = true;
    this.on.close(1002);
    return 0;
  }
}

export const pongFrame = (payload: Uint8Array) => { const f = frameHeader(Op.pong, payload.length); return Uint8Array.of(...f, ...payload); };
