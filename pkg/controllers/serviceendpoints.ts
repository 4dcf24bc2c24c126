// The wiring the endpoint and endpointslice controllers share: a key per Service, queued when the Service
// changes or goes, and when a pod it selects (or selected) appears, changes what its endpoints read, or goes.
import type { Obj } from "../client/client.ts";
import { RESOURCES } from "../client/resources.ts";
import { namespaceIndex, NAMESPACE_INDEX, objectOf, type DeletedFinalStateUnknown, type Store } from "../client/store.ts";
import { servicesOf, servicesToUpdateOnPodChange, TriggerTimeTracker } from "./endpointutil.ts";
import { KeyedController, type ControllerContext } from "./framework.ts";

export abstract class ServiceEndpointsController extends KeyedController {
  protected readonly services: Store;
  protected readonly pods: Store;
  protected readonly triggerTimes = new TriggerTimeTracker();

  constructor(name: string, ctx: ControllerContext) {
    super(name);
    const indexers = { [NAMESPACE_INDEX]: namespaceIndex };
    const services = ctx.factory.informerFor(RESOURCES.services, { indexers });
    const pods = ctx.factory.informerFor(RESOURCES.pods, { indexers });
    this.services = services.store;
    this.pods = pods.store;
    services.addEventHandler({ add: this.enqueue, update: (_, s) => this.enqueue(s), delete: this.enqueue });
    pods.addEventHandler({
      add: (p) => this.enqueueKeys(servicesOf(this.services, p)),
      update: (old, p) => this.enqueueKeys(servicesToUpdateOnPodChange(this.services, old, p)),
      delete: (p: Obj | DeletedFinalStateUnknown) => this.enqueueKeys(servicesOf(this.services, objectOf(p))),
    });
  }

  protected enqueueKeys(keys: string[]): void {
    for (const k of keys) this.queue.add(k);
  }
}
