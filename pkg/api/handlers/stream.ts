// Bodies encoded a slice at a time. Encoding a list of hundreds of MB in one go held the event loop for
// seconds (every other request, /readyz included, waited behind it) and the body in memory several times
// over. A body comes as parts (./listparts.ts); the event loop gets a turn after every slice of about
// SLICE_MS or CHUNK bytes. A body that ends within one chunk is answered whole, as before (most are
// small); a larger one streams from there on, each slice encoded once the client has taken the last, so
// memory stays at a chunk or two whatever the size and however slowly the client reads.
import { consola } from "consola";
import { createGzip } from "node:zlib";
import { Slices, nextTurn } from "../../util/slices.ts";

export type Part = string | Uint8Array;

/** Bytes (about: strings count their UTF-16 length) after which a body streams, and a streamed chunk's size. */
const CHUNK = 1 << 20;

/** Moves parts into `out` until a chunk's worth of bytes or a slice's time: the bytes moved, and whether the parts ended. */
function take(parts: Iterator<Part>, out: Part[]): { bytes: number; done: boolean } {
  const clock = new Slices();
  let bytes = 0;
  for (;;) {
    const r = parts.next();
    if (r.done) return { bytes, done: true };
    out.push(r.value);
    bytes += r.value.length;
    if (bytes >= CHUNK) return { bytes, done: false };
    // an empty part is a pause (costly work was done): the clock is read at once
    if (r.value.length === 0 ? clock.due() : clock.dueAfter(r.value.length)) return { bytes, done: false };
  }
}

/** The parts as one body (a representation's parts are all strings or all bytes; empty ones are pauses). */
function join(parts: Part[]): Part {
  if (typeof parts[0] === "string") return (parts as string[]).join("");
  const bytes = (parts as Uint8Array[]).filter((p) => p.length > 0);
  return bytes.length === 1 ? bytes[0] : Buffer.concat(bytes);
}

/** The parts as bytes to send: a stream's chunks are bytes (each part read only, never changed). */
function bytesOf(parts: Part[]): Uint8Array {
  const joined = join(parts);
  return typeof joined === "string" ? Buffer.from(joined) : joined;
}

/**
 * Encodes the parts a slice at a time: the whole body when it ends within a chunk, else a stream of it.
 * Whatever fails before the stream starts rejects (and is answered as an error); `what` names the
 * request in the log when encoding fails later, which ends the response unfinished.
 */
export async function encodeSliced(parts: Iterator<Part>, what: string): Promise<Part | ReadableStream<Uint8Array>> {
  const first: Part[] = [];
  let size = 0;
  for (;;) {
    const { bytes, done } = take(parts, first);
    if (done) return join(first);
    if ((size += bytes) >= CHUNK) return streamFrom(first, size, parts, what);
    await nextTurn();
  }
}

/** For each streamed body: settles once its encoding is over (the last part taken, a failure, or the client gone). */
const encodings = new WeakMap<object, Promise<void>>();

function streamFrom(first: Part[], size: number, parts: Iterator<Part>, what: string): ReadableStream<Uint8Array> {
  let ready = first, done = false;
  let over!: () => void;
  const ended = new Promise<void>((resolve) => { over = resolve; });
  const stream = new ReadableStream<Uint8Array>({
    // Called when the client has taken the last chunk.
    async pull(controller) {
      try {
        while (size === 0 && !done) {
          await nextTurn();
          ({ bytes: size, done } = take(parts, ready));
        }
        if (size > 0) controller.enqueue(bytesOf(ready));
        ready = [];
        size = 0;
        if (done) {
          controller.close();
          over();
        }
      } catch (e) {
        over();
        consola.error(`${what}: encoding the response failed:`, e);
        throw e;
      }
    },
    cancel() {
      over();
      parts.return?.();
    },
  }, { highWaterMark: 0 });
  encodings.set(stream, ended);
  return stream;
}

/** A response whose body is a stream from encodeSliced (gzipped or not); its encoding's end is remembered. */
export function streamedResponse(body: ReadableStream<Uint8Array>, sent: ReadableStream<Uint8Array>, init: ResponseInit): Response {
  const res = new Response(sent, init);
  const ended = encodings.get(body);
  if (ended) encodings.set(res, ended);
  return res;
}

/** For a response whose body is still being encoded: settles when that is over. */
export function encodingOf(res: Response): Promise<void> | undefined {
  return encodings.get(res);
}

/**
 * The stream gzipped as it is read (level 1, as whole bodies are). zlib compresses a chunk off the event
 * loop while the next one is encoded; a chunk is read from `body` only when the client has taken what the
 * last one gave.
 */
export function gzipStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  // zlib's output in pieces of a chunk: its default (16 KB) costs a callback each, a third of the time.
  const gzip = createGzip({ level: 1, chunkSize: CHUNK });
  let out: Buffer[] = [];
  gzip.on("data", (b: Buffer) => out.push(b));
  // Awaited where they matter; handled at once, since a cancelled stream never awaits them.
  const handled = (p: Promise<void>) => (p.catch(() => {}), p);
  const ended = handled(new Promise<void>((resolve, reject) => gzip.on("end", resolve).on("error", reject)));
  const write = (chunk: Uint8Array) => handled(new Promise<void>((resolve, reject) => gzip.write(chunk, (e) => (e ? reject(e) : resolve()))));
  let compressing: Promise<void> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // zlib may keep a chunk's output back; read on until there is some, or the end.
      while (out.length === 0) {
        const { value, done } = await reader.read();
        await compressing;
        if (done) {
          gzip.end();
          await ended;
          if (out.length) controller.enqueue(Buffer.concat(out));
          controller.close();
          return;
        }
        compressing = write(value);
      }
      controller.enqueue(out.length === 1 ? out[0] : Buffer.concat(out));
      out = [];
    },
    cancel(reason) {
      gzip.destroy();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
