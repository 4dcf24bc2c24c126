// What every resource handler receives, and how it answers.
import type { ResourceStore } from "../../registry/generic.ts";
import type { UserInfo } from "../../auth/user.ts";
import type { AuthorizerChain } from "../../auth/authorize.ts";
import { encodeObject as encodeProtobuf } from "../../protobuf/index.ts";
import { jsonBytesOf } from "../../registry/serialized.ts";
import { GZIP_OVER, acceptsGzip } from "../limits.ts";
import { encodeBody, type Representation } from "../negotiate.ts";
import type { RequestInfo } from "../requestinfo.ts";
import type { Features } from "../../features/featuregate.ts";
import { badRequest, invalidOptions } from "../status.ts";
import { type BodyRepeats, type Directive, type FieldCheck, DIRECTIVES, newRepeats } from "../../fieldvalidation/index.ts";
import { listParts } from "./listparts.ts";
import { encodeSliced, gzipStream, streamedResponse } from "./stream.ts";

export interface HandlerContext {
  req: Request;
  url: URL;
  info: RequestInfo;
  rs: ResourceStore;
  rep: Representation;
  /** Aborted when the request times out or the server shuts down. */
  signal: AbortSignal;
  /** Warnings for the Warning header (deprecations, ignored options). */
  warnings: string[];
  /** The feature gates in force. */
  features: Features;
  /** The authenticated caller (absent when the server runs without authentication filters). */
  user?: UserInfo;
  /** The authorizers, for admission that asks them (absent without authorization filters). */
  authz?: AuthorizerChain;
}

/**
 * A list's answer per list object and Content-Type, once encoded whole: the registry hands the same
 * list object to every list of a collection at one revision (../../registry/list.ts), and each of them
 * is answered with these bytes — a Blob, which Bun sends without copying it again — gzipped once, when
 * a client first takes gzip. Dropped with the list object.
 */
const answers = new WeakMap<object, Map<string, Answer>>();
interface Answer { body: Blob; gzipped?: Blob | Promise<Blob> }

export function respond(ctx: HandlerContext, obj: unknown, status = 200): Response | Promise<Response> {
  // Lists are encoded a slice at a time (each item from its remembered form); large ones stream.
  const parts = listParts(ctx.rep, obj);
  if (parts) {
    const type = ctx.rep.format === "yaml" ? "application/yaml" : contentType(ctx);
    const list = obj as object;
    const known = answers.get(list)?.get(type);
    if (known) return replyKept(ctx, known, status, type);
    return encodeSliced(parts, `${ctx.req.method} ${ctx.url.pathname}`).then((body) => {
      if (body instanceof ReadableStream) return reply(ctx, body, status, type);
      let byType = answers.get(list);
      if (!byType) answers.set(list, (byType = new Map()));
      const answer: Answer = { body: new Blob([body]) };
      byType.set(type, answer);
      return replyKept(ctx, answer, status, type);
    });
  }
  if (ctx.rep.format === "protobuf") return reply(ctx, encodeProtobuf(obj as Record<string, any>), status, ctx.rep.type);
  // Objects from the watch cache carry their JSON already.
  if (ctx.rep.format === "json" && typeof obj === "object" && obj !== null) return reply(ctx, jsonBytesOf(obj), status, contentType(ctx));
  const { body, type } = encodeBody(obj, ctx.rep.format);
  return reply(ctx, body, status, type);
}

function headersFor(ctx: HandlerContext, type: string): Record<string, string> {
  const headers: Record<string, string> = { "Content-Type": type };
  if (ctx.warnings.length && ctx.features.WarningHeaders) headers.Warning = ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ");
  return headers;
}

/** Whether a body of this size is sent gzipped; if so, the headers say it. */
function gzipping(ctx: HandlerContext, size: number, headers: Record<string, string>): boolean {
  if (size <= GZIP_OVER || !ctx.features.APIResponseCompression || !acceptsGzip(ctx.req.headers)) return false;
  headers["Content-Encoding"] = "gzip";
  headers.Vary = "Accept-Encoding";
  return true;
}

/** Answers a whole body, or a stream of one (which is over 1 MB: ./stream.ts streams only large bodies). */
function reply(ctx: HandlerContext, body: string | Uint8Array | ReadableStream<Uint8Array>, status: number, type: string): Response {
  const headers = headersFor(ctx, type);
  const stream = body instanceof ReadableStream;
  const size = stream ? Infinity : typeof body === "string" ? Buffer.byteLength(body) : body.length;
  if (gzipping(ctx, size, headers)) {
    if (stream) return streamedResponse(body, gzipStream(body), { status, headers });
    const raw = typeof body === "string" ? new TextEncoder().encode(body) : body;
    return new Response(gzip(raw), { status, headers });
  }
  return stream ? streamedResponse(body, body, { status, headers }) : new Response(body, { status, headers });
}

/** Answers with a kept list answer, gzipping it the first time a client takes gzip. */
function replyKept(ctx: HandlerContext, answer: Answer, status: number, type: string): Response | Promise<Response> {
  const headers = headersFor(ctx, type);
  if (!gzipping(ctx, answer.body.size, headers)) return new Response(answer.body, { status, headers });
  const gzipped = (answer.gzipped ??= answer.body.bytes().then((raw) => (answer.gzipped = new Blob([gzip(raw)]))));
  return gzipped instanceof Blob ? new Response(gzipped, { status, headers }) : gzipped.then((blob) => new Response(blob, { status, headers }));
}

const gzip = (raw: Uint8Array) => Bun.gzipSync(raw as Uint8Array<ArrayBuffer>, { level: 1 });

/** The Content-Type names exactly the representation served. */
export function contentType(ctx: HandlerContext): string {
  const r = ctx.rep;
  if (r.format === "protobuf") return r.type;
  return r.as ? `application/json;as=${r.as};g=${r.group};v=${r.version}` : "application/json";
}

/** The options kind of a verb, for option validation errors. */
export function optionsKind(verb: string): string {
  return ({ create: "CreateOptions", update: "UpdateOptions", patch: "PatchOptions" } as Record<string, string>)[verb] ?? "DeleteOptions";
}

/** dryRun accepts only All (spec §4.3); anything else is refused with 400 (issue 4 names the code). */
export function dryRunValue(values: string[], verb: string): boolean {
  if (values.length === 0 || (values.length === 1 && values[0] === "")) return false;
  if (values.every((x) => x === "All")) return true;
  const bad = values.find((x) => x !== "All");
  throw invalidOptions(optionsKind(verb), "dryRun", `Unsupported value: "${bad}": supported values: "All"`, "FieldValueNotSupported", 400);
}

export const dryRun = (ctx: HandlerContext) => dryRunValue(ctx.url.searchParams.getAll("dryRun"), ctx.info.verb);

/** The fieldValidation parameter: Warn when absent; an unknown value is refused as upstream refuses it. */
export function fieldValidation(ctx: HandlerContext): Directive {
  const v = ctx.url.searchParams.get("fieldValidation") ?? "";
  if (v === "") return "Warn";
  if (DIRECTIVES.includes(v)) return v as Directive;
  throw invalidOptions(optionsKind(ctx.info.verb), "fieldValidation", `Unsupported value: ${JSON.stringify(v)}: supported values: "", "Ignore", "Strict", "Warn"`, "FieldValueNotSupported");
}

/** A field check for a create or update whose body is decoded next: repeats are collected unless ignored. */
export function bodyCheck(directive: Directive): { fields: FieldCheck; repeats: ((yaml: boolean) => BodyRepeats) | undefined } {
  const fields: FieldCheck = { directive, warnings: [] };
  return { fields, repeats: directive === "Ignore" ? undefined : (yaml) => (fields.body = newRepeats(yaml)) };
}

/**
 * The manager of a write: `fieldManager`, else the User-Agent's first segment, as upstream derives it.
 * Undefined (no managedFields kept) when the ServerSideApply gate is off.
 */
export function fieldManager(ctx: HandlerContext): string | undefined {
  if (!ctx.features.ServerSideApply) return undefined;
  const fm = ctx.url.searchParams.get("fieldManager");
  if (fm !== null) {
    if (fm.length > 128 || !/^[\x20-\x7e]*$/.test(fm)) throw badRequest(`fieldManager: Invalid value: "${fm.slice(0, 140)}": must be printable and at most 128 characters`);
    return fm;
  }
  return (ctx.req.headers.get("user-agent") ?? "").split("/")[0].slice(0, 128);
}
