// Protobuf wire primitives: a growable writer and a bounds-checked reader over one Uint8Array.
import { ProtobufError } from "./errors.ts";

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder(); // invalid sequences become U+FFFD, as Go's JSON encoder writes them
const TWO_32 = 4294967296;

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

export class Writer {
  buf: Uint8Array;
  pos = 0;
  private view: DataView | null = null;

  constructor(size = 256) {
    this.buf = new Uint8Array(size);
  }

  private grow(need: number): void {
    if (this.pos + need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = null;
  }

  /** An unsigned varint below 2^32. */
  uint32(v: number): void {
    this.grow(5);
    const b = this.buf;
    while (v > 127) {
      b[this.pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    b[this.pos++] = v;
  }

  /** A signed 32-bit value as proto `int32` (negative numbers take ten bytes). */
  int32(v: number): void {
    if (v >= 0) this.uint32(v);
    else this.int64(v);
  }

  /** A JS number as proto `int64`/`uint64` varint (exact below 2^53). */
  int64(v: number): void {
    if (v >= 0 && v < TWO_32) return this.uint32(v);
    let lo: number, hi: number;
    if (v >= 0) {
      lo = v % TWO_32;
      hi = Math.floor(v / TWO_32);
    } else {
      const a = -v;
      lo = a % TWO_32;
      hi = Math.floor(a / TWO_32);
      // two's complement of (hi, lo)
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    }
    this.grow(10);
    const b = this.buf;
    while (hi > 0 || lo > 127) {
      b[this.pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    b[this.pos++] = lo;
  }

  bool(v: boolean): void {
    this.grow(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  double(v: number): void {
    this.grow(8);
    (this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset)).setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  float(v: number): void {
    this.grow(4);
    (this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset)).setFloat32(this.pos, v, true);
    this.pos += 4;
  }

  bytes(v: Uint8Array): void {
    this.uint32(v.length);
    this.grow(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
  }

  string(s: string): void {
    const n = s.length;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      if (s.charCodeAt(i) > 127) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      this.uint32(n);
      this.grow(n);
      const b = this.buf;
      let p = this.pos;
      for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
      this.pos = p;
      return;
    }
    this.bytes(utf8.encode(s));
  }

  /** Starts a length-delimited value; returns the mark to pass to `end`. One byte is reserved for the length. */
  begin(): number {
    this.grow(1);
    return this.pos++;
  }

  /** Ends a length-delimited value started at `mark`, moving the body if its length needs more than one byte. */
  end(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 128) {
      this.buf[mark] = len;
      return;
    }
    const extra = len < 1 << 14 ? 1 : len < 1 << 21 ? 2 : len < 1 << 28 ? 3 : 4;
    this.grow(extra);
    const b = this.buf;
    b.copyWithin(mark + 1 + extra, mark + 1, this.pos);
    let v = len, p = mark;
    while (v > 127) {
      b[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    b[p] = v;
    this.pos += extra;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

export class Reader {
  pos: number;
  private view: DataView | null = null;

  constructor(readonly buf: Uint8Array, start = 0, readonly limit = buf.length) {
    this.pos = start;
  }

  private fail(what: string): never {
    throw new ProtobufError(`malformed protobuf: ${what} at offset ${this.pos}`);
  }

  uint32(): number {
    const b = this.buf;
    let v = 0, shift = 0;
    for (;;) {
      if (this.pos >= this.limit) this.fail("truncated varint");
      const c = b[this.pos++];
      if (shift < 28) v |= (c & 127) << shift;
      else if (shift === 28) v |= (c & 15) << 28; // keep the low 32 bits, drop the rest
      if (c < 128) return v >>> 0;
      shift += 7;
      if (shift > 63) this.fail("varint too long");
    }
  }

  int32(): number {
    return this.uint32() | 0;
  }

  /** A varint as a signed 64-bit number (exact below 2^53). */
  int64(): number {
    const b = this.buf;
    let lo = 0, hi = 0, shift = 0;
    for (;;) {
      if (this.pos >= this.limit) this.fail("truncated varint");
      const c = b[this.pos++];
      if (shift < 28) lo |= (c & 127) << shift;
      else if (shift === 28) {
        lo |= (c & 15) << 28;
        hi |= (c & 127) >> 4;
      } else hi |= (c & 127) << (shift - 32);
      if (c < 128) break;
      shift += 7;
      if (shift > 63) this.fail("varint too long");
    }
    lo >>>= 0;
    if (hi & 0x80000000) {
      // negative: value = -(two's complement)
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
      return -(hi * TWO_32 + lo);
    }
    return (hi >>> 0) * TWO_32 + lo;
  }

  /** An unsigned 64-bit varint as a number. */
  uint64(): number {
    const v = this.int64();
    return v < 0 ? v + 2 ** 64 : v;
  }

  bool(): boolean {
    return this.int64() !== 0;
  }

  double(): number {
    if (this.pos + 8 > this.limit) this.fail("truncated double");
    const v = (this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)).getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  float(): number {
    if (this.pos + 4 > this.limit) this.fail("truncated float");
    const v = (this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)).getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** Reads a length prefix and returns the end offset of the value that follows. */
  lenEnd(): number {
    const n = this.uint32();
    const end = this.pos + n;
    if (end > this.limit) this.fail("length past the end of the message");
    return end;
  }

  bytes(): Uint8Array {
    const end = this.lenEnd();
    const v = this.buf.subarray(this.pos, end);
    this.pos = end;
    return v;
  }

  string(): string {
    const end = this.lenEnd();
    const b = this.buf;
    const start = this.pos;
    this.pos = end;
    if (end - start < 24) {
      let s = "";
      for (let i = start; i < end; i++) {
        const c = b[i];
        if (c > 127) return utf8Decoder.decode(b.subarray(start, end));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return utf8Decoder.decode(b.subarray(start, end));
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.int64();
        return;
      case WIRE_I64:
        this.pos += 8;
        break;
      case WIRE_LEN:
        this.pos = this.lenEnd();
        return;
      case WIRE_I32:
        this.pos += 4;
        break;
      default:
        this.fail(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.limit) this.fail("truncated field");
  }
}
