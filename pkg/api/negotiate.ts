// Content negotiation: which representation a client accepts, and decoding request bodies.
import { parseJSONAsGo } from "../util/gostrings.ts";
import { PROTOBUF_MEDIA_TYPES, ProtobufError, ProtobufUnsupported, decodeObject as decodeProtobuf } from "../protobuf/index.ts";
import { type BodyRepeats, collectJsonRepeats } from "../fieldvalidation/index.ts";
import { goJSONSyntaxError, goJSONType } from "../util/gojson.ts";
import { nestsDeeper } from "../util/jsondepth.ts";
import { decodeYaml } from "../yaml/decode.ts";
import { emitYaml } from "../yaml/emit.ts";
import { MAX_DEPTH, tooDeep } from "../yaml/limits.ts";
import { MAX_BODY } from "./limits.ts";
import { StatusError, badRequest, notAcceptable, tooLarge, unsupportedMediaType } from "./status.ts";

export interface MediaType { type: string; params: Record<string, string> }

/** Parsed headers by their text: clients send the same few Accept and Content-Type values every time. */
const parsed = new Map<string, readonly MediaType[]>();

/** The media types of an Accept or Content-Type header, in order (callers must not change them). */
export function parseMediaTypes(header: string | null): readonly MediaType[] {
  if (!header) return [];
  let types = parsed.get(header);
  if (!types) {
    if (parsed.size >= 256) parsed.clear();
    parsed.set(header, (types = parseUncached(header)));
  }
  return types;
}

function parseUncached(header: string): MediaType[] {
  return header.split(",").map((part) => {
    const [type, ...ps] = part.split(";").map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of ps) {
      const i = p.indexOf("=");
      if (i > 0) params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim().replace(/^"|"$/g, "");
    }
    return { type: type.toLowerCase(), params };
  }).filter((m) => m.type);
}

export type Representation =
  | { format: "json" | "yaml"; as?: undefined }
  | { format: "protobuf"; as?: undefined; type: string }
  | { format: "json"; as: "Table" | "PartialObjectMetadata" | "PartialObjectMetadataList"; group: string; version: string };

export const isProtobufType = (t: string) => (PROTOBUF_MEDIA_TYPES as readonly string[]).includes(t);

const isJSON = (t: string) => t === "application/json" || t === "*/*" || t === "application/*";

/**
 * Picks the first entry of Accept the server can serve. `as=` forms (Table, PartialObjectMetadata) are
 * offered only where `supportsAs` says so; an unservable entry falls through to the next, as upstream.
 */
export function negotiate(
  accept: string | null,
  supportsAs: (as: string, group: string, version: string) => boolean = () => false,
  protobuf = false,
): Representation {
  const types = parseMediaTypes(accept);
  if (types.length === 0) return { format: "json" };
  for (const m of types) {
    if (m.params.as) {
      const g = m.params.g ?? "", v = m.params.v ?? "";
      if ((m.type === "application/json") && supportsAs(m.params.as, g, v)) {
        return { format: "json", as: m.params.as as "Table", group: g, version: v };
      }
      continue;
    }
    if (isJSON(m.type)) return { format: "json" };
    if (m.type === "application/yaml") return { format: "yaml" };
    if (protobuf && isProtobufType(m.type)) return { format: "protobuf", type: m.type };
  }
  throw notAcceptable(`only the following media types are accepted: application/json, application/yaml${protobuf ? ", application/vnd.platform.protobuf, application/vnd.kubernetes.protobuf" : ""}`);
}

/**
 * Reads a body up to 3 MiB; larger ones are refused with 413 before they are parsed. A body without a
 * Content-Length (chunked) is read chunk by chunk and refused as soon as it passes the limit.
 */
export async function readBody(req: Request): Promise<Uint8Array> {
  const length = req.headers.get("content-length");
  if (length !== null && /^\d+$/.test(length)) {
    if (Number(length) > MAX_BODY) throw tooLarge();
    // Bun reads no more than Content-Length says (and no more than its maxRequestBodySize in any case).
    const buf = new Uint8Array(await req.arrayBuffer());
    if (buf.byteLength > MAX_BODY) throw tooLarge();
    return buf;
  }
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > MAX_BODY) throw tooLarge(); // leaving the loop cancels the stream
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

const utf8 = new TextDecoder();
export const text = (b: Uint8Array) => utf8.decode(b);

/**
 * Decodes an object body in JSON, YAML or the binary form; anything else is a 400 or 415. With `repeats`,
 * the repeated keys of a JSON or YAML body are collected there (the binary form has none). With the kind
 * the body must be, JSON that cannot be read is refused in upstream's words.
 */
export function decodeObject(body: Uint8Array, contentType: string | null, repeats?: (yaml: boolean) => BodyRepeats, kind?: string, binary = true): unknown {
  const type = parseMediaTypes(contentType)[0]?.type ?? "application/json";
  if (type === "application/json" && kind) return decodeJSONObject(body, kind, repeats?.(false));
  if (type === "application/json" || type === "application/yaml" || type === "application/apply-patch+yaml") {
    const yaml = type !== "application/json";
    return parseText(text(body), yaml, repeats?.(yaml));
  }
  // kinds without a binary form (custom resources) take JSON and YAML only, as upstream
  if (!binary) throw unsupportedMediaType("application/json, application/yaml");
  if (isProtobufType(type)) {
    try {
      return decodeProtobuf(body);
    } catch (e) {
      if (e instanceof ProtobufError || e instanceof ProtobufUnsupported) throw badRequest(`the body of the request could not be decoded: ${e.message}`);
      throw new StatusError(400, "BadRequest", `the body of the request could not be decoded: ${(e as Error).message}`);
    }
  }
  throw unsupportedMediaType();
}

const GO_KIND_STRUCT = `struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;

/** A JSON body for an object of `kind`: what upstream's decoder could not read its apiVersion and kind from is a 400 in its words. */
function decodeJSONObject(body: Uint8Array, kind: string, repeats?: BodyRepeats): unknown {
  const unrecognized = (why: string) =>
    badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${why} (${summarize(body)})`);
  const s = text(body);
  // nested past upstream's limit: refused before it is built, as every body is
  if (mayNestTooDeep(s)) return parseText(s, false, repeats);
  let v: unknown;
  try {
    v = parseJSONAsGo(s);
  } catch {
    throw unrecognized(goJSONSyntaxError(body) ?? "invalid JSON");
  }
  if (v === null) return v;
  if (typeof v !== "object" || Array.isArray(v)) throw unrecognized(`json: cannot unmarshal ${goJSONType(v)} into Go value of type ${GO_KIND_STRUCT}`);
  for (const f of ["apiVersion", "kind"]) {
    const x = (v as Record<string, unknown>)[f];
    if (x !== undefined && x !== null && typeof x !== "string") throw unrecognized(`json: cannot unmarshal ${goJSONType(x)} into Go struct field .${f} of type string`);
  }
  if (repeats) collectJsonRepeats(s, v, repeats);
  return v;
}

/** Upstream's glimpse of a body it could not read: up to 30 bytes, as text when it looks like JSON, else in hex. */
function summarize(body: Uint8Array): string {
  if (body.length === 0) return "<empty>";
  const head = body.subarray(0, 30);
  const more = body.length > 30 ? " ..." : "";
  return (body[0] === 0x7b ? text(head) : Buffer.from(head).toString("hex")) + more;
}

/**
 * Parses a JSON or YAML body. Nesting past 10,000 levels (upstream's limit) is refused before JSON.parse
 * and while YAML is read; every failure is a 400. With `repeats`, repeated keys are collected there.
 */
export function parseText(text: string, yaml: boolean, repeats?: BodyRepeats): unknown {
  if (!text.trim()) throw badRequest("the body of the request was empty");
  try {
    return yaml ? parseYAML(text, repeats) : parseJSON(text, repeats);
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded: ${(e as Error).message.split("\n")[0]}`);
  }
}

// every level of nesting takes at least one character
const mayNestTooDeep = (text: string) => text.length > MAX_DEPTH && nestsDeeper(text, MAX_DEPTH);

function parseJSON(text: string, repeats?: BodyRepeats): unknown {
  if (mayNestTooDeep(text)) throw tooDeep();
  const v = parseJSONAsGo(text);
  if (repeats) collectJsonRepeats(text, v, repeats);
  return v;
}

/** YAML; a body that is JSON (kubectl's apply bodies are) goes to JSON.parse, which reads it the same. */
function parseYAML(text: string, repeats?: BodyRepeats): unknown {
  const c = text.trimStart()[0];
  if ((c === "{" || c === "[") && !mayNestTooDeep(text)) {
    let v;
    try {
      v = parseJSONAsGo(text);
    } catch { /* YAML flow style, not JSON */ }
    if (v !== undefined) {
      if (repeats) collectJsonRepeats(text, v, repeats);
      return v;
    }
  }
  return decodeYaml(text, repeats && ((line, key) => repeats.list.push({ path: "", key, line })));
}

/** YAML as upstream writes it: strings that would read back as booleans, numbers or dates are quoted. */
export const toYAML = emitYaml;

export function encodeBody(obj: unknown, format: "json" | "yaml"): { body: string; type: string } {
  if (format === "yaml") return { body: toYAML(obj), type: "application/yaml" };
  return { body: JSON.stringify(obj), type: "application/json" };
}
