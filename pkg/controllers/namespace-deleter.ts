// The namespace controller (upstream v1.21's namespace controller, as an API client): a namespace being
// deleted is emptied — every namespaced type discovery lists with delete, by deletecollection (Background)
// where served, else one delete per object — its conditions say what is left and why, and once nothing is
// left it loses the `kubernetes` finalizer through namespaces/finalize (which lets the server remove it).
// Content that is still going (finalizers, pods' grace periods) brings the namespace back after half the
// estimate, as upstream. Deletes and the finalize are idempotent, so the API server's own namespace
// controller may run beside this one.
import { consola } from "consola";
import { ApiError, isConflict, isNotFound, type Client, type Obj } from "../client/client.ts";
import type { ApiResource } from "../client/discovery.ts";
import { RESOURCES } from "../client/resources.ts";
import { type ControllerContext, type ControllerInit, KeyedController } from "./framework.ts";
import { type DeletionReport, nextConditions } from "./namespace-conditions.ts";

/** The finalizer this controller owns on namespaces. */
export const FINALIZER = "kubernetes";
/** Upstream's wait for content whose finalizers are still running (seconds). */
const FINALIZER_ESTIMATE_S = 15;
/** Upstream's --namespace-sync-period. */
const RESYNC_MS = 5 * 60_000;

const unsupported = (e: unknown) => e instanceof ApiError && (e.code === 404 || e.code === 405);
const groupResource = (r: ApiResource) => `${r.resource}.${r.group}`;

class NamespaceController extends KeyedController {
  private readonly client: Client;

  constructor(ctx: ControllerContext) {
    super("namespace");
    this.client = ctx.client;
    ctx.factory.informerFor(RESOURCES.namespaces).addEventHandler({
      add: (o) => this.enqueueDeleting(o),
      update: (_, o) => this.enqueueDeleting(o),
    }, RESYNC_MS);
  }

  private enqueueDeleting(ns: Obj): void {
    if (ns.metadata.deletionTimestamp) this.enqueue(ns);
  }

  protected async sync(name: string): Promise<void> {
    let ns: Obj;
    try { ns = await this.client.get(RESOURCES.namespaces, name); } catch (e) { if (isNotFound(e)) return; throw e; }
    if (!ns.metadata.deletionTimestamp) return;
    ns = await this.retryOnConflict(ns, (cur) => this.markTerminating(cur));
    if (!(ns.spec?.finalizers ?? []).length) return;
    const estimate = await this.deleteAllContent(ns);
    if (estimate > 0) {
      // Upstream's ResourcesRemainingError: look again after half the estimate.
      this.queue.addAfter(name, (Math.floor(estimate / 2) + 1) * 1000);
      return;
    }
    await this.retryOnConflict(ns, (cur) => this.finalize(cur));
  }

  /** Runs `write` on the latest copy until it does not conflict (a namespace with a new uid is an error). */
  private async retryOnConflict(ns: Obj, write: (cur: Obj) => Promise<Obj>): Promise<Obj> {
    for (let cur = ns; ;) {
      try { return await write(cur); } catch (e) { if (!isConflict(e)) throw e; }
      const latest = await this.client.get(RESOURCES.namespaces, ns.metadata.name);
      if (latest.metadata.uid !== ns.metadata.uid) throw new Error("namespace uid has changed across retries");
      cur = latest;
    }
  }

  private async markTerminating(ns: Obj): Promise<Obj> {
    if (ns.status?.phase === "Terminating") return ns;
    return this.client.update(RESOURCES.namespaces, { ...ns, status: { ...ns.status, phase: "Terminating" } }, { subresource: "status" });
  }

  private async finalize(ns: Obj): Promise<Obj> {
    const finalizers = (ns.spec?.finalizers ?? []).filter((f: string) => f !== FINALIZER);
    try {
      return await this.client.update(RESOURCES.namespaces, { ...ns, spec: { ...ns.spec, finalizers } }, { subresource: "finalize" });
    } catch (e) {
      if (isNotFound(e)) return ns; // removed already
      throw e;
    }
  }

  /** One pass over every deletable namespaced type; returns the seconds content is estimated to need still. */
  private async deleteAllContent(ns: Obj): Promise<number> {
    const name: string = ns.metadata.name;
    const report: DeletionReport = { contentErrors: [], remaining: new Map(), finalizers: new Map() };
    let resources: ApiResource[] = [];
    try {
      resources = (await this.client.discovery.serverResources()).filter((r) => r.namespaced && r.preferred && r.verbs.includes("delete"));
    } catch (e) {
      report.discoveryError = (e as Error).message;
    }
    const deletedAt = Date.parse(ns.metadata.deletionTimestamp);
    let estimate = 0;
    for (const r of resources) {
      try {
        estimate = Math.max(estimate, await this.deleteAllOf(r, name, deletedAt, report));
      } catch (e) {
        report.contentErrors.push((e as Error).message);
      }
    }
    const conditions = nextConditions(ns.status?.conditions, report, new Date().toISOString().replace(/\.\d+Z$/, "Z"));
    if (conditions) {
      await this.client.update(RESOURCES.namespaces, { ...ns, status: { ...ns.status, conditions } }, { subresource: "status" })
        .catch((e) => consola.warn(`namespace: couldn't update status condition for namespace "${name}": ${(e as Error).message}`));
    }
    if (report.contentErrors.length || report.discoveryError) throw new Error(report.discoveryError ?? report.contentErrors.join("; "));
    return estimate;
  }

  /** Deletes every object of one type in the namespace and counts what is left (upstream's per-GVR pass). */
  private async deleteAllOf(r: ApiResource, ns: string, deletedAt: number, report: DeletionReport): Promise<number> {
    let estimate = r.group === "" && r.resource === "pods" ? await this.podGraceEstimate(ns, deletedAt) : 0;
    let collectionDeleted = false;
    if (r.verbs.includes("deletecollection")) {
      try {
        await this.client.deleteCollection(r, { namespace: ns, propagationPolicy: "Background" });
        collectionDeleted = true;
      } catch (e) {
        if (!unsupported(e)) throw e;
      }
    }
    if (!collectionDeleted) {
      const { items } = await this.client.listAll(r, { namespace: ns });
      for (const item of items) {
        await this.client.delete(r, item.metadata.name, { namespace: ns, propagationPolicy: "Background" }).catch((e) => {
          if (!unsupported(e)) throw e;
        });
      }
    }
    const { items } = await this.client.listAll(r, { namespace: ns });
    if (!items.length) return 0;
    report.remaining.set(groupResource(r), items.length);
    let finalizing = false;
    for (const item of items) {
      for (const f of item.metadata.finalizers ?? []) {
        report.finalizers.set(f, (report.finalizers.get(f) ?? 0) + 1);
        finalizing = true;
      }
    }
    if (estimate > 0) return estimate;
    if (finalizing) return FINALIZER_ESTIMATE_S;
    throw new Error(`unexpected items still remain in namespace: ${ns} for gvr: ${r.group}/${r.version}, Resource=${r.resource}`);
  }

  /** The longest grace period of the namespace's running pods, unless that long has passed since the deletion. */
  private async podGraceEstimate(ns: string, deletedAt: number): Promise<number> {
    const { items } = await this.client.listAll(RESOURCES.pods, { namespace: ns });
    let estimate = 0;
    for (const p of items) {
      if (p.status?.phase === "Succeeded" || p.status?.phase === "Failed") continue;
      estimate = Math.max(estimate, p.spec?.terminationGracePeriodSeconds ?? 0);
    }
    return Date.now() - deletedAt >= estimate * 1000 ? 0 : estimate;
  }
}

export const initNamespaceController: ControllerInit = (ctx) => new NamespaceController(ctx);
