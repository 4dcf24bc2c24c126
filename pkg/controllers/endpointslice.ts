// The endpointslice controller (upstream's "endpointslice", discovery.k8s.io/v1): for every Service with a
// selector, EndpointSlices labelled kubernetes.io/service-name and managed-by endpointslice-controller.k8s.io,
// owned by the Service (so that they go with it), of at most --max-endpoints-per-slice endpoints each, one
// per selected pod with its conditions (ready, serving, terminating) and topology (node, zone).
import { isNotFound, type Client, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES } from "../client/resources.ts";
import { objectOf, type DeletedFinalStateUnknown, type Store } from "../client/store.ts";
import { CONTROLLER_NAME, MANAGED_BY_LABEL, reconcileSlices, SERVICE_NAME_LABEL, type SlicePlan } from "./endpointslice-reconciler.ts";
import { SliceTracker } from "./endpointslice-tracker.ts";
import { podsOf } from "./endpointutil.ts";
import type { ControllerContext, ControllerInit } from "./framework.ts";
import { ServiceEndpointsController } from "./serviceendpoints.ts";

const SERVICE_INDEX = "service";
const isManaged = (s: Obj) => s.metadata.labels?.[MANAGED_BY_LABEL] === CONTROLLER_NAME && !!s.metadata.labels?.[SERVICE_NAME_LABEL];
const serviceKeyOf = (s: Obj) => `${s.metadata.namespace}/${s.metadata.labels[SERVICE_NAME_LABEL]}`;

class EndpointSliceController extends ServiceEndpointsController {
  private readonly client: Client;
  private readonly slices: Store;
  private readonly nodes: Store;
  private readonly recorder: EventRecorder;
  private readonly tracker = new SliceTracker();

  constructor(ctx: ControllerContext, private readonly max: number) {
    super("endpointslice", ctx);
    this.client = ctx.client;
    this.recorder = ctx.events.newRecorder("endpointslice-controller");
    this.nodes = ctx.factory.informerFor(RESOURCES.nodes).store;
    const slices = ctx.factory.informerFor(RESOURCES.endpointslices, { indexers: { [SERVICE_INDEX]: (s) => (isManaged(s) ? [serviceKeyOf(s)] : []) } });
    this.slices = slices.store;
    const changed = (s: Obj) => { if (isManaged(s) && this.tracker.shouldSync(serviceKeyOf(s), s)) this.queue.add(serviceKeyOf(s)); };
    slices.addEventHandler({
      add: changed,
      update: (_, s) => changed(s),
      delete: (o: Obj | DeletedFinalStateUnknown) => {
        const s = objectOf(o);
        if (isManaged(s) && !this.tracker.handleDeletion(serviceKeyOf(s), s)) this.queue.add(serviceKeyOf(s));
      },
    });
  }

  protected async sync(key: string): Promise<void> {
    const svc = this.services.get(key);
    if (!svc) {
      // The Service's slices go with it (the garbage collector, by their owner reference).
      this.triggerTimes.forget(key);
      this.tracker.forgetService(key);
      return;
    }
    if (svc.spec?.selector == null) return;
    const existing = this.slices.byIndex(SERVICE_INDEX, key).filter((s) => !s.metadata.deletionTimestamp);
    if (this.tracker.stale(key, this.slices.byIndex(SERVICE_INDEX, key))) throw new Error("EndpointSlice informer cache is out of date");
    const pods = podsOf(this.pods, svc);
    const triggerTime = this.triggerTimes.compute(svc, pods);
    const plan = reconcileSlices({ svc, pods, node: (n) => this.nodes.get(n), existing, max: this.max, triggerTime });
    try {
      await this.apply(key, svc, plan);
    } catch (e) {
      this.recorder.event(svc, undefined, "Warning", "FailedToUpdateEndpointSlices", "Update", `Error updating Endpoint Slices for Service ${key}: ${(e as Error).message}`);
      throw e;
    }
  }

  /** Creates (not for a Service being deleted), updates, then deletes; the first failure is thrown after all were tried. */
  private async apply(key: string, svc: Obj, plan: SlicePlan): Promise<void> {
    const errors: unknown[] = [];
    const attempt = async (f: () => Promise<void>) => { try { await f(); } catch (e) { errors.push(e); } };
    if (!svc.metadata.deletionTimestamp) {
      for (const s of plan.create) await attempt(async () => this.tracker.wrote(key, await this.client.create(RESOURCES.endpointslices, s)));
    }
    for (const s of plan.update) await attempt(async () => this.tracker.wrote(key, await this.client.update(RESOURCES.endpointslices, s)));
    for (const s of plan.delete) {
      await attempt(async () => {
        await this.client.delete(RESOURCES.endpointslices, s.metadata.name, { namespace: s.metadata.namespace, preconditions: { uid: s.metadata.uid } })
          .catch((e) => { if (!isNotFound(e)) throw e; });
        this.tracker.deleted(key, s);
      });
    }
    if (errors.length) throw errors[0];
  }
}

export const startEndpointSliceController: ControllerInit = (ctx) => new EndpointSliceController(ctx, ctx.options.maxEndpointsPerSlice);
