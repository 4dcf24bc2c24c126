// The garbage collector (upstream v1.21's garbagecollector, as an API client). Informers over every type
// discovery lists with list, watch and delete (discovery is asked again every 30 s for new types) build the
// ownership graph; the queue holds uids. A dependent whose owners are all gone is deleted (its own
// finalizers choose the policy, Background by default); one with a living owner only loses the references to
// gone owners. An owner deleted with `orphan` has the references to it removed from its dependents, then
// the finalizer; one deleted with `foregroundDeletion` has its dependents deleted, and the finalizer goes once
// no dependent with blockOwnerDeletion is left. Every write is idempotent: a 404 or a uid that no longer
// matches means someone else (the API server's own collector, an earlier try) did it already.
import { consola } from "consola";
import { ApiError, isConflict, isNotFound, type Client, type Obj } from "../client/client.ts";
import type { ApiResource } from "../client/discovery.ts";
import { InformerFactory, dropManagedFields } from "../client/informer.ts";
import type { ResourceRef } from "../client/resources.ts";
import { objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { type ControllerInit, KeyedController } from "./framework.ts";
import { deletingWith, FOREGROUND_FINALIZER, type GraphNode, ORPHAN_FINALIZER, ownerRefsOf, OwnershipGraph } from "./garbagecollector-graph.ts";

/** How often discovery is asked for new types (upstream's 30 s GC resync). */
export const DISCOVERY_PERIOD_MS = 30_000;
/** Owner uids confirmed gone are remembered (upstream's absentOwnerCache), up to this many. */
const ABSENT_CACHE_SIZE = 500;
/** Writes that conflict are tried again on a fresh copy this many times before the key is requeued. */
const CONFLICT_RETRIES = 5;
/** Events name no owners and are the most numerous objects: not followed (upstream ignores core events). */
const IGNORED = new Set(["/events", "events.k8s.io/events"]);

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");
const typeKey = (group: string, kind: string) => `${group}/${kind}`;
const conflictOrGone = (e: unknown) => e instanceof ApiError && (e.code === 404 || e.code === 409);

/** The types the collector follows: preferred versions of every type that can be listed, watched and deleted. */
export function deletableResources(all: ApiResource[]): ApiResource[] {
  return all.filter((r) => r.preferred && ["list", "watch", "delete"].every((v) => r.verbs.includes(v)) && !IGNORED.has(`${r.group}/${r.resource}`));
}

type OwnerState = "solid" | "dangling" | "waiting";

class GarbageCollector extends KeyedController {
  private readonly graph = new OwnershipGraph();
  private readonly followed = new Map<string, ApiResource>();
  private readonly absent = new Set<string>();
  private synced = false;

  constructor(private readonly client: Client, private readonly factory: InformerFactory) {
    super("garbagecollector");
  }

  override async run(workers: number, signal: AbortSignal): Promise<void> {
    // Discovery comes first: the collector starts its own informers once it knows the types.
    signal.addEventListener("abort", () => this.factory.stop(), { once: true });
    while (!signal.aborted && !(await this.discover(signal).then(() => true, (e) => { consola.warn(`garbagecollector: discovery failed: ${(e as Error).message}`); return false; }))) {
      await Bun.sleep(1000);
    }
    if (signal.aborted) return;
    this.synced = true;
    for (const node of this.graph.values()) this.considerNew(node.obj);
    const timer = setInterval(() => void this.discover(signal).catch((e) => consola.warn(`garbagecollector: discovery failed: ${(e as Error).message}`)), DISCOVERY_PERIOD_MS);
    signal.addEventListener("abort", () => clearInterval(timer), { once: true });
    await super.run(workers, signal);
  }

  /**
   * Follows every deletable type not followed yet and waits for those informers to sync, at most one
   * discovery period: a type whose list keeps failing must not stop collection of the others (owners the
   * graph lacks are asked of the server before anything is deleted).
   */
  private async discover(signal: AbortSignal): Promise<void> {
    const fresh = deletableResources(await this.client.discovery.serverResources()).filter((r) => !this.followed.has(typeKey(r.group, r.kind)));
    const informers = fresh.map((r) => {
      this.followed.set(typeKey(r.group, r.kind), r);
      const inf = this.factory.informerFor(r);
      inf.addEventHandler({
        add: (o) => this.observed(r, o),
        update: (_, o) => this.observed(r, o),
        delete: (o) => this.gone(o),
      });
      inf.start();
      return inf;
    });
    const wait = AbortSignal.any([signal, AbortSignal.timeout(DISCOVERY_PERIOD_MS)]);
    const synced = await Promise.all(informers.map((inf) => inf.waitForSync(wait)));
    const stuck = informers.filter((_, i) => !synced[i]).map((inf) => inf.describe());
    if (stuck.length && !signal.aborted) consola.warn(`garbagecollector: timed out waiting for dependency graph builder sync: ${stuck.join(", ")}`);
  }

  private observed(resource: ResourceRef, obj: Obj): void {
    for (const owner of this.graph.observe(resource, obj)) this.wakeForegroundOwner(owner);
    if (this.synced) this.considerNew(obj);
  }

  private gone(o: Obj | DeletedFinalStateUnknown): void {
    const obj = objectOf(o);
    const uid: string = obj.metadata.uid;
    this.graph.remove(uid);
    this.rememberAbsent(uid);
    for (const d of this.graph.dependentsOf(uid)) this.queue.add(d.uid);
    for (const r of ownerRefsOf(obj)) this.wakeForegroundOwner(r.uid);
  }

  /** An object with work for the collector: being deleted with its finalizer, or naming an owner not seen. */
  private considerNew(obj: Obj): void {
    const deleting = deletingWith(obj, ORPHAN_FINALIZER) || deletingWith(obj, FOREGROUND_FINALIZER);
    if (deleting || ownerRefsOf(obj).some((r) => !this.graph.ownerFor(obj, r))) this.queue.add(obj.metadata.uid);
  }

  /** A dependent left an owner being deleted in the foreground: the owner may be free to go. */
  private wakeForegroundOwner(uid: string): void {
    const owner = this.graph.get(uid);
    if (owner && deletingWith(owner.obj, FOREGROUND_FINALIZER)) this.queue.add(uid);
  }

  private rememberAbsent(uid: string): void {
    if (this.absent.size >= ABSENT_CACHE_SIZE) this.absent.delete(this.absent.values().next().value!);
    this.absent.add(uid);
  }

  protected async sync(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    const o = node.obj;
    if (o.metadata.deletionTimestamp) {
      if (deletingWith(o, ORPHAN_FINALIZER)) await this.orphanDependents(node);
      else if (deletingWith(o, FOREGROUND_FINALIZER)) await this.deleteDependentsFirst(node);
      return;
    }
    if (ownerRefsOf(o).length) await this.attemptToDelete(node);
  }

  /** Upstream's attemptToDeleteItem: acts on a dependent by what its owners are. */
  private async attemptToDelete(node: GraphNode): Promise<void> {
    // The graph's view first: a dependent whose owners all live costs no request.
    if ((await this.classify(node.obj)).every((s) => s.state === "solid")) return;
    const latest = await this.latest(node);
    if (!latest || latest.metadata.deletionTimestamp) return;
    const owners = await this.classify(latest);
    if (!owners.length) return;
    const solid = owners.filter((s) => s.state === "solid");
    const waiting = owners.filter((s) => s.state === "waiting");
    if (solid.length) {
      const drop = owners.filter((s) => s.state !== "solid").map((s) => s.ref.uid as string);
      if (drop.length) await this.removeOwnerRefs(node, latest, drop);
      return;
    }
    const dependents = this.graph.dependentsOf(node.uid);
    if (waiting.length && dependents.length) {
      // A dependent of ours waits for its own dependents too: our owners must not wait on us (a cycle).
      if (dependents.some((d) => deletingWith(d.obj, FOREGROUND_FINALIZER))) await this.unblockOwnerRefs(node, latest);
      return this.deleteObject(node, "Foreground");
    }
    const fins: string[] = latest.metadata.finalizers ?? [];
    return this.deleteObject(node, fins.includes(ORPHAN_FINALIZER) ? "Orphan" : fins.includes(FOREGROUND_FINALIZER) ? "Foreground" : "Background");
  }

  /** Each owner reference of `dependent` as solid (lives), dangling (gone) or waiting (deleting its dependents first). */
  private async classify(dependent: Obj): Promise<{ ref: Obj; state: OwnerState }[]> {
    return Promise.all(ownerRefsOf(dependent).map(async (ref) => ({ ref, state: await this.ownerState(dependent, ref) })));
  }

  private async ownerState(dependent: Obj, ref: Obj): Promise<OwnerState> {
    if (this.absent.has(ref.uid)) return "dangling";
    const known = this.graph.ownerFor(dependent, ref);
    if (known) return deletingWith(known.obj, FOREGROUND_FINALIZER) ? "waiting" : "solid";
    // Not (yet) seen by an informer: ask the server, as upstream verifies a virtual node.
    const resource = this.followed.get(typeKey(groupOf(ref.apiVersion ?? ""), ref.kind));
    if (!resource) throw new Error(`owner ${ref.apiVersion}, Kind=${ref.kind} of ${dependent.metadata.uid} is of a type the server does not list`);
    const ns: string | undefined = dependent.metadata.namespace;
    // A namespaced owner cannot own a cluster-scoped object.
    if (resource.namespaced && !ns) return "dangling";
    try {
      const owner = await this.client.get(resource, ref.name, { namespace: resource.namespaced ? ns : undefined });
      if (owner.metadata.uid === ref.uid) return deletingWith(owner, FOREGROUND_FINALIZER) ? "waiting" : "solid";
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.rememberAbsent(ref.uid);
    return "dangling";
  }

  /** The server's copy of the object, or undefined when it is gone or another object took its name. */
  private async latest(node: GraphNode): Promise<Obj | undefined> {
    try {
      const o = await this.client.get(node.resource, node.obj.metadata.name, { namespace: node.obj.metadata.namespace });
      return o.metadata.uid === node.uid ? o : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  private async deleteObject(node: GraphNode, policy: "Background" | "Foreground" | "Orphan"): Promise<void> {
    const { name, namespace } = node.obj.metadata;
    consola.debug(`garbagecollector: deleting ${describe(node)} with propagation policy ${policy}`);
    await this.client.delete(node.resource, name, { namespace, propagationPolicy: policy, preconditions: { uid: node.uid } }).catch((e) => {
      if (!conflictOrGone(e)) throw e;
    });
  }

  /** Orphan: every dependent loses its reference to the owner, then the owner its `orphan` finalizer. */
  private async orphanDependents(owner: GraphNode): Promise<void> {
    for (const dep of this.graph.dependentsOf(owner.uid)) {
      const latest = await this.latest(dep);
      if (latest) await this.removeOwnerRefs(dep, latest, [owner.uid]);
    }
    await this.removeFinalizer(owner, ORPHAN_FINALIZER);
  }

  /** Foreground: dependents are deleted; the finalizer goes once none blocks the owner any more. */
  private async deleteDependentsFirst(owner: GraphNode): Promise<void> {
    for (const dep of this.graph.dependentsOf(owner.uid)) if (!dep.obj.metadata.deletionTimestamp) this.queue.add(dep.uid);
    if (this.graph.blockingDependentsOf(owner.uid).length === 0) await this.removeFinalizer(owner, FOREGROUND_FINALIZER);
  }

  private removeOwnerRefs(node: GraphNode, latest: Obj, uids: string[]): Promise<void> {
    return this.updateMetadata(node, latest, (cur) => {
      const refs = ownerRefsOf(cur).filter((r) => !uids.includes(r.uid));
      return refs.length === ownerRefsOf(cur).length ? undefined : { ownerReferences: refs.length ? refs : null };
    });
  }

  private unblockOwnerRefs(node: GraphNode, latest: Obj): Promise<void> {
    return this.updateMetadata(node, latest, (cur) => {
      const refs = ownerRefsOf(cur);
      return refs.some((r) => r.blockOwnerDeletion) ? { ownerReferences: refs.map((r) => ({ ...r, blockOwnerDeletion: false })) } : undefined;
    });
  }

  private removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    return this.updateMetadata(node, undefined, (cur) => {
      const fins: string[] = cur.metadata.finalizers ?? [];
      if (!fins.includes(finalizer)) return undefined;
      const rest = fins.filter((f) => f !== finalizer);
      return { finalizers: rest.length ? rest : null };
    });
  }

  /**
   * Merge-patches the metadata `change` makes of the server's copy (undefined: nothing to change), with its
   * resourceVersion as precondition; a conflict (someone else wrote, e.g. the API server's own collector)
   * starts again from a fresh copy. A gone object needs nothing.
   */
  private async updateMetadata(node: GraphNode, latest: Obj | undefined, change: (cur: Obj) => Obj | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const cur = latest ?? await this.latest(node);
      latest = undefined;
      const metadata = cur && change(cur);
      if (!cur || !metadata) return;
      const patch = { metadata: { ...metadata, uid: node.uid, resourceVersion: cur.metadata.resourceVersion } };
      try {
        await this.client.patch(node.resource, cur.metadata.name, patch, "merge", { namespace: cur.metadata.namespace });
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e) || attempt >= CONFLICT_RETRIES) throw e;
      }
    }
  }
}

const describe = (n: GraphNode) =>
  `${n.resource.group ? `${n.resource.group}/` : ""}${n.resource.version}, Kind=${n.resource.kind} ${n.obj.metadata.namespace ? `${n.obj.metadata.namespace}/` : ""}${n.obj.metadata.name} (${n.uid})`;

/** Its informers are its own and hold metadata only (upstream's metadata informers): owners, uids and finalizers are all it reads. */
export const initGarbageCollector: ControllerInit = (ctx) =>
  new GarbageCollector(ctx.client, new InformerFactory(ctx.client, { metadataOnly: true, transform: dropManagedFields }));
