// The ttl-after-finished controller (upstream v1.21's, TTLAfterFinished beta, on by default): a finished
// Job with spec.ttlSecondsAfterFinished is deleted that many seconds after its Complete or Failed
// condition's transition, with foreground propagation (its pods go first) and the uid read back from the
// server as a precondition, so a job recreated under the same name is not taken for it.
import { consola } from "consola";
import { isNotFound, type Obj } from "../client/client.ts";
import { RESOURCES } from "../client/resources.ts";
import type { SharedInformer } from "../client/informer.ts";
import { KeyedController, keyOf, splitKey, type ControllerContext, type ControllerInit } from "./framework.ts";
import { finishedCondition } from "./jobstate.ts";

const needsCleanup = (job: Obj) => job.spec?.ttlSecondsAfterFinished != null && finishedCondition(job) !== undefined;

export class TTLAfterFinishedController extends KeyedController {
  private readonly jobs: SharedInformer;

  constructor(private readonly ctx: ControllerContext, private readonly now: () => number = Date.now) {
    super("ttl-after-finished", Number.POSITIVE_INFINITY);
    this.jobs = ctx.factory.informerFor(RESOURCES.jobs);
    const consider = (job: Obj) => { if (!job.metadata.deletionTimestamp && needsCleanup(job)) this.enqueue(job); };
    this.jobs.addEventHandler({ add: consider, update: (_, cur) => consider(cur) });
  }

  protected async sync(key: string): Promise<void> {
    const job = this.jobs.store.get(key);
    if (!job || !this.expired(job)) return;
    // the cached TTL may be stale: decide on the server's job
    const { namespace, name } = splitKey(key);
    let fresh: Obj;
    try {
      fresh = await this.ctx.client.get(RESOURCES.jobs, name, { namespace });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (!this.expired(fresh)) return;
    try {
      await this.ctx.client.delete(RESOURCES.jobs, name, { namespace, propagationPolicy: "Foreground", preconditions: { uid: fresh.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** True once the job's TTL has run out; otherwise the job is looked at again when it will have. */
  private expired(job: Obj): boolean {
    if (job.metadata.deletionTimestamp || !needsCleanup(job)) return false;
    const finishedAt = Date.parse(finishedCondition(job)!.lastTransitionTime);
    const now = this.now();
    if (finishedAt > now) consola.warn(`Warning: Found Job ${keyOf(job)} finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred.`);
    const left = finishedAt + job.spec.ttlSecondsAfterFinished * 1000 - now;
    if (left <= 0) return true;
    this.queue.addAfter(keyOf(job), left);
    return false;
  }
}

export const initTTLAfterFinishedController: ControllerInit = (ctx) => new TTLAfterFinishedController(ctx);
