// PodLogOptions (v1) from a query, and upstream's ValidatePodLogOptions: what the API server's pods/log
// and the node agent's /containerLogs both read. Dependency-free of the server's errors: a bad value
// throws a QueryError (the server answers 400 BadRequest, the agent its own text), the rules fill an Errs.
import { Errs } from "../validation/field.ts";

export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  insecureSkipTLSVerifyBackend: boolean;
  sinceSeconds?: number;
  /** RFC 3339, as given. */
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

/** A query value the parameter codec cannot read, in Go's words. */
export class QueryError extends Error {}

const GO_TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const GO_FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

function goBool(v: string | null): boolean {
  if (v === null) return false;
  if (GO_TRUE.has(v)) return true;
  if (GO_FALSE.has(v)) return false;
  throw new QueryError(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function goInt(v: string | null): number | undefined {
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw new QueryError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new QueryError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function goTime(v: string | null): string | undefined {
  if (v === null || v === "") return undefined;
  if (!RFC3339.test(v) || Number.isNaN(Date.parse(v))) throw new QueryError(`parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as "2006"`);
  return v;
}

/** The first value of each parameter counts, as upstream's codec reads it. */
export function parsePodLogOptions(q: URLSearchParams): PodLogOptions {
  return {
    container: q.get("container") || undefined,
    follow: goBool(q.get("follow")),
    previous: goBool(q.get("previous")),
    timestamps: goBool(q.get("timestamps")),
    insecureSkipTLSVerifyBackend: goBool(q.get("insecureSkipTLSVerifyBackend")),
    sinceSeconds: goInt(q.get("sinceSeconds")),
    sinceTime: goTime(q.get("sinceTime")),
    tailLines: goInt(q.get("tailLines")),
    limitBytes: goInt(q.get("limitBytes")),
  };
}

/** upstream's ValidatePodLogOptions. */
export function validatePodLogOptions(o: PodLogOptions): Errs {
  const e = new Errs();
  if (o.tailLines !== undefined && o.tailLines < 0) e.invalid("tailLines", o.tailLines, "must be greater than or equal to 0");
  if (o.limitBytes !== undefined && o.limitBytes < 1) e.invalid("limitBytes", o.limitBytes, "must be greater than 0");
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) e.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified");
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) e.invalid("sinceSeconds", o.sinceSeconds, "must be greater than 0");
  return e;
}

/** The query the API server sends the agent (upstream's LogLocation: only what is set). */
export function agentLogQuery(o: PodLogOptions): string {
  const p = new URLSearchParams();
  if (o.follow) p.set("follow", "true");
  if (o.previous) p.set("previous", "true");
  if (o.timestamps) p.set("timestamps", "true");
  if (o.sinceSeconds !== undefined) p.set("sinceSeconds", String(o.sinceSeconds));
  if (o.sinceTime !== undefined) p.set("sinceTime", new Date(o.sinceTime).toISOString().replace(/\.\d{3}Z$/, "Z"));
  if (o.tailLines !== undefined) p.set("tailLines", String(o.tailLines));
  if (o.limitBytes !== undefined) p.set("limitBytes", String(o.limitBytes));
  p.sort();
  return p.toString();
}
