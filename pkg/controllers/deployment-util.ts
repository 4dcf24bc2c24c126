// The arithmetic of Deployments (upstream's deployment/util): the pod-template-hash, revisions and the
// annotations that carry them, maxSurge/maxUnavailable resolved against replicas (surge rounded up,
// unavailability down), and sums over ReplicaSets.
import type { Obj } from "../client/client.ts";

export const TEMPLATE_HASH_LABEL = "pod-template-hash";
export const REVISION = "deployment.kubernetes.io/revision";
export const REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
export const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
export const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
const ROLLBACK_TO = "deprecated.deployment.rollback.to";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** Annotations a Deployment does not hand to its ReplicaSets. */
const NOT_COPIED = new Set([LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO]);
/** The longest revision-history annotation kept (upstream's default). */
const MAX_HISTORY_CHARS = 2000;

export const replicasOf = (o: Obj | undefined): number => o?.spec?.replicas ?? 0;

// --- the template hash ---

/** JSON with keys sorted and empty maps and lists dropped: equal for semantically equal templates. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const parts: string[] = [];
    for (const k of Object.keys(v).sort()) {
      const x = (v as Obj)[k];
      if (x === null || x === undefined || (typeof x === "object" && Object.keys(x).length === 0)) continue;
      parts.push(`${JSON.stringify(k)}:${canonical(x)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(v);
}

/** apimachinery's rand.SafeEncodeString alphabet: no vowels, no look-alike characters. */
const SAFE = "bcdfghjklmnpqrstvwxz2456789";

/** A 32-bit hash in upstream's safe encoding of its decimal form (rand.SafeEncodeString). */
export const safeEncode = (h: number): string => [...String(h >>> 0)].map((c) => SAFE[c.charCodeAt(0) % SAFE.length]).join("");

/** The pod-template-hash of a template (FNV-32a, then upstream's safe encoding of its decimal form). */
export function computeHash(template: Obj, collisionCount?: number): string {
  let h = 0x811c9dc5;
  const feed = (bytes: Uint8Array) => { for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0; };
  feed(new TextEncoder().encode(canonical(template)));
  if (collisionCount !== undefined && collisionCount !== null) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount, true);
    feed(b);
  }
  return safeEncode(h);
}

const withoutHash = (template: Obj | undefined): Obj => {
  const t = structuredClone(template ?? {});
  if (t.metadata?.labels) delete t.metadata.labels[TEMPLATE_HASH_LABEL];
  return t;
};

/** Templates equal but for the pod-template-hash label (EqualIgnoreHash). */
export const equalIgnoreHash = (a: Obj | undefined, b: Obj | undefined): boolean => canonical(withoutHash(a)) === canonical(withoutHash(b));

// --- ReplicaSets of a Deployment ---

const created = (o: Obj) => Date.parse(o.metadata.creationTimestamp ?? "") || 0;

/** Oldest first, ties by name (ReplicaSetsByCreationTimestamp). */
export const byCreation = (a: Obj, b: Obj): number => created(a) - created(b) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);

/** Lowest revision first, ties by creation (ReplicaSetsByRevision). */
export const byRevision = (a: Obj, b: Obj): number => revisionOf(a) - revisionOf(b) || byCreation(a, b);

/** The ReplicaSet whose template is the Deployment's; the oldest when several are (FindNewReplicaSet). */
export const findNewReplicaSet = (d: Obj, rsList: Obj[]): Obj | undefined =>
  [...rsList].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec.template));

export const activeReplicaSets = (rsList: (Obj | undefined)[]): Obj[] => rsList.filter((rs): rs is Obj => !!rs && replicasOf(rs) > 0);

const sum = (rsList: (Obj | undefined)[], f: (rs: Obj) => number | undefined) => rsList.reduce((n, rs) => n + (rs ? f(rs) ?? 0 : 0), 0);
/** Desired pods (spec.replicas) of the ReplicaSets. */
export const specReplicas = (rsList: (Obj | undefined)[]) => sum(rsList, (rs) => rs.spec?.replicas);
/** Pods the ReplicaSets have (status.replicas). */
export const actualReplicas = (rsList: (Obj | undefined)[]) => sum(rsList, (rs) => rs.status?.replicas);
export const readyReplicas = (rsList: (Obj | undefined)[]) => sum(rsList, (rs) => rs.status?.readyReplicas);
export const availableReplicas = (rsList: (Obj | undefined)[]) => sum(rsList, (rs) => rs.status?.availableReplicas);

// --- revisions and annotations ---

export function revisionOf(o: Obj | undefined): number {
  const v = o?.metadata?.annotations?.[REVISION];
  const n = v === undefined ? 0 : Number(v);
  return Number.isInteger(n) ? n : 0;
}

export const maxRevision = (rsList: Obj[]): number => Math.max(0, ...rsList.map(revisionOf));

function intAnnotation(rs: Obj, name: string): number | undefined {
  const v = rs.metadata.annotations?.[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) ? n : undefined;
}
export const desiredReplicasAnnotation = (rs: Obj) => intAnnotation(rs, DESIRED_REPLICAS);
export const maxReplicasAnnotation = (rs: Obj) => intAnnotation(rs, MAX_REPLICAS);

/** Sets the desired-replicas and max-replicas annotations; true when they changed. */
export function setReplicasAnnotations(rs: Obj, desired: number, max: number): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of [[DESIRED_REPLICAS, String(desired)], [MAX_REPLICAS, String(max)]]) {
    if (a[k] !== v) { a[k] = v; changed = true; }
  }
  return changed;
}

/** The Deployment's own annotations onto its new ReplicaSet, plus its revision (SetNewReplicaSetAnnotations). */
export function setNewReplicaSetAnnotations(d: Obj, rs: Obj, newRevision: number, exists: boolean): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries<string>(d.metadata.annotations ?? {})) {
    if (NOT_COPIED.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const old = a[REVISION];
  const oldRevision = old === undefined ? 0 : Number(old);
  if (old !== undefined && !Number.isInteger(oldRevision)) return false;
  if (oldRevision < newRevision) {
    a[REVISION] = String(newRevision);
    changed = true;
    // a ReplicaSet brought back (a rollback) remembers the revisions it had
    if (old !== undefined) {
      let history = a[REVISION_HISTORY] ? `${a[REVISION_HISTORY]},${old}` : old;
      while (history.length > MAX_HISTORY_CHARS && history.includes(",")) history = history.slice(history.indexOf(",") + 1);
      a[REVISION_HISTORY] = history;
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

// --- maxSurge and maxUnavailable ---

export const isRollingUpdate = (d: Obj) => (d.spec?.strategy?.type ?? "RollingUpdate") === "RollingUpdate";

/** An int or a percentage of `total` (GetScaledValueFromIntOrPercent). */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean, dflt: string): number {
  const x = v ?? dflt;
  if (typeof x === "number") return x;
  const m = /^(\d+)%$/.exec(x);
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  const scaled = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** maxSurge and maxUnavailable as pod counts; never both 0 (ResolveFenceposts). */
export function resolveFenceposts(d: Obj): { surge: number; unavailable: number } {
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  const desired = replicasOf(d);
  const surge = scaledValue(ru.maxSurge, desired, true, "25%");
  let unavailable = scaledValue(ru.maxUnavailable, desired, false, "25%");
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export const maxSurge = (d: Obj): number => (isRollingUpdate(d) ? resolveFenceposts(d).surge : 0);

export function maxUnavailable(d: Obj): number {
  if (!isRollingUpdate(d) || replicasOf(d) === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, replicasOf(d));
}

/** How many replicas the new ReplicaSet may have now (NewRSNewReplicas). */
export function newRSNewReplicas(d: Obj, allRSs: Obj[], newRS: Obj): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const current = specReplicas(allRSs);
  const maxTotal = replicasOf(d) + maxSurge(d);
  if (current >= maxTotal) return replicasOf(newRS);
  return replicasOf(newRS) + Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
}

/** The new ReplicaSet has every desired pod available (IsSaturated). */
export const isSaturated = (d: Obj, rs: Obj | undefined): boolean =>
  !!rs && desiredReplicasAnnotation(rs) === replicasOf(d) && rs.status?.availableReplicas === replicasOf(d) && replicasOf(rs) === replicasOf(d);

export const hasProgressDeadline = (d: Obj): boolean => {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== null && s !== 2147483647;
};
