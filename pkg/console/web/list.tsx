// A list page: the live Table of one resource in the chosen namespace (or the cluster), filtered by the
// search box.
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { type Res, listPath, resKey } from "./api.ts";
import { type LiveState, type Row, watchTable } from "./live.ts";
import { go } from "./route.ts";
import { Empty, ErrorState, Loading } from "./states.tsx";
import { VTable } from "./vtable.tsx";

export function useLiveTable(path: string | undefined, q: Record<string, string | undefined> = {}): LiveState {
  const [state, setState] = useState<LiveState>({ phase: "loading" });
  const qKey = JSON.stringify(q);
  useEffect(() => {
    if (!path) return;
    setState({ phase: "loading" });
    return watchTable(path, q, setState);
  }, [path, qKey]);
  return state;
}

export function ListView({ res, ns, search }: { res: Res; ns: string; search: string }) {
  const state = useLiveTable(listPath(res, ns));
  const open = useCallback((r: Row) => go({ res: resKey(res), ns: r.object?.metadata?.namespace ?? ns, name: r.object?.metadata?.name }), [res, ns]);
  const rows = useMemo(() => {
    if (state.phase === "loading") return [];
    const all = (state.rows ?? []).slice().sort((a, b) => a.key.localeCompare(b.key));
    const s = search.trim().toLowerCase();
    return s ? all.filter((r) => r.cells.some((c) => String(c).toLowerCase().includes(s))) : all;
  }, [state, search]);
  const live = state.phase !== "loading";
  useEffect(() => {
    // a User Timing mark for measurements (test/bench/console.bench.ts): when this list first shows data
    if (live) performance.mark("kite-console:list", { detail: res.resource });
  }, [live]);
  if (state.phase === "loading") return <Loading />;
  const columns = state.columns ?? [];
  return (
    <section class="list" data-resource={res.resource}>
      <header class="list-head">
        <h1>{plural(res.kind)}</h1>
        <span class="count">{rows.length}{search ? ` matching “${search}”` : ""}</span>
      </header>
      {state.phase === "error" && <ErrorState error={state.error} retryIn={state.retryIn} />}
      {columns.length > 0 && (rows.length ? <VTable columns={columns} rows={rows} onOpen={open} /> : <Empty what={search ? "matches" : res.resource} />)}
    </section>
  );
}

/** A kind's plural for a heading: Pods, Ingresses, Endpoints, NetworkPolicies. */
export function plural(kind: string): string {
  if (kind.endsWith("ss")) return `${kind}es`;
  if (kind.endsWith("s")) return kind;
  if (/[^aeiou]y$/.test(kind)) return `${kind.slice(0, -1)}ies`;
  return `${kind}s`;
}
