// An object's actions: scale (through its scale subresource), rollout restart (a new template annotation,
// as kubectl does) and delete, each behind a dialog.
import { useState } from "preact/hooks";
import { type Res, objectPath, sendJSON } from "./api.ts";

const SCALABLE = new Set(["deployments", "statefulsets", "replicasets"]);
const RESTARTABLE = new Set(["deployments", "statefulsets", "daemonsets"]);

type Dialog = "scale" | "restart" | "delete" | undefined;

export function Actions({ res, object, onDeleted }: { res: Res; object: any; onDeleted: () => void }) {
  const [dialog, setDialog] = useState<Dialog>();
  const [replicas, setReplicas] = useState(String(object.spec?.replicas ?? 1));
  const [error, setError] = useState<string | undefined>();
  const path = objectPath(res, object.metadata.namespace, object.metadata.name);
  const run = async (what: () => Promise<unknown>) => {
    try {
      await what();
      setDialog(undefined);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const actions = {
    scale: () => run(() => sendJSON("PATCH", `${path}/scale`, { spec: { replicas: Number(replicas) } }, "application/merge-patch+json")),
    restart: () => run(() => sendJSON("PATCH", path, { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": new Date().toISOString() } } } } }, "application/strategic-merge-patch+json")),
    delete: () => run(async () => {
      await sendJSON("DELETE", path, { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" });
      onDeleted();
    }),
  };
  const verbs = res.verbs;
  return (
    <div class="actions">
      {SCALABLE.has(res.resource) && verbs.includes("patch") && <button onClick={() => { setReplicas(String(object.spec?.replicas ?? 1)); setDialog("scale"); }}>Scale</button>}
      {RESTARTABLE.has(res.resource) && verbs.includes("patch") && <button onClick={() => setDialog("restart")}>Restart</button>}
      {verbs.includes("delete") && <button class="danger" onClick={() => setDialog("delete")}>Delete</button>}
      {dialog && (
        <div class="modal" role="dialog" aria-modal="true" onKeyDown={(e) => e.key === "Escape" && setDialog(undefined)}>
          <form class="dialog" onSubmit={(e) => { e.preventDefault(); void actions[dialog](); }}>
            {dialog === "scale" && <label>Replicas of {object.metadata.name} <input name="replicas" type="number" min={0} value={replicas} autoFocus onInput={(e) => setReplicas((e.target as HTMLInputElement).value)} /></label>}
            {dialog === "restart" && <p>Restart every pod of {object.kind} {object.metadata.name} (a rolling restart)?</p>}
            {dialog === "delete" && <p>Delete {object.kind} <b>{object.metadata.name}</b>{object.metadata.namespace ? ` in namespace ${object.metadata.namespace}` : ""}? This cannot be undone.</p>}
            {error && <p class="banner error" role="alert">{error}</p>}
            <div class="toolbar">
              <button type="button" onClick={() => { setDialog(undefined); setError(undefined); }}>Cancel</button>
              <button type="submit" class={dialog === "delete" ? "danger" : "primary"}>{dialog === "scale" ? "Scale" : dialog === "restart" ? "Restart" : "Delete"}</button>
            </div>
          </form>
        </div>
      )}
    </div>
  );
}
