// The system PriorityClasses (system-node-critical, system-cluster-critical), made when missing, as
// upstream's scheduling post-start hook makes them. They cannot be deleted (the PriorityClass strategy),
// so nothing watches them afterwards.
import type { Registry } from "../../registry/registry.ts";
import { SYSTEM_CLASSES } from "../../validation/cluster-policy.ts";
import { current, settled } from "./informer.ts";

const MANAGER = "kube-apiserver";
const DESCRIPTIONS: Record<string, string> = {
  "system-node-critical": "Used for system critical pods that must not be moved from their current node.",
  "system-cluster-critical": "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
};

export async function ensureSystemPriorityClasses(registry: Registry): Promise<void> {
  const rs = registry.priorityClasses;
  for (const [name, value] of Object.entries(SYSTEM_CLASSES)) {
    if (await current(rs, "", name)) continue;
    const body = { metadata: { name }, value, description: DESCRIPTIONS[name] };
    await rs.create("", body, { fieldManager: MANAGER }).catch((e) => { if (!settled(e)) throw e; });
  }
}
