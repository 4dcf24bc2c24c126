// The pvc-protection controller (upstream v1.21's): a PersistentVolumeClaim being deleted keeps its
// kubernetes.io/pvc-protection finalizer while a scheduled pod that has not finished names it in a volume.
import type { Obj } from "../client/client.ts";
import { DeletedFinalStateUnknown } from "../client/store.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { KeyedController, keyOf, type ControllerContext, type ControllerInit } from "./framework.ts";
import { reconcileFinalizer } from "./volumeprotection.ts";

const FINALIZER = "kubernetes.io/pvc-protection";

/** The claims a pod's volumes name, as `namespace/name` keys. */
const claimsOf = (pod: Obj): string[] =>
  (pod.spec?.volumes ?? []).flatMap((v: Obj) => (v.persistentVolumeClaim?.claimName ? [`${pod.metadata.namespace}/${v.persistentVolumeClaim.claimName}`] : []));
const finished = (pod: Obj) => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

class PvcProtectionController extends KeyedController {
  private readonly claims: SharedInformer;
  private readonly pods: SharedInformer;

  constructor(private readonly ctx: ControllerContext) {
    super("pvc-protection");
    this.claims = ctx.factory.informerFor(RESOURCES.persistentvolumeclaims);
    this.pods = ctx.factory.informerFor(RESOURCES.pods);
    this.claims.addEventHandler({ add: this.enqueue, update: (_, cur) => this.enqueue(cur) });
    // a pod that ends or goes may free its claims
    const podChanged = (pod: Obj) => { for (const key of claimsOf(pod)) this.queue.add(key); };
    this.pods.addEventHandler({ update: (_, cur) => podChanged(cur), delete: (pod) => podChanged(pod instanceof DeletedFinalStateUnknown ? pod.obj : pod) });
  }

  protected async sync(key: string): Promise<void> {
    const claim = this.claims.store.get(key);
    if (!claim) return;
    const inUse = () => this.pods.store.list().some((p: Obj) => p.spec?.nodeName && !finished(p) && claimsOf(p).includes(keyOf(claim)));
    await reconcileFinalizer(this.ctx.client, RESOURCES.persistentvolumeclaims, claim, FINALIZER, inUse);
  }
}

export const initPvcProtectionController: ControllerInit = (ctx) => new PvcProtectionController(ctx);
