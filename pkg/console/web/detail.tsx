// One object's page: live YAML, its events, its owners and what it owns, a pod's logs, the editor and the
// actions. A deletion while the page is open is shown, with the last known state kept on screen.
import { useState } from "preact/hooks";
import { type Res, resKey } from "./api.ts";
import { Actions } from "./actions.tsx";
import type { Discovery } from "./discovery.ts";
import { Edit } from "./edit.tsx";
import { Logs } from "./logs.tsx";
import { Metrics } from "./metrics.tsx";
import { Terminal } from "./terminal.tsx";
import { useLiveObject } from "./object.ts";
import { Events, OwnerChain, Owned } from "./related.tsx";
import { go, href } from "./route.ts";
import { ErrorState, Loading } from "./states.tsx";
import { hideSecretValues, toYaml, withoutManagedFields } from "./text.ts";

export function DetailView({ d, res, ns, name, tab }: { d: Discovery; res: Res; ns?: string; name: string; tab?: string }) {
  const state = useLiveObject(res, res.namespaced ? ns : undefined, name);
  const [reveal, setReveal] = useState(false);
  if (state.phase === "loading") return <Loading />;
  if (state.phase === "error") return <ErrorState error={state.error} />;
  const { object, deleted, retryIn } = state;
  const metered = (res.resource === "pods" || res.resource === "nodes") && !res.group && !!d.find("metrics.k8s.io", res.resource) && !deleted;
  const tabs = ["yaml", "events", "related", ...(res.resource === "pods" && !deleted ? ["logs", "terminal"] : []), ...(metered ? ["metrics"] : []), ...(res.verbs.includes("patch") && !deleted ? ["edit"] : [])];
  const current = tab && tabs.includes(tab) ? tab : "yaml";
  const secret = res.resource === "secrets" && !reveal;
  const route = { res: resKey(res), ns, name };
  return (
    <section class="detail">
      <header class="detail-head">
        <a href={href({ res: resKey(res), ns })} class="back">← {res.resource}</a>
        <h1>{object.kind} <span class="name">{object.metadata.name}</span></h1>
        {!deleted && <Actions res={res} object={object} onDeleted={() => go({ res: resKey(res), ns })} />}
      </header>
      {deleted && <div class="banner gone" role="alert">This {object.kind} was deleted while you were viewing it; what you see is its last known state.</div>}
      {retryIn !== undefined && <div class="banner disconnected" role="status">Disconnected; reconnecting in {retryIn} s…</div>}
      <nav class="tabs" role="tablist">
        {tabs.map((t) => <a key={t} role="tab" aria-selected={t === current} class={t === current ? "tab active" : "tab"} href={href({ ...route, tab: t })}>{t}</a>)}
      </nav>
      {current === "yaml" && (
        <>
          {res.resource === "secrets" && <button onClick={() => setReveal(!reveal)}>{reveal ? "Hide values" : "Show values"}</button>}
          <pre class="yaml">{toYaml(withoutManagedFields(secret ? hideSecretValues(object) : object))}</pre>
        </>
      )}
      {current === "events" && <Events d={d} object={object} />}
      {current === "related" && (
        <>
          <h2>Owners</h2>
          <OwnerChain d={d} object={object} />
          <h2>Owns</h2>
          <Owned d={d} object={object} />
        </>
      )}
      {current === "logs" && <Logs res={res} pod={object} />}
      {current === "terminal" && <Terminal res={res} pod={object} />}
      {current === "metrics" && <Metrics kind={res.resource as "pods" | "nodes"} ns={object.metadata.namespace} name={object.metadata.name} />}
      {current === "edit" && (res.resource === "secrets" && !reveal
        ? <p>Secret values are hidden. <button onClick={() => setReveal(true)}>Show values to edit them</button></p>
        : <Edit key={object.metadata.uid} res={res} object={object} />)}
    </section>
  );
}
