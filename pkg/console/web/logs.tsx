// A pod's log, streamed as it is written (follow=true), for a chosen container, of its current or previous
// instance; the search box keeps the lines that match. Lines are added once per animation frame.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, objectPath, query, type Res } from "./api.ts";
import { follow } from "./streams.ts";
import { ErrorState } from "./states.tsx";

const MAX_LINES = 10_000;

export function Logs({ res, pod }: { res: Res; pod: any }) {
  const containers: string[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c: any) => c.name);
  const [container, setContainer] = useState(pod.spec?.containers?.[0]?.name ?? containers[0]);
  const [previous, setPrevious] = useState(false);
  const [search, setSearch] = useState("");
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<ApiError | undefined>();
  const [ended, setEnded] = useState(false);
  const view = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const abort = new AbortController();
    let buf: string[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const add = buf;
      buf = [];
      setLines((l) => (l.length + add.length > MAX_LINES ? [...l, ...add].slice(-MAX_LINES) : [...l, ...add]));
    };
    setLines([]);
    setError(undefined);
    setEnded(false);
    (async () => {
      try {
        const path = objectPath(res, pod.metadata.namespace, pod.metadata.name) + "/log" + query({ container, previous, follow: !previous, tailLines: 1000 });
        await follow(path, "*/*", abort.signal, (lines) => {
          buf.push(...lines);
          if (!frame) frame = requestAnimationFrame(flush);
        });
        flush();
        setEnded(true);
      } catch (e) {
        if (!abort.signal.aborted) setError(e instanceof ApiError ? e : new ApiError({ code: 0, reason: "Disconnected", message: String(e) }));
      }
    })();
    return () => {
      abort.abort();
      cancelAnimationFrame(frame);
    };
  }, [pod.metadata.uid, container, previous]);
  const shown = useMemo(() => (search ? lines.filter((l) => l.toLowerCase().includes(search.toLowerCase())) : lines), [lines, search]);
  useEffect(() => {
    const el = view.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [shown]);
  return (
    <div class="logs">
      <div class="toolbar">
        <label>Container <select value={container} onChange={(e) => setContainer((e.target as HTMLSelectElement).value)}>{containers.map((c) => <option key={c}>{c}</option>)}</select></label>
        <label><input type="checkbox" checked={previous} onChange={(e) => setPrevious((e.target as HTMLInputElement).checked)} /> Previous instance</label>
        <input type="search" class="log-search" placeholder="Search the log" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        <span class="muted">{search ? `${shown.length} of ${lines.length} lines` : `${lines.length} lines`}{ended ? " · ended" : previous ? "" : " · following"}</span>
      </div>
      {error && <ErrorState error={error} />}
      <pre class="log" ref={view}>{shown.join("\n")}</pre>
    </div>
  );
}
