// NodePreferAvoidPods: a node's scheduler.alpha.kubernetes.io/preferAvoidPods annotation steers away
// pods of the ReplicationControllers and ReplicaSets it names.
import { MAX_NODE_SCORE, type Plugin, type ScorePlugin } from "../framework/index.ts";
import { NodePreferAvoidPods } from "./names.ts";

const ANNOTATION = "scheduler.alpha.kubernetes.io/preferAvoidPods";

interface OwnerRef { kind?: string; uid?: string; controller?: boolean }

export function newNodePreferAvoidPods(): Plugin {
  const plugin: ScorePlugin = {
    name: NodePreferAvoidPods,
    score(_state, pod, nodeInfo) {
      const raw = nodeInfo.node?.metadata.annotations?.[ANNOTATION];
      if (raw === undefined) return MAX_NODE_SCORE;
      const owners = (pod.metadata.ownerReferences ?? []) as OwnerRef[];
      const ref = owners.find((o) => o.controller);
      if (!ref || (ref.kind !== "ReplicationController" && ref.kind !== "ReplicaSet")) return MAX_NODE_SCORE;
      let avoids: { podSignature?: { podController?: OwnerRef } }[];
      try {
        avoids = JSON.parse(raw)?.preferAvoidPods ?? [];
      } catch {
        return MAX_NODE_SCORE;
      }
      for (const a of avoids) {
        const c = a.podSignature?.podController;
        if (c && c.kind === ref.kind && c.uid === ref.uid) return 0;
      }
      return MAX_NODE_SCORE;
    },
    scoreExtensions: () => null,
  };
  return plugin;
}
