// The resourcequota controller (upstream v1.21's): every ResourceQuota's status says its hard limits and
// what the namespace uses of each, recounted whenever a counted object of the namespace is added, changed
// or removed (upstream's replenishment), so usage also falls when objects go. The ResourceQuota admission
// plugin refuses creates past the limits; the counting rules are shared (pkg/quota/usage.ts).
import type { Obj } from "../client/client.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES, type ResourceRef } from "../client/resources.ts";
import { DeletedFinalStateUnknown } from "../client/store.ts";
import { formatQuantity } from "../quota/resources.ts";
import { inScope, usageOf, type Usage } from "../quota/usage.ts";
import { KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";

/** The types whose objects quotas count (upstream's evaluators, and count/<resource> of the workload types). */
const COUNTED: ResourceRef[] = [
  RESOURCES.pods, RESOURCES.services, RESOURCES.configmaps, RESOURCES.secrets, RESOURCES.persistentvolumeclaims,
  RESOURCES.replicationcontrollers, RESOURCES.resourcequotas, RESOURCES.deployments, RESOURCES.replicasets,
  RESOURCES.statefulsets, RESOURCES.daemonsets, RESOURCES.jobs, RESOURCES.cronjobs,
];

const typeOf = (r: ResourceRef) => ({ group: r.group, plural: r.resource, kind: r.kind });
const sameNumbers = (a: Record<string, string> | undefined, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b).sort());

class ResourceQuotaController extends KeyedController {
  private readonly quotas: SharedInformer;
  private readonly counted: [ResourceRef, SharedInformer][];

  constructor(private readonly ctx: ControllerContext) {
    super("resourcequota");
    this.quotas = ctx.factory.informerFor(RESOURCES.resourcequotas);
    this.quotas.addEventHandler({ add: this.enqueue, update: (_, cur) => this.enqueue(cur) });
    this.counted = COUNTED.map((r) => [r, ctx.factory.informerFor(r)]);
    // any change to a counted object may change its namespace's usage
    const recount = (o: Obj | DeletedFinalStateUnknown) => {
      const ns = (o instanceof DeletedFinalStateUnknown ? o.obj : o).metadata?.namespace;
      for (const q of this.quotas.store.list()) if (q.metadata.namespace === ns) this.enqueue(q);
    };
    for (const [, inf] of this.counted) inf.addEventHandler({ add: recount, update: (_, cur) => recount(cur), delete: recount });
  }

  protected async sync(key: string): Promise<void> {
    const quota = this.quotas.store.get(key);
    if (!quota || quota.metadata.deletionTimestamp) return;
    const hard: Record<string, string> = quota.spec?.hard ?? {};
    const used: Usage = Object.fromEntries(Object.keys(hard).map((r) => [r, 0]));
    for (const [ref, inf] of this.counted) {
      for (const o of inf.store.list()) {
        if (o.metadata.namespace !== quota.metadata.namespace || !inScope(quota, typeOf(ref), o)) continue;
        for (const [r, n] of Object.entries(usageOf(typeOf(ref), o))) if (r in hard) used[r] += n;
      }
    }
    const status = { hard: { ...hard }, used: Object.fromEntries(Object.entries(used).map(([r, n]) => [r, formatQuantity(n)])) };
    if (sameNumbers(quota.status?.hard, status.hard) && sameNumbers(quota.status?.used, status.used)) return;
    // resourceVersion kept: a status written meanwhile (by the admission plugin) conflicts, and the retry recounts
    await this.ctx.client.update(RESOURCES.resourcequotas, { ...quota, status }, { subresource: "status" });
  }
}

export const initResourceQuotaController: ControllerInit = (ctx) => new ResourceQuotaController(ctx);
