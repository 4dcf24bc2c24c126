// --profiling: /debug/pprof/ for authorized callers (a non-resource URL, so RBAC's system:masters or a
// rule for /debug/pprof/* decides), in the JavaScript runtime's own formats: `profile?seconds=N` samples
// the CPU with JavaScriptCore's profiler for N seconds (default 30, as upstream) and answers its report of
// the hottest functions and bytecodes; `heap` answers a heap snapshot Chrome DevTools opens (V8 format).
import { profile } from "bun:jsc";
import type { Route } from "../api/server.ts";
import { StatusError } from "../api/status.ts";

const INDEX = `/debug/pprof/

profile?seconds=N  CPU sampling report over N seconds (JavaScriptCore; text)
heap               heap snapshot (V8 .heapsnapshot format; open in Chrome DevTools)
`;

const MAX_SECONDS = 300;
/** JavaScriptCore runs one sampling profiler at a time. */
let sampling = false;

export const profilingRoute: Route = async (req, url) => {
  const path = url.pathname;
  if (path !== "/debug/pprof" && !path.startsWith("/debug/pprof/")) return undefined;
  if (req.method !== "GET") return undefined;
  const what = path.slice("/debug/pprof/".length);
  if (what === "") return new Response(INDEX, { headers: { "Content-Type": "text/plain; charset=utf-8" } });
  if (what === "heap") {
    return new Response(Bun.generateHeapSnapshot("v8"), { headers: { "Content-Type": "application/json", "Content-Disposition": 'attachment; filename="kite.heapsnapshot"' } });
  }
  if (what === "profile") {
    const raw = url.searchParams.get("seconds");
    const seconds = raw === null ? 30 : Number(raw);
    if (!Number.isInteger(seconds) || seconds <= 0 || seconds > MAX_SECONDS) {
      throw new StatusError(400, "BadRequest", `seconds must be an integer from 1 to ${MAX_SECONDS}`, {});
    }
    if (sampling) throw new StatusError(409, "Conflict", "a CPU profile is being taken already; try again when it is done", {});
    sampling = true;
    const report = await profile(() => Bun.sleep(seconds * 1000), 1000).finally(() => { sampling = false; });
    return new Response(`${report.functions}\n${report.bytecodes}`, { headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  return undefined;
};
