// An object's relations: the chain of its owners (by ownerReferences, up to the top) and the objects it
// owns (live lists of the kinds its controller makes, filtered by owner uid), and its events.
import { useEffect, useMemo, useState } from "preact/hooks";
import { type Res, getJSON, listPath, objectPath, resKey } from "./api.ts";
import { type Discovery, ownerResource } from "./discovery.ts";
import { useLiveTable } from "./list.tsx";
import { go, href } from "./route.ts";
import { Empty, ErrorState, Loading } from "./states.tsx";
import { VTable } from "./vtable.tsx";

/** The kinds a controller of each kind creates, as [group, resource]. */
const OWNED: Record<string, [string, string][]> = {
  Deployment: [["apps", "replicasets"]],
  ReplicaSet: [["", "pods"]],
  StatefulSet: [["", "pods"]],
  DaemonSet: [["", "pods"]],
  Job: [["", "pods"]],
  CronJob: [["batch", "jobs"]],
};

interface Link { res: Res; ns?: string; name: string }

export function OwnerChain({ d, object }: { d: Discovery; object: any }) {
  const [chain, setChain] = useState<Link[] | undefined>();
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const out: Link[] = [];
      let cur = object;
      for (let depth = 0; depth < 10; depth++) {
        const refs: any[] = cur.metadata?.ownerReferences ?? [];
        const ref = refs.find((r) => r.controller) ?? refs[0];
        const res = ref && ownerResource(d, ref.apiVersion, ref.kind);
        if (!ref || !res) break;
        const ns = res.namespaced ? object.metadata.namespace : undefined;
        out.unshift({ res, ns, name: ref.name });
        try {
          cur = await getJSON(objectPath(res, ns, ref.name));
        } catch {
          break; // the owner is gone or not readable: the chain ends with its name
        }
      }
      if (!cancelled) setChain(out);
    })();
    return () => { cancelled = true; };
  }, [object.metadata?.uid, JSON.stringify(object.metadata?.ownerReferences)]);
  if (!chain) return <Loading />;
  if (!chain.length) return <p class="muted">No owner: nothing controls this object.</p>;
  return (
    <nav class="chain" aria-label="owners">
      {chain.map((l) => <a key={l.name} href={href({ res: resKey(l.res), ns: l.ns, name: l.name })}>{l.res.kind}/{l.name}</a>)}
      <span>{object.kind}/{object.metadata.name}</span>
    </nav>
  );
}

export function Owned({ d, object }: { d: Discovery; object: any }) {
  const kinds = (OWNED[object.kind] ?? []).map(([g, r]) => d.find(g, r)).filter((r): r is Res => !!r);
  if (!kinds.length) return <p class="muted">{object.kind} objects own nothing.</p>;
  return <>{kinds.map((res) => <OwnedOf key={res.resource} res={res} ns={object.metadata.namespace} uid={object.metadata.uid} />)}</>;
}

function OwnedOf({ res, ns, uid }: { res: Res; ns: string; uid: string }) {
  const state = useLiveTable(listPath(res, ns));
  const rows = useMemo(() => (state.phase === "loading" ? [] : (state.rows ?? []).filter((r) => r.object?.metadata?.ownerReferences?.some((o: any) => o.uid === uid))), [state, uid]);
  if (state.phase === "loading") return <Loading />;
  return (
    <div class="owned" data-owned={res.resource}>
      <h3>{res.resource}</h3>
      {state.phase === "error" && <ErrorState error={state.error} retryIn={state.retryIn} />}
      {rows.length ? <VTable columns={state.columns ?? []} rows={rows} keys={false} onOpen={(r) => go({ res: resKey(res), ns, name: r.object.metadata.name })} /> : <Empty what={res.resource} />}
    </div>
  );
}

export function Events({ d, object }: { d: Discovery; object: any }) {
  const events = d.find("", "events")!;
  const state = useLiveTable(listPath(events, object.metadata.namespace), { fieldSelector: `involvedObject.uid=${object.metadata.uid}` });
  if (state.phase === "loading") return <Loading />;
  if (state.phase === "error" && !state.rows) return <ErrorState error={state.error} />;
  const rows = (state.rows ?? []).slice().sort((a, b) => String(a.object?.metadata?.creationTimestamp).localeCompare(String(b.object?.metadata?.creationTimestamp)));
  return rows.length ? <VTable columns={state.columns ?? []} rows={rows} keys={false} onOpen={() => {}} /> : <Empty what="events" />;
}
