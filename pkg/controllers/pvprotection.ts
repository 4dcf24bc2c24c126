// The pv-protection controller (upstream v1.21's): a PersistentVolume being deleted keeps its
// kubernetes.io/pv-protection finalizer while it is bound to a claim.
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";
import { reconcileFinalizer } from "./volumeprotection.ts";

const FINALIZER = "kubernetes.io/pv-protection";

class PvProtectionController extends KeyedController {
  private readonly volumes: SharedInformer;

  constructor(private readonly ctx: ControllerContext) {
    super("pv-protection");
    this.volumes = ctx.factory.informerFor(RESOURCES.persistentvolumes);
    this.volumes.addEventHandler({ add: this.enqueue, update: (_, cur) => this.enqueue(cur) });
  }

  protected async sync(key: string): Promise<void> {
    const pv = this.volumes.store.get(key);
    if (pv) await reconcileFinalizer(this.ctx.client, RESOURCES.persistentvolumes, pv, FINALIZER, () => pv.status?.phase === "Bound");
  }
}

export const initPvProtectionController: ControllerInit = (ctx) => new PvProtectionController(ctx);
