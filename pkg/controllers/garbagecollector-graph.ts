// The garbage collector's ownership graph: every object its informers hold, by uid, with the reverse index
// of ownerReferences (owner uid → dependents' uids). Owners the graph has not seen still index their
// dependents, so a dependent is found when its owner goes whichever informer saw what first.
import type { Obj } from "../client/client.ts";
import type { ResourceRef } from "../client/resources.ts";

export const ORPHAN_FINALIZER = "orphan";
export const FOREGROUND_FINALIZER = "foregroundDeletion";

export interface GraphNode {
  uid: string;
  resource: ResourceRef;
  /** The informer's latest copy (shared with the store: never mutated). */
  obj: Obj;
}

export const ownerRefsOf = (o: Obj): Obj[] => (o.metadata?.ownerReferences ?? []).filter((r: Obj) => r?.uid);

/** Being deleted and waiting for the garbage collector's `finalizer`. */
export const deletingWith = (o: Obj, finalizer: string): boolean =>
  !!o.metadata?.deletionTimestamp && (o.metadata.finalizers ?? []).includes(finalizer);

/** The reference from `dependent` to the owner `uid`, if any. */
export const refTo = (dependent: Obj, uid: string): Obj | undefined => ownerRefsOf(dependent).find((r) => r.uid === uid);

export class OwnershipGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();

  get(uid: string): GraphNode | undefined { return this.nodes.get(uid); }

  values(): IterableIterator<GraphNode> { return this.nodes.values(); }

  /** Records the latest copy of an object; returns the owner uids its previous copy named and this one does not. */
  observe(resource: ResourceRef, obj: Obj): string[] {
    const uid: string = obj.metadata.uid;
    const before = this.nodes.get(uid);
    this.nodes.set(uid, { uid, resource, obj });
    const had = new Set(before ? ownerRefsOf(before.obj).map((r) => r.uid as string) : []);
    const has = new Set(ownerRefsOf(obj).map((r) => r.uid as string));
    for (const o of has) if (!had.has(o)) this.index(o).add(uid);
    const dropped = [...had].filter((o) => !has.has(o));
    for (const o of dropped) this.unindex(o, uid);
    return dropped;
  }

  /** Forgets an object that is gone; returns its last copy. */
  remove(uid: string): GraphNode | undefined {
    const node = this.nodes.get(uid);
    if (!node) return undefined;
    this.nodes.delete(uid);
    for (const r of ownerRefsOf(node.obj)) this.unindex(r.uid, uid);
    return node;
  }

  /** The objects that name `uid` as an owner. */
  dependentsOf(uid: string): GraphNode[] {
    return [...this.dependents.get(uid) ?? []].map((d) => this.nodes.get(d)).filter((n): n is GraphNode => !!n);
  }

  /** Dependents whose reference to `uid` blocks its foreground deletion. */
  blockingDependentsOf(uid: string): GraphNode[] {
    return this.dependentsOf(uid).filter((d) => refTo(d.obj, uid)?.blockOwnerDeletion === true);
  }

  /** The owner a reference of `dependent` names, if the graph holds it where the reference can reach it. */
  ownerFor(dependent: Obj, ref: Obj): GraphNode | undefined {
    const owner = this.nodes.get(ref.uid);
    if (!owner) return undefined;
    // A namespaced owner is only an owner of objects in its own namespace.
    return !owner.resource.namespaced || owner.obj.metadata.namespace === dependent.metadata.namespace ? owner : undefined;
  }

  private index(owner: string): Set<string> {
    let s = this.dependents.get(owner);
    if (!s) this.dependents.set(owner, (s = new Set()));
    return s;
  }

  private unindex(owner: string, dependent: string): void {
    const s = this.dependents.get(owner);
    if (!s) return;
    s.delete(dependent);
    if (!s.size) this.dependents.delete(owner);
  }
}
