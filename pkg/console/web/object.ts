// One object, kept current: read once, then watched by name; a deletion while it is viewed is reported
// (the last known object stays on screen).
import { useEffect, useState } from "preact/hooks";
import { ApiError, type Res, getJSON, listPath, objectPath, query, stream } from "./api.ts";

export type ObjectState =
  | { phase: "loading" }
  | { phase: "live"; object: any; deleted?: boolean; retryIn?: number }
  | { phase: "error"; error: ApiError };

export function useLiveObject(res: Res, ns: string | undefined, name: string): ObjectState {
  const [state, setState] = useState<ObjectState>({ phase: "loading" });
  useEffect(() => {
    const abort = new AbortController();
    let object: any;
    let failures = 0;
    const run = async () => {
      while (!abort.signal.aborted) {
        try {
          object = await getJSON(objectPath(res, ns, name), "application/json", abort.signal);
          setState({ phase: "live", object });
          const q = query({ watch: 1, fieldSelector: `metadata.name=${name}`, resourceVersion: object.metadata.resourceVersion, allowWatchBookmarks: true });
          await stream(listPath(res, ns) + q, "application/json", abort.signal, (line) => {
            const ev = JSON.parse(line);
            if (ev.type === "ERROR") throw new ApiError(ev.object);
            if (ev.type === "MODIFIED" || ev.type === "ADDED") setState({ phase: "live", object: (object = ev.object) });
            if (ev.type === "DELETED") setState({ phase: "live", object, deleted: true });
            failures = 0;
          });
        } catch (e) {
          if (abort.signal.aborted) return;
          const err = e instanceof ApiError ? e : new ApiError({ code: 0, reason: "Disconnected", message: String((e as Error).message) });
          if (err.code === 404 && object) return setState({ phase: "live", object, deleted: true });
          if (err.code === 404 || err.code === 403 || err.code === 401) return setState({ phase: "error", error: err });
          if (err.code !== 410 && err.status.reason !== "Expired") {
            const retryIn = Math.min(5, 1 + failures++);
            if (object) setState({ phase: "live", object, retryIn });
            else setState({ phase: "error", error: err });
            await new Promise((r) => setTimeout(r, retryIn * 1000));
          }
        }
      }
    };
    setState({ phase: "loading" });
    void run();
    return () => abort.abort();
  }, [objectPath(res, ns, name)]);
  return state;
}
