// A StatefulSet's pods and their stable identity (upstream's stateful_set_utils): pod <set>-<ordinal> with
// hostname = its name, subdomain = the set's serviceName and the statefulset.kubernetes.io/pod-name label,
// and for each volumeClaimTemplate a claim <template>-<set>-<ordinal> mounted under the template's name.
import type { Obj } from "../client/client.ts";
import type { OwnerReference } from "./controllerref.ts";
import { POD_REVISION_LABEL } from "./history.ts";
import { podFromTemplate } from "./podcontrol.ts";
import { isPodReady } from "./podutil.ts";

export const POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";

const ORDINAL_NAME = /^(.*)-([0-9]+)$/;

/** The set a pod's name says it belongs to and its ordinal (-1 when the name has none). */
export function parentAndOrdinal(pod: Obj): { parent: string; ordinal: number } {
  const m = ORDINAL_NAME.exec(pod.metadata.name ?? "");
  return m ? { parent: m[1], ordinal: Number(m[2]) } : { parent: "", ordinal: -1 };
}

export const ordinalOf = (pod: Obj): number => parentAndOrdinal(pod).ordinal;
export const podName = (set: Obj, ordinal: number): string => `${set.metadata.name}-${ordinal}`;
export const isMemberOf = (set: Obj, pod: Obj): boolean => parentAndOrdinal(pod).parent === set.metadata.name;
export const revisionOf = (pod: Obj): string | undefined => pod.metadata.labels?.[POD_REVISION_LABEL];

/** The claims a pod of the set at `ordinal` mounts, by volume name (getPersistentVolumeClaims). */
export function claimsFor(set: Obj, ordinal: number): Map<string, Obj> {
  const claims = new Map<string, Obj>();
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const claim = structuredClone(t);
    claim.apiVersion = "v1";
    claim.kind = "PersistentVolumeClaim";
    claim.metadata = { ...claim.metadata, name: `${t.metadata.name}-${set.metadata.name}-${ordinal}`, namespace: set.metadata.namespace };
    // the claims carry the set's selector labels so that they can be found by it
    const selectorLabels = set.spec?.selector?.matchLabels;
    if (selectorLabels) claim.metadata.labels = { ...(claim.metadata.labels ?? {}), ...selectorLabels };
    delete claim.status;
    claims.set(t.metadata.name, claim);
  }
  return claims;
}

export function identityMatches(set: Obj, pod: Obj): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return ordinal >= 0 && parent === set.metadata.name && pod.metadata.name === podName(set, ordinal)
    && pod.metadata.namespace === set.metadata.namespace && pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name;
}

export function storageMatches(set: Obj, pod: Obj): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map<string, Obj>((pod.spec?.volumes ?? []).map((v: Obj) => [v.name, v]));
  for (const [name, claim] of claimsFor(set, ordinal)) {
    if (volumes.get(name)?.persistentVolumeClaim?.claimName !== claim.metadata.name) return false;
  }
  return true;
}

/** Gives the pod its name, hostname, subdomain and name label (updateIdentity). */
export function setIdentity(set: Obj, pod: Obj): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [POD_NAME_LABEL]: pod.metadata.name };
  pod.spec.hostname = pod.metadata.name;
  if (set.spec?.serviceName) pod.spec.subdomain = set.spec.serviceName;
}

/** Mounts the pod's claims, replacing volumes of the same names (updateStorage). */
export function setStorage(set: Obj, pod: Obj): void {
  const claims = claimsFor(set, ordinalOf(pod));
  if (!claims.size) return;
  const kept = (pod.spec.volumes ?? []).filter((v: Obj) => !claims.has(v.name));
  pod.spec.volumes = [...kept, ...[...claims].map(([name, c]) => ({ name, persistentVolumeClaim: { claimName: c.metadata.name } }))];
}

/** The set's pod at `ordinal`, labelled with its revision (newVersionedStatefulSetPod's building block). */
export function newPod(set: Obj, ref: OwnerReference, ordinal: number, revision: string): Obj {
  const pod = podFromTemplate(set.spec.template, set, ref);
  delete pod.metadata.generateName;
  pod.metadata.name = podName(set, ordinal);
  setIdentity(set, pod);
  setStorage(set, pod);
  pod.metadata.labels[POD_REVISION_LABEL] = revision;
  return pod;
}

/** Running and Ready: a pod the OrderedReady policy may build on. */
export const isRunningAndReady = (pod: Obj): boolean => pod.status?.phase === "Running" && isPodReady(pod);
export const isCreated = (pod: Obj): boolean => !!pod.status?.phase;
export const isFailed = (pod: Obj): boolean => pod.status?.phase === "Failed";
export const isTerminating = (pod: Obj): boolean => !!pod.metadata.deletionTimestamp;
export const isHealthy = (pod: Obj): boolean => isRunningAndReady(pod) && !isTerminating(pod);
