// The server side of the WebSocket framing the TLS front uses for kubectl's SPDY tunnel: a client's masked
// frames unmasked however the bytes are chunked (payload lengths of 7, 16 and 64 bits, every alignment),
// pings and closes, a frame a client may not send refused; our frames' headers, built in place or not.
import { expect, test } from "bun:test";
import { FrameReader, MAX_HEADER, acceptKey, binaryFrame, framedInPlace } from "../../pkg/streaming/wsframing.ts";

/** A client's frame: FIN, `opcode`, masked with `mask`. */
function clientFrame(opcode: number, payload: Uint8Array, mask = Uint8Array.of(0x12, 0x34, 0x56, 0x78)): Buffer {
  const n = payload.length;
  const len = n < 126 ? [n] : n < 0x10000 ? [126, n >> 8, n & 0xff] : [127, 0, 0, 0, 0, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  const head = Buffer.from([0x80 | opcode, 0x80 | len[0], ...len.slice(1), ...mask]);
  return Buffer.concat([head, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]))]);
}

function read(chunks: Uint8Array[]) {
  const events: string[] = [];
  const data: Uint8Array[] = [];
  const r = new FrameReader({ data: (b) => data.push(b.slice()), ping: (p) => events.push(`ping ${Buffer.from(p)}`), close: (code) => events.push(`close ${code}`) });
  for (const c of chunks) r.push(c);
  return { events, data: Buffer.concat(data) };
}

const payload = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) & 0xff);

test("the RFC's example key gets the RFC's accept value", () => {
  expect(acceptKey("dGhlIHNhbXBsZSBub25jZQ==")).toBe("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
});

test("data frames of every length class come out unmasked, whole or chunked at any offset", () => {
  const frames = [payload(5), payload(126), payload(70_000), payload(0), payload(13)];
  const wire = Buffer.concat([...frames.map((p, i) => clientFrame(i === 0 ? 2 : 0, p)), clientFrame(9, Buffer.from("hi")), clientFrame(8, Uint8Array.of(0x03, 0xe8))]);
  const want = Buffer.concat(frames);
  for (const size of [wire.length, 1, 3, 4096, 65_537]) {
    const chunks: Uint8Array[] = [];
    // each chunk a fresh buffer at an odd offset, as reads give them
    for (let at = 0; at < wire.length; at += size) chunks.push(Buffer.concat([Buffer.alloc(1), wire.subarray(at, at + size)]).subarray(1));
    const { events, data } = read(chunks);
    expect(data.equals(want)).toBe(true);
    expect(events).toEqual(["ping hi", "close 1000"]);
  }
});

test("an unmasked frame from a client is a protocol error; nothing after it is read", () => {
  const unmasked = Buffer.from([0x82, 0x02, 0x61, 0x62]);
  const { events, data } = read([Buffer.concat([clientFrame(2, Buffer.from("ok")), unmasked, clientFrame(2, Buffer.from("no"))])]);
  expect(String(data)).toBe("ok");
  expect(events).toEqual(["close 1002"]);
});

test("our frames: unmasked binary headers, the same built in place before the data or into a copy", () => {
  for (const n of [3, 300, 70_000]) {
    const data = payload(n);
    const copy = binaryFrame(data);
    const roomy = new Uint8Array(MAX_HEADER + n);
    roomy.set(data, MAX_HEADER);
    const inPlace = framedInPlace(roomy.subarray(MAX_HEADER));
    expect(Buffer.from(inPlace).equals(Buffer.from(copy))).toBe(true);
    expect(copy[0]).toBe(0x82);
    expect(copy[1] & 0x80).toBe(0);
    expect(Buffer.from(copy.subarray(copy.length - n)).equals(Buffer.from(data))).toBe(true);
  }
});
