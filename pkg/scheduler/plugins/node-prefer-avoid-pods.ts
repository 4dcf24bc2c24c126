// NodePreferAvoidPods: a node's scheduler.alpha.kubernetes.io/preferAvoidPods annotation steers away
// pods of the ReplicationControllers and ReplicaSets it names.
import { MAX_NODE_SCORE, type Plugin, type Pod, type ScorePlugin } from "../framework/index.ts";
import { NodePreferAvoidPods } from "./names.ts";

const ANNOTATION = "scheduler.alpha.kubernetes.io/preferAvoidPods";

interface OwnerRef { kind?: string; uid?: string; controller?: boolean }

/** The pod's controller when it is a ReplicationController or ReplicaSet: the only pods the annotation names. */
function avoidableController(pod: Pod): OwnerRef | undefined {
  const ref = ((pod.metadata.ownerReferences ?? []) as OwnerRef[]).find((o) => o.controller);
  return ref && (ref.kind === "ReplicationController" || ref.kind === "ReplicaSet") ? ref : undefined;
}

export function newNodePreferAvoidPods(): Plugin {
  const plugin: ScorePlugin = {
    name: NodePreferAvoidPods,
    // Any other pod scores 100 everywhere.
    scoreSkips: (pod) => !avoidableController(pod),
    score(_state, pod, nodeInfo) {
      const raw = nodeInfo.node?.metadata.annotations?.[ANNOTATION];
      if (raw === undefined) return MAX_NODE_SCORE;
      const ref = avoidableController(pod);
      if (!ref) return MAX_NODE_SCORE;
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
