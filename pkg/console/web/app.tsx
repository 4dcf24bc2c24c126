// The page's frame: the cluster's resources in a sidebar (from discovery), the namespace picker and the
// search box on top, and the list or object page of the address.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type Res, getJSON, resKey } from "./api.ts";
import { DetailView } from "./detail.tsx";
import { type Discovery, SECTIONS, discover } from "./discovery.ts";
import { ListView, plural, useLiveTable } from "./list.tsx";
import { go, href, useRoute } from "./route.ts";
import { ErrorState, Loading } from "./states.tsx";

export function App() {
  const [d, setD] = useState<Discovery | ApiError | undefined>();
  const [version, setVersion] = useState("");
  useEffect(() => {
    discover(setD).catch((e) => setD(e instanceof ApiError ? e : new ApiError({ code: 0, message: String(e) })));
    getJSON("/version").then((v) => setVersion(v.gitVersion), () => {});
  }, []);
  if (!d) return <Loading />;
  if (d instanceof ApiError) return <main class="alone"><ErrorState error={d} /></main>;
  return <Shell d={d} version={version} />;
}

function Shell({ d, version }: { d: Discovery; version: string }) {
  const route = useRoute();
  const [search, setSearch] = useState("");
  const searchBox = useRef<HTMLInputElement>(null);
  const ns = route.ns ?? localStorage.getItem("kite-console-ns") ?? "default";
  // an address naming a group not read yet waits for it; an unknown one shows pods
  const res = d.byKey.get(route.res ?? "") ?? (route.res && !d.complete ? undefined : d.find("", "pods")!);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = (e.target as HTMLElement).closest("input, textarea, select");
      if (e.key === "/" && !typing) {
        e.preventDefault();
        searchBox.current?.focus();
      } else if (e.key === "Escape" && typing === searchBox.current) {
        setSearch("");
        searchBox.current?.blur();
      } else if (e.key === "Escape" && !typing && route.name) go({ res: route.res, ns: route.ns });
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [route]);
  const pick = (next: string) => {
    localStorage.setItem("kite-console-ns", next);
    go({ res: route.res, ns: next });
  };
  const link = (r: Res) => (
    <li key={resKey(r)}><a href={href({ res: resKey(r), ns })} class={res && resKey(r) === resKey(res) ? "active" : ""}>{plural(r.kind)}</a></li>
  );
  return (
    <div class="shell">
      <header class="top">
        <span class="brand">kite console</span>
        <span class="muted">{version}</span>
        <NamespacePicker ns={ns} onPick={pick} />
        <input ref={searchBox} type="search" class="search" placeholder="Search  ( / )" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
      </header>
      <nav class="side">
        {SECTIONS.map((s) => {
          const rs = s.kinds.map(([g, r]) => d.find(g, r)).filter((r) => r !== undefined);
          return rs.length ? <div key={s.title}><h4>{s.title}</h4><ul>{rs.map(link)}</ul></div> : null;
        })}
        {d.custom.length > 0 && <div><h4>Custom resources</h4><ul>{d.custom.map(link)}</ul></div>}
      </nav>
      <main>
        {!res ? <Loading /> : route.name
          ? <DetailView key={`${resKey(res)}/${ns}/${route.name}`} d={d} res={res} ns={res.namespaced ? ns : undefined} name={route.name} tab={route.tab} />
          : <ListView key={`${resKey(res)}/${ns}`} res={res} ns={res.namespaced ? ns : ""} search={search} />}
      </main>
    </div>
  );
}

/** The namespaces from a live list; a user who may not list them types one ("" is every namespace). */
function NamespacePicker({ ns, onPick }: { ns: string; onPick: (ns: string) => void }) {
  const state = useLiveTable("/api/v1/namespaces");
  const names = state.phase === "live" ? state.rows.map((r) => r.object?.metadata?.name as string).sort() : [];
  if (state.phase === "error") {
    return <input class="ns" aria-label="namespace" value={ns} onChange={(e) => onPick((e.target as HTMLInputElement).value)} title="You may not list namespaces: type one" />;
  }
  return (
    <select class="ns" aria-label="namespace" value={ns} onChange={(e) => onPick((e.target as HTMLSelectElement).value)}>
      <option value="">All namespaces</option>
      {(names.includes(ns) || !ns ? names : [ns, ...names]).map((n) => <option key={n} value={n}>{n}</option>)}
    </select>
  );
}
