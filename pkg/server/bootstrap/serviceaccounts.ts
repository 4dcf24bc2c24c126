// A `default` ServiceAccount in every namespace, made when the namespace appears and again whenever it is
// deleted, as upstream's serviceaccounts controller keeps it.
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { type Runner, settled } from "./informer.ts";

export const DEFAULT_SERVICE_ACCOUNT = "default";
const MANAGER = "kube-controller-manager";

/** Creates the namespace's default ServiceAccount unless it exists (409, nothing to do). */
export async function ensureServiceAccount(registry: Registry, ns: string): Promise<void> {
  const rs = registry.lookup("", "v1", "serviceaccounts")!;
  await rs.create(ns, { metadata: { name: DEFAULT_SERVICE_ACCOUNT } }, { fieldManager: MANAGER }).catch((e) => { if (!settled(e)) throw e; });
}

/** Deleting a namespace's default ServiceAccount brings it back. */
export function watchServiceAccount(runner: Runner) {
  return (type: string, obj: Obj) => {
    if (type === "DELETED" && obj.metadata.name === DEFAULT_SERVICE_ACCOUNT) runner.run(obj.metadata.namespace ?? "");
  };
}
