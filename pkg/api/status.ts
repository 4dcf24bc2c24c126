// API errors: one exception type that carries its own Status, and the single place
// where storage errors become API errors.
import { StoreError } from "../storage/store.ts";

export interface StatusCause { reason?: string; message?: string; field?: string }
export interface StatusDetails {
  name?: string; group?: string; kind?: string; uid?: string;
  causes?: StatusCause[]; retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, unknown>;
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  toStatus(): Status {
    const s: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: this.message, reason: this.reason, code: this.code };
    // an error upstream could not type has no reason (StatusReasonUnknown), which it leaves out
    if (!this.reason) delete s.reason;
    if (this.details) s.details = this.details;
    return s;
  }
}

/** Identifies an object in messages the way upstream does: `configmaps "x"`, `deployments.apps "y"`. */
export interface Qualified { group: string; resource: string; kind?: string }
const qname = (q: Qualified) => (q.group ? `${q.resource}.${q.group}` : q.resource);
const det = (q: Qualified, name: string, extra?: StatusDetails): StatusDetails => ({ name, group: q.group || undefined, kind: q.resource, ...extra });

export const badRequest = (msg: string) => new StatusError(400, "BadRequest", msg);
export const notFound = (q: Qualified, name: string) => new StatusError(404, "NotFound", `${qname(q)} "${name}" not found`, det(q, name));
export const alreadyExists = (q: Qualified, name: string) =>
  new StatusError(409, "AlreadyExists", `${qname(q)} "${name}" already exists`, det(q, name));
export const conflict = (q: Qualified, name: string, why: string) =>
  new StatusError(409, "Conflict", `Operation cannot be fulfilled on ${qname(q)} "${name}": ${why}`, det(q, name));
export const forbidden = (q: Qualified, name: string, why: string) =>
  new StatusError(403, "Forbidden", `${qname(q)} "${name}" is forbidden: ${why}`, det(q, name));
export const gone = (msg: string) => new StatusError(410, "Expired", msg);
export const methodNotAllowed = (msg: string) => new StatusError(405, "MethodNotAllowed", msg);
export const notAcceptable = (msg: string) => new StatusError(406, "NotAcceptable", msg);
export const unsupportedMediaType = (accepted = "application/json, application/yaml, application/vnd.kubernetes.protobuf") =>
  new StatusError(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: ${accepted}`, undefined);

/**
 * Request options that fail validation (CreateOptions, PatchOptions, ...): 422 Invalid, as upstream —
 * or 400 where the issues name that code (a bad dryRun value, apply without fieldManager).
 */
export function invalidOptions(kind: string, field: string, message: string, reason = "FieldValueInvalid", code: 400 | 422 = 422): StatusError {
  return new StatusError(code, code === 400 ? "BadRequest" : "Invalid", `${kind}.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: "meta.k8s.io", kind, causes: [{ reason, message, field }],
  });
}
export const tooLarge = () => new StatusError(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728");
export const tooNewRevision = () =>
  new StatusError(504, "Timeout", "Too large resource version", { retryAfterSeconds: 1, causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] }, { "Retry-After": "1" });
export const internal = (msg: string) => new StatusError(500, "InternalError", `Internal error occurred: ${msg}`);
export const serviceUnavailable = (msg: string) => new StatusError(503, "ServiceUnavailable", msg);

/** 422 Invalid with one cause per field, as upstream's field.ErrorList renders it. */
export function invalid(q: Qualified & { kind: string }, name: string, causes: StatusCause[]): StatusError {
  const list = causes.map((c) => `${c.field}: ${c.message}`).join(", ");
  // the kind is qualified by its group, as upstream's GroupKind prints it (`Deployment.apps`, core `Pod`)
  const msg = `${q.group ? `${q.kind}.${q.group}` : q.kind} "${name}" is invalid: ${causes.length > 1 ? `[${list}]` : list}`;
  return new StatusError(422, "Invalid", msg, { name, group: q.group || undefined, kind: q.kind, causes });
}

/** The one boundary between storage and API errors. */
export function fromStoreError(e: unknown, q: Qualified, name: string): Error {
  if (!(e instanceof StoreError)) return e as Error;
  switch (e.code) {
    case "KeyExists": return alreadyExists(q, name);
    case "NotFound": return notFound(q, name);
    case "Conflict": return conflict(q, name, "the object has been modified; please apply your changes to the latest version and try again");
    case "Compacted": return gone(`The resourceVersion for the provided list is too old.`);
    case "FutureRevision": return tooNewRevision();
    case "Unavailable": return serviceUnavailable(e.message);
    case "TooLarge": return new StatusError(413, "RequestEntityTooLarge", `Request entity too large: ${e.message}`);
  }
}
