// Controller revisions (upstream's controller/history), shared by StatefulSets and DaemonSets: each pod
// template an owner has run is kept as a ControllerRevision named <owner>-<hash> holding the template as
// a patch, numbered in the order the templates were last used; a name taken by a revision with other
// data bumps the owner's collisionCount; the oldest revisions no pod uses go past revisionHistoryLimit.
import { isAlreadyExists, isNotFound, type Client, type Obj } from "../client/client.ts";
import { RESOURCES } from "../client/resources.ts";
import type { OwnerReference } from "./controllerref.ts";
import { canonical, safeEncode } from "./deployment-util.ts";

/** The label a revision carries its hash in (history.ControllerRevisionHashLabel). */
export const REVISION_HASH_LABEL = "controller.kubernetes.io/hash";
/** The label a StatefulSet's or DaemonSet's pods carry their revision in. */
export const POD_REVISION_LABEL = "controller-revision-hash";

/** What a revision records: the owner's template as a patch that replaces it (getPatch). */
export const templatePatch = (owner: Obj): Obj => ({ spec: { template: { ...structuredClone(owner.spec?.template ?? {}), $patch: "replace" } } });

/** The owner with a revision's template in place of its own (ApplyRevision). */
export function applyRevision(owner: Obj, revision: Obj): Obj {
  const { $patch: _, ...template } = revision.data?.spec?.template ?? {};
  return { ...owner, spec: { ...owner.spec, template } };
}

/** FNV-1 (32 bits) of the data and the collision count (HashControllerRevision). */
export function hashRevision(data: Obj, collisionCount?: number): string {
  let h = 0x811c9dc5;
  const feed = (s: string) => { for (const b of new TextEncoder().encode(s)) h = (Math.imul(h, 0x01000193) ^ b) >>> 0; };
  feed(canonical(data));
  if (collisionCount !== undefined) feed(String(collisionCount));
  return safeEncode(h);
}

/** <owner>-<hash>, the owner's part cut so that the name stays valid (ControllerRevisionName). */
export const revisionName = (owner: string, hash: string): string => `${owner.slice(0, 223)}-${hash}`;

export const sameData = (a: Obj, b: Obj): boolean => canonical(a.data ?? {}) === canonical(b.data ?? {});

/** Lowest revision first, ties by name. */
export const byNumber = (a: Obj, b: Obj): number => (a.revision ?? 0) - (b.revision ?? 0) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);

/** The number after the highest of `revisions`. */
export const nextNumber = (revisions: Obj[]): number => Math.max(0, ...revisions.map((r) => r.revision ?? 0)) + 1;

/** How a controller names and labels a revision of its template. */
export interface RevisionScheme {
  /** The hash of a revision of `owner` with `data`, probed with a collision count. */
  hash(owner: Obj, data: Obj, collisionCount: number): string;
  /** The labels a revision carries besides the template's. */
  labels(hash: string): Record<string, string>;
}

/** A revision of `owner`'s current template, numbered `number` (NewControllerRevision). */
export function newRevision(owner: Obj, ref: OwnerReference, scheme: RevisionScheme, number: number, collisionCount: number): Obj {
  const data = templatePatch(owner);
  const hash = scheme.hash(owner, data, collisionCount);
  const metadata: Obj = {
    name: revisionName(owner.metadata.name, hash), namespace: owner.metadata.namespace,
    labels: { ...(owner.spec?.template?.metadata?.labels ?? {}), ...scheme.labels(hash) }, ownerReferences: [ref],
  };
  if (owner.metadata.annotations) metadata.annotations = { ...owner.metadata.annotations };
  return { apiVersion: "apps/v1", kind: "ControllerRevision", metadata, data, revision: number };
}

/**
 * Creates a revision; while its name is held by a revision with other data the collision count goes up
 * and the name with it (CreateControllerRevision). Returns the revision (the existing one when equal).
 */
export async function createRevision(client: Client, owner: Obj, ref: OwnerReference, scheme: RevisionScheme, number: number, collisionCount: number):
  Promise<{ revision: Obj; collisionCount: number }> {
  const namespace = owner.metadata.namespace;
  for (let count = collisionCount; ; count++) {
    const revision = newRevision(owner, ref, scheme, number, count);
    try {
      return { revision: await client.create(RESOURCES.controllerrevisions, revision, { namespace }), collisionCount: count };
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get(RESOURCES.controllerrevisions, revision.metadata.name, { namespace });
      if (sameData(existing, revision)) return { revision: existing, collisionCount: count };
    }
  }
}

/** Gives an existing revision a new number (it is the template again). */
export async function renumber(client: Client, revision: Obj, number: number): Promise<Obj> {
  if (revision.revision === number) return revision;
  return client.update(RESOURCES.controllerrevisions, { ...revision, revision: number }, { namespace: revision.metadata.namespace });
}

/** Deletes the oldest revisions not in `live` beyond `limit` of them. */
export async function truncateHistory(client: Client, revisions: Obj[], live: Set<string>, limit: number): Promise<void> {
  const old = revisions.filter((r) => !live.has(r.metadata.name)).sort(byNumber);
  for (const r of old.slice(0, Math.max(0, old.length - limit))) {
    try {
      await client.delete(RESOURCES.controllerrevisions, r.metadata.name, { namespace: r.metadata.namespace });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
