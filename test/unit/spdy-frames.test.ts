// The SPDY/3.1 frame codec: frames split from arbitrary chunks, header blocks through the shared zlib
// context with the SPDY/3 dictionary in order, and the draft's dictionary itself.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { HEADER_DICTIONARY } from "../../pkg/streaming/spdy/dictionary.ts";
import { ControlType, FLAG_FIN, FrameReader, HeaderCodec, dataFrame, dataFrames, headerBlockOffset, payloadStreamId, pingFrame, synStreamFrame } from "../../pkg/streaming/spdy/frames.ts";

test("the dictionary is the draft's 1423 bytes", () => {
  expect(HEADER_DICTIONARY.length).toBe(1423);
  expect(createHash("sha256").update(HEADER_DICTIONARY).digest("hex")).toBe("51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02");
});

test("frames come out whole however the bytes are chunked", () => {
  const wire = Buffer.concat([dataFrame(1, Buffer.from("hello")), pingFrame(7), dataFrame(3, Buffer.alloc(0), true)]);
  const r = new FrameReader();
  const frames = [...wire].flatMap((b) => r.push(Uint8Array.of(b)));
  expect(frames.map((f) => (f.control ? `ctl ${f.type}` : `data ${f.streamId} ${Buffer.from(f.data)} ${f.flags}`))).toEqual(["data 1 hello 0", `ctl ${ControlType.PING}`, `data 3  ${FLAG_FIN}`]);
});

test("a frame split over chunks is completed with the bytes it lacks; the frames after it are read in place", () => {
  const datas = [5, 40_000, 0, 7, 33_000, 1].map((n, i) => Buffer.alloc(n, i + 1));
  const wire = Buffer.concat(datas.flatMap((d, i) => [dataFrame(2 * i + 1, d), pingFrame(i)]));
  for (const size of [5, 13, 4096, 50_000]) {
    const r = new FrameReader();
    const frames = [];
    for (let at = 0; at < wire.length; at += size) frames.push(...r.push(wire.subarray(at, at + size)));
    expect(frames.filter((f) => !f.control).map((f) => (f.control ? 0 : Buffer.from(f.data).toString("hex")))).toEqual(datas.map((d) => d.toString("hex")));
    expect(frames.filter((f) => f.control)).toHaveLength(datas.length);
  }
});

test("data written in one go: frames of at most the chunk size, back to back, FIN on the last only", () => {
  const data = Buffer.alloc(70_000, 9);
  const frames = new FrameReader().push(dataFrames(5, data, true, 0, 32 * 1024));
  expect(frames.map((f) => (f.control ? -1 : f.data.length))).toEqual([32 * 1024, 32 * 1024, 70_000 - 64 * 1024]);
  expect(frames.map((f) => f.flags)).toEqual([0, 0, FLAG_FIN]);
});

test("header blocks share one compression context per direction, in order", async () => {
  const ours = new HeaderCodec(), theirs = new HeaderCodec();
  const r = new FrameReader();
  const blocks = await Promise.all(([{ streamtype: "error" }, { streamtype: "stdout" }, { streamtype: "stdin", port: "8080" }] as Record<string, string>[]).map((h) => ours.encode(h)));
  const frames = r.push(Buffer.concat(blocks.map((b, i) => synStreamFrame(2 * i + 1, b))));
  const decoded = await Promise.all(frames.map((f) => (f.control ? theirs.decode(f.payload.subarray(headerBlockOffset(f.type))) : undefined)));
  expect(frames.map((f) => (f.control ? payloadStreamId(f.payload) : 0))).toEqual([1, 3, 5]);
  expect(decoded).toEqual([{ streamtype: "error" }, { streamtype: "stdout" }, { streamtype: "stdin", port: "8080" }]);
  // the second block leans on the first: it is smaller than a fresh context's would be
  expect(blocks[1].length).toBeLessThan(blocks[0].length);
  ours.close();
  theirs.close();
});
