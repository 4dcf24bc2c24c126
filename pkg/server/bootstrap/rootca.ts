// A `kube-root-ca.crt` ConfigMap in every namespace holding the cluster's CA (key `ca.crt`), made when the
// namespace appears and put back when it is deleted or changed, as upstream's root-ca-cert-publisher does.
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { type Runner, settled } from "./informer.ts";

export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";
const MANAGER = "kube-controller-manager";
const DESCRIPTION_KEY = "kubernetes.io/description";
const DESCRIPTION = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
  "No other usage is guaranteed across distributions of Kubernetes clusters.";

const current = (cm: Obj, ca: string) =>
  Bun.deepEquals(cm.data ?? {}, { "ca.crt": ca }) && !!cm.metadata?.annotations?.[DESCRIPTION_KEY];

/** Creates or repairs the namespace's kube-root-ca.crt ConfigMap. */
export async function ensureRootCA(registry: Registry, ns: string, ca: string): Promise<void> {
  const rs = registry.lookup("", "v1", "configmaps")!;
  const cm = await rs.get(ns, ROOT_CA_CONFIGMAP).catch((e) => { if (e.code === 404) return undefined; throw e; });
  if (cm && current(cm, ca)) return;
  if (!cm) {
    const body = { metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_KEY]: DESCRIPTION } }, data: { "ca.crt": ca } };
    await rs.create(ns, body, { fieldManager: MANAGER }).catch((e) => { if (!settled(e)) throw e; });
    return;
  }
  await rs.guaranteedUpdate(ns, ROOT_CA_CONFIGMAP, (cur) => {
    cur.data = { "ca.crt": ca };
    cur.metadata.annotations = { ...cur.metadata.annotations, [DESCRIPTION_KEY]: DESCRIPTION };
    return cur;
  }, { fieldManager: MANAGER }).catch((e) => { if (!settled(e)) throw e; });
}

/** A deleted or changed kube-root-ca.crt is put back. */
export function watchRootCA(runner: Runner) {
  return (type: string, obj: Obj) => {
    if (type !== "ADDED" && obj.metadata.name === ROOT_CA_CONFIGMAP) runner.run(obj.metadata.namespace ?? "");
  };
}
