// Client-side errors: API errors carry the server's Status; connection errors name the server and the
// kubeconfig in use. `formatError` prints any of them the way kubectl does.

export interface StatusCause { reason?: string; message?: string; field?: string }
export interface Status {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
}

/** A non-2xx answer from the API server. */
export class ApiError extends Error {
  constructor(readonly code: number, readonly status: Status) {
    super(status.message ?? `the server responded with the status code ${code}`);
  }
  get reason(): string { return this.status.reason ?? ""; }
}

/** The server could not be reached at all (refused, TLS failure, DNS...). */
export class ConnectionError extends Error {
  constructor(readonly server: string, readonly source: string, override readonly cause: unknown) {
    super(String((cause as Error)?.message ?? cause));
  }
}

/** Anything the CLI reports with `error: ...` (bad input, unknown types). */
export class CliError extends Error {}

// Upstream's messages for error answers that carry no Status body (client-go newUnstructuredResponseError).
const GENERIC: Record<number, [string, string]> = {
  400: ["BadRequest", "the server rejected our request for an unknown reason"],
  401: ["Unauthorized", "the server has asked for the client to provide credentials"],
  403: ["Forbidden", "the server does not allow access to the requested resource"],
  404: ["NotFound", "the server could not find the requested resource"],
  405: ["MethodNotAllowed", "the server does not allow this method on the requested resource"],
  406: ["NotAcceptable", "the server was unable to respond with a content type that the client supports"],
  409: ["Conflict", "the server reported a conflict"],
  410: ["Gone", "the requested resource is no longer available"],
  413: ["RequestEntityTooLarge", "the server has rejected the request because the request body is too large"],
  415: ["UnsupportedMediaType", "the server was unable to respond with a content type that the client supports"],
  422: ["Invalid", "the server rejected our request due to an error in our request"],
  429: ["TooManyRequests", "the server has received too many requests and has asked us to try again later"],
  503: ["ServiceUnavailable", "the server is currently unable to handle the request"],
  504: ["Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"],
};

/** Builds the ApiError for an error answer, from its Status body when there is one. */
export function errorFromResponse(code: number, body: string): ApiError {
  try {
    const s = JSON.parse(body);
    if (s && s.kind === "Status") return new ApiError(code, s);
  } catch { /* not a Status */ }
  const [reason, message] = GENERIC[code] ?? ["InternalError", `an error on the server (${JSON.stringify(body.trim().slice(0, 200) || "unknown")}) has prevented the request from succeeding`];
  return new ApiError(code, { kind: "Status", status: "Failure", code, reason, message });
}

/** Rewrites an API error's message with the source it came from, as kubectl's AddSourceToErr. */
export function withSource(e: unknown, verb: string, source: string): unknown {
  if (!(e instanceof ApiError) || !source) return e;
  return new ApiError(e.code, { ...e.status, message: `error when ${verb} "${source}": ${e.message}` });
}

/** The text kubectl prints for an error (without a trailing newline). */
export function formatError(e: unknown): string {
  if (e instanceof ApiError) {
    const s = e.status;
    if (s.reason === "Unauthorized") return `error: You must be logged in to the server (${e.message})`;
    if (s.reason === "Invalid" && s.details && (s.details.kind || s.details.name)) {
      const head = `The ${s.details.kind ?? ""} "${s.details.name ?? ""}" is invalid`;
      const causes = (s.details.causes ?? []).map((c) => (c.field ? `${c.field}: ${c.message}` : `${c.message}`));
      if (causes.length === 0) return head;
      if (causes.length === 1) return `${head}: ${causes[0]}`;
      return `${head}: \n${causes.map((c) => `* ${c}`).join("\n")}`;
    }
    return s.reason ? `Error from server (${s.reason}): ${e.message}` : `Error from server: ${e.message}`;
  }
  if (e instanceof ConnectionError) {
    let host = e.server;
    try { host = new URL(e.server).host; } catch { /* keep as given */ }
    const where = `(server ${e.server}, from ${e.source})`;
    if (/refused|ECONNREFUSED/i.test(e.message)) {
      return `The connection to the server ${host} was refused - did you specify the right host or port? ${where}`;
    }
    return `Unable to connect to the server ${host}: ${e.message} ${where}`;
  }
  if (e instanceof CliError) return `error: ${e.message}`;
  if (e instanceof Error) return `error: ${e.message}`;
  return `error: ${String(e)}`;
}
