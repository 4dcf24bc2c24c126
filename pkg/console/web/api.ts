// The page's side of the API: requests through the console's proxy (same origin; the session cookie goes
// along), errors as the server's Status, and paths of resources found through discovery.
import { follow } from "./streams.ts";

export interface Status { kind?: string; code: number; reason?: string; message: string; details?: { causes?: { type?: string; message: string; field?: string }[] } }

export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
  get code() { return this.status.code; }
}

/** One resource of discovery. */
export interface Res { group: string; version: string; resource: string; kind: string; namespaced: boolean; verbs: string[] }

export const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";

export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: "same-origin", ...init });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError({ code: 0, reason: "Disconnected", message: "the console is not reachable" });
  }
  if (res.ok) return res;
  const text = await res.text();
  let status: Status;
  try {
    status = JSON.parse(text);
  } catch {
    status = { code: res.status, message: text || res.statusText };
  }
  throw new ApiError({ ...status, code: res.status });
}

export async function getJSON<T = any>(path: string, accept = "application/json", signal?: AbortSignal): Promise<T> {
  return (await request(path, { headers: { accept }, signal })).json();
}

export function sendJSON(method: string, path: string, body: unknown, contentType = "application/json"): Promise<any> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return request(path, { method, headers: { "content-type": contentType, accept: "application/json" }, body: text }).then((r) => r.json());
}

export const groupVersion = (r: Res) => (r.group ? `${r.group}/${r.version}` : r.version);
const base = (r: Res) => (r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`);
export const listPath = (r: Res, ns?: string) => `${base(r)}${r.namespaced && ns ? `/namespaces/${encodeURIComponent(ns)}` : ""}/${r.resource}`;
export const objectPath = (r: Res, ns: string | undefined, name: string) => `${listPath(r, ns)}/${encodeURIComponent(name)}`;
/** The key a page address uses for a resource: `apps/v1/deployments`, `v1/pods`. */
export const resKey = (r: Res) => `${groupVersion(r)}/${r.resource}`;

export const query = (q: Record<string, string | number | boolean | undefined>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== "" && v !== false) s.set(k, String(v));
  const t = s.toString();
  return t ? `?${t}` : "";
};

/**
 * Reads a watch (newline-delimited JSON) until the server ends it; each line is handed to onLine. Resolves
 * when the server closes the stream, rejects on a refused request or a broken connection. Every stream of
 * the page goes over the one WebSocket of streams.ts.
 */
export function stream(path: string, accept: string, signal: AbortSignal, onLine: (line: string) => void): Promise<void> {
  return follow(path, accept, signal, (lines) => { for (const line of lines) if (line.trim()) onLine(line); });
}
