// The pod garbage collector (upstream v1.21's podgc), every 20 s: force-deletes (grace period 0) the
// oldest finished pods beyond --terminated-pod-gc-threshold, pods bound to a node that has been missing
// for 40 s (and that the server confirms gone), and pods being deleted that were never scheduled.
import { consola } from "consola";
import { isNotFound, type Obj } from "../client/client.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import type { Controller, ControllerContext, ControllerInit } from "./framework.ts";

export const GC_PERIOD_MS = 20_000;
export const QUARANTINE_MS = 40_000;

const isTerminated = (p: Obj) => { const phase = p.status?.phase; return phase !== "Pending" && phase !== "Running" && phase !== "Unknown"; };

/** The finished pods beyond `threshold`, oldest first (by creation, then name). */
export function terminatedToDelete(pods: Obj[], threshold: number): Obj[] {
  const done = pods.filter(isTerminated);
  if (threshold <= 0 || done.length <= threshold) return [];
  const created = (p: Obj) => Date.parse(p.metadata.creationTimestamp ?? "") || 0;
  done.sort((a, b) => created(a) - created(b) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  return done.slice(0, done.length - threshold);
}

/** Pods being deleted that no node will ever confirm: they were never scheduled. */
export const unscheduledTerminating = (pods: Obj[]): Obj[] => pods.filter((p) => p.metadata.deletionTimestamp && !p.spec?.nodeName);

/** Nodes that pods are bound to but the cache does not hold, each due once it has been missing for QUARANTINE_MS. */
export class NodeQuarantine {
  private readonly since = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Notes the nodes pods name that are not in `existing`; returns those missing long enough (and forgets them). */
  due(pods: Obj[], existing: Set<string>): string[] {
    const now = this.now();
    for (const p of pods) {
      const node = p.spec?.nodeName;
      if (node && !existing.has(node) && !this.since.has(node)) this.since.set(node, now);
    }
    const out: string[] = [];
    for (const [node, at] of this.since) {
      if (now - at < QUARANTINE_MS) continue;
      this.since.delete(node);
      if (!existing.has(node)) out.push(node);
    }
    return out;
  }
}

export class PodGCController implements Controller {
  readonly name = "podgc";
  private readonly pods: SharedInformer;
  private readonly nodes: SharedInformer;
  private readonly quarantine: NodeQuarantine;

  constructor(private readonly ctx: ControllerContext, now: () => number = Date.now) {
    this.pods = ctx.factory.informerFor(RESOURCES.pods);
    this.nodes = ctx.factory.informerFor(RESOURCES.nodes);
    this.quarantine = new NodeQuarantine(now);
  }

  async run(_workers: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.gc().catch((e) => consola.warn(`podgc: ${(e as Error).message}`));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, GC_PERIOD_MS);
        signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
  }

  private async gc(): Promise<void> {
    const pods = this.pods.store.list();
    const terminated = terminatedToDelete(pods, this.ctx.options.terminatedPodGCThreshold);
    if (terminated.length) consola.info(`garbage collecting ${terminated.length} pods`);
    await Promise.all(terminated.map((p) => this.forceDelete(p)));

    const existing = new Set(this.nodes.store.listKeys());
    const gone: string[] = [];
    for (const node of this.quarantine.due(pods, existing)) {
      // the cache may lag behind a node that was just added
      try {
        await this.ctx.client.get(RESOURCES.nodes, node);
      } catch (e) {
        if (isNotFound(e)) gone.push(node);
        else consola.warn(`podgc: error while getting node ${JSON.stringify(node)}: ${(e as Error).message}`);
      }
    }
    for (const p of pods.filter((p) => gone.includes(p.spec?.nodeName))) {
      consola.info(`Found orphaned Pod ${p.metadata.namespace}/${p.metadata.name} assigned to the Node ${p.spec.nodeName}. Deleting.`);
      await this.forceDelete(p);
    }
    for (const p of unscheduledTerminating(pods)) {
      consola.info(`Found unscheduled terminating Pod ${p.metadata.namespace}/${p.metadata.name} not assigned to any Node. Deleting.`);
      await this.forceDelete(p);
    }
  }

  private async forceDelete(p: Obj): Promise<void> {
    consola.info(`PodGC is force deleting Pod: ${p.metadata.namespace}/${p.metadata.name}`);
    try {
      await this.ctx.client.delete(RESOURCES.pods, p.metadata.name, { namespace: p.metadata.namespace, gracePeriodSeconds: 0 });
    } catch (e) {
      if (!isNotFound(e)) consola.warn(`podgc: deleting ${p.metadata.namespace}/${p.metadata.name}: ${(e as Error).message}`);
    }
  }
}

export const initPodGCController: ControllerInit = (ctx) => new PodGCController(ctx);
