// Zones' disruption (upstream v1.21's ComputeZoneState and handleDisruption): evictions go on in a zone
// where some nodes are Ready; in a zone of up to 50 nodes where most are not, no new NoExecute taints are
// added; and when every node of every zone is not Ready, the controller takes it for its own or the
// network's fault (master disruption mode): it evicts nothing and removes the NoExecute taints.
import type { Obj } from "../client/client.ts";
import { conditionOf } from "./nodelifecycle-health.ts";

export type ZoneState = "Normal" | "PartialDisruption" | "FullDisruption";
/** What the controller does with a node's not-ready/unreachable NoExecute taints. */
export type NoExecutePolicy = "follow" | "hold" | "none";

const UNHEALTHY_ZONE_THRESHOLD = 0.55;
const LARGE_CLUSTER_THRESHOLD = 50;

/** The zone of a node: region and zone labels (the beta ones as fallback), as upstream's GetZoneKey. */
export function zoneOf(node: Obj): string {
  const l = node.metadata.labels ?? {};
  const region = l["topology.kubernetes.io/region"] ?? l["failure-domain.beta.kubernetes.io/region"] ?? "";
  const zone = l["topology.kubernetes.io/zone"] ?? l["failure-domain.beta.kubernetes.io/zone"] ?? "";
  return region || zone ? `${region}:\x00:${zone}` : "";
}

export function zoneState(ready: number, notReady: number): ZoneState {
  if (ready === 0 && notReady > 0) return "FullDisruption";
  if (notReady > 2 && notReady / (ready + notReady) >= UNHEALTHY_ZONE_THRESHOLD) return "PartialDisruption";
  return "Normal";
}

export interface Disruption {
  /** Every zone fully disrupted: master disruption mode. */
  all: boolean;
  /** The policy for NoExecute taints on a node. */
  policyFor(node: Obj): NoExecutePolicy;
}

/** The zones' states from their nodes' Ready conditions, and what they mean for NoExecute taints. */
export function disruption(nodes: Obj[]): Disruption {
  const counts = new Map<string, { ready: number; notReady: number }>();
  for (const node of nodes) {
    const z = zoneOf(node);
    const c = counts.get(z) ?? { ready: 0, notReady: 0 };
    if (conditionOf(node, "Ready")?.status === "True") c.ready++;
    else c.notReady++;
    counts.set(z, c);
  }
  const states = new Map([...counts].map(([z, c]) => [z, { state: zoneState(c.ready, c.notReady), size: c.ready + c.notReady }]));
  const all = states.size > 0 && [...states.values()].every((s) => s.state === "FullDisruption");
  return {
    all,
    policyFor(node) {
      if (all) return "none";
      const z = states.get(zoneOf(node));
      return z?.state === "PartialDisruption" && z.size <= LARGE_CLUSTER_THRESHOLD ? "hold" : "follow";
    },
  };
}
