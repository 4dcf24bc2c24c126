// The workload kinds at the versions removed in 1.16 (extensions/v1beta1, apps/v1beta1, apps/v1beta2), to
// and from apps/v1. The fields are the same; what differs is what an unset field meant. Going to apps/v1,
// the old version's defaults are written out wherever apps/v1's would mean something else, the selector
// the old versions derived from the template labels is derived, and the removed fields (templateGeneration,
// rollbackTo) ride in upstream's annotations, with a warning because apps/v1 ignores them.
import type { Obj } from "../../registry/types.ts";
import type { Notes, VersionRow } from "../table.ts";
import { type Convert, fill, row, setAnnotation, takeAnnotation } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const APPS_V1 = { group: "apps", version: "v1" };
/** What the old versions' "unset" meant for progressDeadlineSeconds and revisionHistoryLimit: no limit. */
const UNLIMITED = 2147483647;
const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";
const ROLLBACK_TO = "deprecated.deployment.rollback.to";

/** The older versions' defaulting of the selector (and the object's labels) from the template's labels. */
function selectorFromTemplate(obj: Obj, notes: Notes) {
  const spec = obj.spec ?? (obj.spec = {});
  const labels = spec.template?.metadata?.labels;
  if (isMap(labels) && Object.keys(labels).length > 0) {
    fill(spec, "selector", { matchLabels: { ...labels } });
    obj.metadata ??= {};
    if (!isMap(obj.metadata.labels) || Object.keys(obj.metadata.labels).length === 0) obj.metadata.labels = { ...labels };
  }
  requireSelector(obj, notes);
}

/** apps/v1 requires a selector. */
function requireSelector(obj: Obj, notes: Notes) {
  if (obj.spec?.selector == null) notes.error("spec.selector", "Required value: apps/v1 requires a selector, and spec.template.metadata.labels has none to derive it from");
}

/** Writes the strategy type's default and the rolling-update defaults the old version applied. */
function strategy(spec: Obj, key: string, type: string, rolling: Obj) {
  const s = spec[key] ?? (spec[key] = {});
  fill(s, "type", type);
  if (s.type !== "RollingUpdate") return;
  const r = s.rollingUpdate ?? (s.rollingUpdate = {});
  for (const [k, v] of Object.entries(rolling)) fill(r, k, v);
}

const replicas = (spec: Obj) => fill(spec, "replicas", 1);

/** spec.templateGeneration (extensions/v1beta1 DaemonSet) ↔ its annotation. */
const templateGenerationToHub: Convert = (obj, notes) => {
  if (obj.spec && "templateGeneration" in obj.spec) {
    setAnnotation(obj, TEMPLATE_GENERATION, String(obj.spec.templateGeneration ?? 0));
    delete obj.spec.templateGeneration;
    notes.warn("spec.templateGeneration", `removed in apps/v1; kept in the annotation ${TEMPLATE_GENERATION}`);
  }
  return obj;
};
const templateGenerationFromHub: Convert = (obj) => {
  const v = takeAnnotation(obj, TEMPLATE_GENERATION);
  if (v !== undefined && /^-?\d+$/.test(v)) (obj.spec ??= {}).templateGeneration = Number(v);
  return obj;
};

/** spec.rollbackTo (extensions/v1beta1, apps/v1beta1 Deployment) ↔ its annotation. */
const rollbackToHub: Convert = (obj, notes) => {
  if (obj.spec && "rollbackTo" in obj.spec) {
    const revision = obj.spec.rollbackTo?.revision;
    if (revision !== undefined && revision !== null) setAnnotation(obj, ROLLBACK_TO, String(revision));
    delete obj.spec.rollbackTo;
    notes.warn("spec.rollbackTo", `removed in apps/v1 (apps/v1 does not roll back); kept in the annotation ${ROLLBACK_TO}`);
  }
  return obj;
};
const rollbackFromHub: Convert = (obj) => {
  const v = takeAnnotation(obj, ROLLBACK_TO);
  if (v !== undefined && /^-?\d+$/.test(v)) (obj.spec ??= {}).rollbackTo = { revision: Number(v) };
  return obj;
};

const then = (...steps: Convert[]): Convert => (obj, notes) => steps.reduce((o, s) => s(o, notes), obj);
const onSpec = (f: (spec: Obj, obj: Obj, notes: Notes) => void): Convert => (obj, notes) => {
  f(obj.spec ?? (obj.spec = {}), obj, notes);
  return obj;
};
const derived: Convert = (obj, notes) => (selectorFromTemplate(obj, notes), obj);
const required: Convert = (obj, notes) => (requireSelector(obj, notes), obj);

const removed = (group: string, version: string, kind: string, toHub: Convert, fromHub?: Convert): VersionRow =>
  row({ group, version, kind, hub: APPS_V1, served: false, toHub, fromHub });

export const APPS_ROWS: VersionRow[] = [
  // extensions/v1beta1: DaemonSets updated OnDelete, Deployments kept every revision and had no deadline.
  removed("extensions", "v1beta1", "DaemonSet", then(derived, templateGenerationToHub, onSpec((spec) => {
    strategy(spec, "updateStrategy", "OnDelete", { maxUnavailable: 1 });
    fill(spec, "revisionHistoryLimit", 10);
  })), templateGenerationFromHub),
  removed("extensions", "v1beta1", "Deployment", then(derived, rollbackToHub, onSpec((spec) => {
    replicas(spec);
    strategy(spec, "strategy", "RollingUpdate", { maxUnavailable: 1, maxSurge: 1 });
    fill(spec, "revisionHistoryLimit", UNLIMITED);
    fill(spec, "progressDeadlineSeconds", UNLIMITED);
  })), rollbackFromHub),
  removed("extensions", "v1beta1", "ReplicaSet", then(derived, onSpec(replicas))),
  // apps/v1beta1: Deployments kept 2 revisions, StatefulSets updated OnDelete.
  removed("apps", "v1beta1", "Deployment", then(derived, rollbackToHub, onSpec((spec) => {
    replicas(spec);
    strategy(spec, "strategy", "RollingUpdate", { maxUnavailable: "25%", maxSurge: "25%" });
    fill(spec, "revisionHistoryLimit", 2);
    fill(spec, "progressDeadlineSeconds", 600);
  })), rollbackFromHub),
  removed("apps", "v1beta1", "StatefulSet", then(derived, onSpec((spec) => {
    replicas(spec);
    strategy(spec, "updateStrategy", "OnDelete", {});
    fill(spec, "podManagementPolicy", "OrderedReady");
    fill(spec, "revisionHistoryLimit", 10);
  }))),
  removed("apps", "v1beta1", "ControllerRevision", (o) => o),
  // apps/v1beta2 has apps/v1's defaults; it already required a selector.
  ...["DaemonSet", "Deployment", "StatefulSet", "ReplicaSet"].map((kind) => removed("apps", "v1beta2", kind, required)),
  removed("apps", "v1beta2", "ControllerRevision", (o) => o),
];
