// The export format of `kite datastore`: newline-delimited JSON, one stored key per line, in key order.
//
//   {"key":"/registry/configmaps/default/web","value":{"kind":"ConfigMap","apiVersion":"v1","metadata":{...},...}}
//
// `value` is the stored object itself (not a string), so the file reads with jq and diffs cleanly. A value
// that would not come back byte for byte from JSON.stringify(value) (not JSON, or JSON written in another
// spelling, e.g. by another program) is carried verbatim as a string instead: {"key":"...","raw":"..."}.
// A value in the binary media type (--storage-media-type) is carried as base64: {"key":"...","b64":"..."}.
// Either way an import writes exactly the bytes that were exported. Revisions (resourceVersions) are not
// carried: the target store numbers its writes itself.
import type { Value } from "../storage/store.ts";

export interface Entry {
  key: string;
  /** The stored value, exactly as the store holds it. */
  value: Value;
}

/** One line of the export (without the newline). */
export function encodeLine(key: string, value: Value): string {
  if (typeof value !== "string") return JSON.stringify({ key, b64: Buffer.from(value).toString("base64") });
  let canonical = false;
  try {
    const parsed = JSON.parse(value);
    canonical = parsed !== null && typeof parsed === "object" && JSON.stringify(parsed) === value;
  } catch { /* not JSON */ }
  // A canonical value is embedded as it is: JSON.stringify never writes a newline, so the line stays one line.
  return canonical ? `{"key":${JSON.stringify(key)},"value":${value}}` : JSON.stringify({ key, raw: value });
}

export class FormatError extends Error {}

/** Parses one line; `where` (e.g. "line 12 of FILE") goes into the error. */
export function decodeLine(line: string, where: string): Entry {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch (e) {
    throw new FormatError(`${where}: not JSON (${(e as Error).message}); expected {"key": "...", "value": {...}}`);
  }
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw new FormatError(`${where}: expected a JSON object {"key": "...", "value": {...}}`);
  const r = o as Record<string, unknown>;
  if (typeof r.key !== "string" || !r.key) throw new FormatError(`${where}: "key" must be a non-empty string`);
  if ("b64" in r) {
    if (typeof r.b64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(r.b64)) throw new FormatError(`${where}: "b64" must be base64 text`);
    return { key: r.key, value: new Uint8Array(Buffer.from(r.b64, "base64")) };
  }
  if ("raw" in r) {
    if (typeof r.raw !== "string") throw new FormatError(`${where}: "raw" must be a string`);
    if ("value" in r) throw new FormatError(`${where}: give "value" or "raw", not both`);
    return { key: r.key, value: r.raw };
  }
  if (r.value === null || typeof r.value !== "object" || Array.isArray(r.value)) {
    throw new FormatError(`${where}: "value" must be the stored object (a JSON object)`);
  }
  return { key: r.key, value: JSON.stringify(r.value) };
}

/** Reads a file line by line (LF or CRLF), with 1-based line numbers. */
export async function* readLines(path: string): AsyncGenerator<{ n: number; line: string }> {
  const dec = new TextDecoder("utf-8", { fatal: true });
  let buf = "";
  let n = 0;
  for await (const chunk of Bun.file(path).stream()) {
    buf += dec.decode(chunk, { stream: true });
    let start = 0;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n", start)) {
      n++;
      yield { n, line: trimCR(buf.slice(start, i)) };
      start = i + 1;
    }
    buf = buf.slice(start);
  }
  buf += dec.decode();
  if (buf) yield { n: n + 1, line: trimCR(buf) };
}

const trimCR = (s: string) => (s.endsWith("\r") ? s.slice(0, -1) : s);
