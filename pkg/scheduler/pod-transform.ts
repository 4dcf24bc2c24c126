// The scheduler's pod informer keeps only what scheduling reads (as upstream's later informer transforms
// do): with 10,000 pods held, the rest of each pod is most of the scheduler's live heap. Everything the
// plugins, the queue, the cache, events and status writes read stays; field ownership, annotations
// (no plugin reads a pod's), the containers' runtime settings, the volumes no plugin counts and the
// status the node agent writes go.
import type { Obj } from "../client/client.ts";

/** What a container keeps: resources (NodeResourcesFit), ports (NodePorts), image (ImageLocality). */
const CONTAINER_FIELDS = ["name", "image", "resources", "ports"];

/**
 * Volume sources no plugin reads (node-local, or made from API objects): a pod with only these is a pod
 * without volumes to the volume filters, which then skip it.
 */
const UNREAD_VOLUME_SOURCES = ["projected", "configMap", "secret", "downwardAPI", "emptyDir", "hostPath"];

function slimContainers(cs: Record<string, unknown>[] | undefined) {
  if (!cs) return cs;
  return cs.map((c) => {
    const out: Record<string, unknown> = {};
    for (const f of CONTAINER_FIELDS) if (c[f] !== undefined) out[f] = c[f];
    return out;
  });
}

const readVolume = (v: Record<string, unknown>) => !UNREAD_VOLUME_SOURCES.some((s) => v[s] !== undefined);

/** Rewrites a pod from the API server in place into the part the scheduler reads. */
export function slimPod(pod: Obj): Obj {
  const m = pod.metadata;
  if (m) {
    delete m.managedFields;
    delete m.annotations;
  }
  const spec = pod.spec;
  if (spec) {
    spec.containers = slimContainers(spec.containers);
    if (spec.initContainers) spec.initContainers = slimContainers(spec.initContainers);
    delete spec.ephemeralContainers;
    if (spec.volumes) {
      const kept = spec.volumes.filter(readVolume);
      if (kept.length) spec.volumes = kept;
      else delete spec.volumes;
    }
  }
  const st = pod.status;
  if (st) {
    // phase, nominatedNodeName, startTime (preemption's victim order) and the PodScheduled condition
    pod.status = {
      ...(st.phase !== undefined ? { phase: st.phase } : {}),
      ...(st.nominatedNodeName !== undefined ? { nominatedNodeName: st.nominatedNodeName } : {}),
      ...(st.startTime !== undefined ? { startTime: st.startTime } : {}),
      ...(st.conditions ? { conditions: st.conditions.filter((c: { type: string }) => c.type === "PodScheduled") } : {}),
    };
  }
  return pod;
}
