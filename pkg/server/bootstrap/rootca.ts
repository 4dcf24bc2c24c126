// A `kube-root-ca.crt` ConfigMap in every namespace holding the cluster's CA (key `ca.crt`), made when the
// namespace appears and put back when it is deleted or its data changed, as upstream's (v1.21.0)
// root-ca-cert-publisher does. (Its kubernetes.io/description annotation came in a later release.)
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { type Runner, current, settled } from "./informer.ts";

export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";
const MANAGER = "kube-controller-manager";

/** Creates or repairs the namespace's kube-root-ca.crt ConfigMap. */
export async function ensureRootCA(registry: Registry, ns: string, ca: string): Promise<void> {
  const rs = registry.lookup("", "v1", "configmaps")!;
  const data = { "ca.crt": ca };
  const cm = await current(rs, ns, ROOT_CA_CONFIGMAP);
  if (cm && Bun.deepEquals(cm.data ?? {}, data)) return;
  const write = cm
    ? rs.guaranteedUpdate(ns, ROOT_CA_CONFIGMAP, (cur) => ({ ...cur, data }), { fieldManager: MANAGER })
    : rs.create(ns, { metadata: { name: ROOT_CA_CONFIGMAP }, data }, { fieldManager: MANAGER });
  await write.catch((e) => { if (!settled(e)) throw e; });
}

/** A deleted or changed kube-root-ca.crt is put back. */
export function watchRootCA(runner: Runner) {
  return (type: string, obj: Obj) => {
    if (type !== "ADDED" && obj.metadata.name === ROOT_CA_CONFIGMAP) runner.run(obj.metadata.namespace ?? "");
  };
}
