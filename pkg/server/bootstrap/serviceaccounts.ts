// A `default` ServiceAccount in every namespace, made when the namespace appears and again whenever it is
// deleted, as upstream's serviceaccounts controller keeps it.
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { type Runner, current, settled } from "./informer.ts";

export const DEFAULT_SERVICE_ACCOUNT = "default";
const MANAGER = "kube-controller-manager";

/** Creates the namespace's default ServiceAccount unless it exists. */
export async function ensureServiceAccount(registry: Registry, ns: string): Promise<void> {
  const rs = registry.lookup("", "v1", "serviceaccounts")!;
  // A consistent read (the watch cache, once current) spares a refused create on every namespace event.
  if (await current(rs, ns, DEFAULT_SERVICE_ACCOUNT)) return;
  await rs.create(ns, { metadata: { name: DEFAULT_SERVICE_ACCOUNT } }, { fieldManager: MANAGER }).catch((e) => { if (!settled(e)) throw e; });
}

/** Deleting a namespace's default ServiceAccount brings it back. */
export function watchServiceAccount(runner: Runner) {
  return (type: string, obj: Obj) => {
    if (type === "DELETED" && obj.metadata.name === DEFAULT_SERVICE_ACCOUNT) runner.run(obj.metadata.namespace ?? "");
  };
}
