// Per-type hooks for the built-in kinds: only what differs from the generic path.
import { forbidden } from "../api/status.ts";
import type { Codec, Obj, Strategy } from "./types.ts";
import { defaultStoredVersions } from "../defaults/apiextensions.ts";
import { defaultJobLabels } from "../defaults/batch.ts";
import { dropTypeDependentFields } from "../defaults/service.ts";
import { SYSTEM_CLASSES } from "../validation/cluster-policy.ts";
import { podQOSClass } from "../util/podqos.ts";

/** Namespaces that can never be deleted, as upstream's NamespaceLifecycle admission has them. */

const spec = (o: Obj) => (o.spec ??= {});

export const namespace: Strategy = {
  prepareForCreate(o) {
    const sp = spec(o);
    sp.finalizers ??= ["kubernetes"];
    o.status = { phase: "Active" };
  },
  prepareForUpdate(o, old) {
    // spec.finalizers changes only through /finalize.
    o.spec = old.spec;
  },
  pendingFinalizers: (o) => (o.spec?.finalizers?.length ?? 0) > 0,
  onDeleting(o) { o.status = { ...o.status, phase: "Terminating" }; },
  fieldLabels: { values: (o) => ({ "status.phase": o.status?.phase ?? "" }), metadata: ["metadata.name"] },
};

export const pod: Strategy = {
  prepareForCreate(o) {
    o.status = { phase: "Pending", qosClass: podQOSClass(o) };
  },
  prepareForUpdate(o, old) {
    // the Priority admission (./priority.ts) keeps what it set on create, whatever an update says
    const sp = spec(o);
    for (const f of ["priority", "preemptionPolicy"]) {
      if (old.spec?.[f] === undefined) delete sp[f];
      else sp[f] = old.spec[f];
    }
  },
  // A pod never bound to a node, or one that has finished, has nobody to wait for.
  deleteImmediately: (o) => !o.spec?.nodeName || ["Succeeded", "Failed"].includes(o.status?.phase),
  fieldLabels: {
    values: (o) => ({
      "spec.nodeName": o.spec?.nodeName ?? "",
      "spec.restartPolicy": o.spec?.restartPolicy ?? "",
      "spec.schedulerName": o.spec?.schedulerName ?? "",
      "spec.serviceAccountName": o.spec?.serviceAccountName ?? "",
      "status.phase": o.status?.phase ?? "",
      // upstream selects on the first of podIPs, which podIP mirrors
      "status.podIP": o.status?.podIPs?.[0]?.ip ?? o.status?.podIP ?? "",
      "status.nominatedNodeName": o.status?.nominatedNodeName ?? "",
    }),
    // what old v1 clients send
    aliases: { "spec.host": "spec.nodeName" },
  },
};

export const service: Strategy = {
  prepareForCreate(o) {
    // the cluster IP and node ports are handed out by admission (allocators.ts); clusterIP stays fixed once set
    o.status = { loadBalancer: {} };
  },
  prepareForUpdate(o, old) {
    const sp = spec(o);
    sp.clusterIP ??= old.spec?.clusterIP;
    sp.clusterIPs ??= old.spec?.clusterIPs;
    // a new clusterIP with the old clusterIPs is read as a change of both (validation then refuses it)
    if (sp.clusterIP && sp.clusterIP !== old.spec?.clusterIP && Bun.deepEquals(sp.clusterIPs, old.spec?.clusterIPs)) sp.clusterIPs = [sp.clusterIP];
    dropTypeDependentFields(o, old);
  },
};

export const priorityClass: Strategy = {
  validateDelete(o) {
    const name = o.metadata.name;
    if (name in SYSTEM_CLASSES) throw forbidden({ group: "scheduling.k8s.io", resource: "priorityclasses" }, name, "this is a system priority class and cannot be deleted");
  },
};

export const secret: Strategy = {
  fieldLabels: { values: (o) => ({ type: o.type ?? "" }) },
};

export const node: Strategy = {
  fieldLabels: { values: (o) => ({ "spec.unschedulable": String(o.spec?.unschedulable ?? false) }), metadata: ["metadata.name"] },
};

export const replicationController: Strategy = {
  fieldLabels: { values: (o) => ({ "status.replicas": String(o.status?.replicas ?? 0) }) },
};

export { certificateSigningRequest } from "./csr.ts";

/** Types whose status carries a phase from the start (volumes and claims). */
export const phase = (p: string): Strategy => ({
  prepareForCreate(o) { o.status = { phase: p }; },
});

// events.k8s.io/v1 Event is the core Event stored once and seen with renamed fields.
const RENAMES: [string, string][] = [
  ["regarding", "involvedObject"], ["note", "message"], ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"], ["deprecatedLastTimestamp", "lastTimestamp"], ["deprecatedCount", "count"],
  ["reportingController", "reportingComponent"],
];

function rename(o: Obj, pairs: [string, string][], apiVersion: string): Obj {
  const out: Obj = { ...o, apiVersion };
  for (const [from, to] of pairs) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

/** The fields of an event's object reference, under the name each version gives the reference. */
function referenceFields(prefix: string, ref: Obj | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"]) out[`${prefix}.${f}`] = ref?.[f] ?? "";
  return out;
}

export const event: Strategy = {
  fieldLabels: {
    values: (o) => ({
      ...referenceFields("involvedObject", o.involvedObject),
      reason: o.reason ?? "",
      reportingComponent: o.reportingComponent ?? "",
      // events written through events.k8s.io name their reporter, not a source
      source: o.source?.component || (o.reportingComponent ?? ""),
      type: o.type ?? "",
    }),
  },
};

export const eventsV1: Strategy = {
  fieldLabels: {
    values: (o) => ({ ...referenceFields("regarding", o.regarding), reason: o.reason ?? "", reportingController: o.reportingController ?? "", type: o.type ?? "" }),
  },
};

export const eventsV1Codec: Codec = {
  toStorage: (o) => rename(o, RENAMES, "v1"),
  fromStorage: (o) => rename(o, RENAMES.map(([a, b]) => [b, a]), "events.k8s.io/v1"),
};

export const job: Strategy = {
  prepareForCreate(o) {
    const sp = spec(o);
    // Without a manual selector the job selects its pods by its own uid, as upstream generates it.
    if (!sp.manualSelector && !sp.selector) {
      const uid = o.metadata.uid;
      sp.selector = { matchLabels: { "controller-uid": uid } };
      const t = (sp.template ??= {});
      const meta = (t.metadata ??= {});
      meta.labels = { ...(meta.labels ?? {}), "controller-uid": uid, "job-name": o.metadata.name };
      // upstream defaults the Job's labels from these again whenever it reads the Job back
      defaultJobLabels(o);
    }
  },
  fieldLabels: {
    values: (o) => ({ "status.successful": String(o.status?.succeeded ?? 0) }),
    unsupported: (label) => `field label ${JSON.stringify(label)} not supported for batchv1.Job`,
  },
};

export const customResourceDefinition: Strategy = {
  // the status is the server's; upstream's defaulting then records the storage version as stored
  prepareForCreate(o) { defaultStoredVersions(o); },
  // the API server deletes the custom objects first (pkg/crd/controller.ts), then removes it
  deletionFinalizers: () => ["customresourcecleanup.apiextensions.k8s.io"],
};
