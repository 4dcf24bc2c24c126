// What every controller of `kite controller-manager` shares: its context (an API client, shared informers,
// event recording) and upstream's keyed work loop — informer events enqueue an object's key, workers sync
// one key at a time, a failed sync is retried with the default controller rate limiter and dropped after
// `maxRetries` (the next event about the object queues it again).
import { consola } from "consola";
import type { Client, Obj } from "../client/client.ts";
import type { EventBroadcaster } from "../client/events.ts";
import type { InformerFactory } from "../client/informer.ts";
import { DeletedFinalStateUnknown } from "../client/store.ts";
import { WorkQueue } from "../client/workqueue.ts";

/** Settings of single controllers, from the manager's flags. */
export interface ControllerOptions {
  /** --terminated-pod-gc-threshold: finished pods kept before podgc deletes the oldest (≤ 0: none deleted). */
  terminatedPodGCThreshold: number;
}

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = { terminatedPodGCThreshold: 12500 };

export interface ControllerContext {
  client: Client;
  options: ControllerOptions;
  /** Informers made here are started (and synced) by the manager before any controller runs. */
  factory: InformerFactory;
  events: EventBroadcaster;
}

export interface Controller {
  readonly name: string;
  /** Runs `workers` sync loops until `signal` aborts. */
  run(workers: number, signal: AbortSignal): Promise<void>;
}

/** Builds a controller: it makes its informers and registers its handlers, nothing more. */
export type ControllerInit = (ctx: ControllerContext) => Controller;

/** `namespace/name`, or `name` for a cluster-scoped object (upstream's MetaNamespaceKeyFunc). */
export function keyOf(obj: Obj): string {
  const o = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

/** The namespace and name of a key. */
export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf("/");
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export abstract class KeyedController implements Controller {
  protected readonly queue = new WorkQueue<string>();

  constructor(readonly name: string, protected readonly maxRetries = 15) {}

  /** Brings the world in line with the object of `key` (which may be gone). A throw retries the key. */
  protected abstract sync(key: string): Promise<void>;

  /** Queues an object's key (an informer handler's argument, tombstones included). */
  readonly enqueue = (obj: Obj): void => this.queue.add(keyOf(obj));

  async run(workers: number, signal: AbortSignal): Promise<void> {
    signal.addEventListener("abort", () => this.queue.shutDown(), { once: true });
    await Promise.all(Array.from({ length: Math.max(1, workers) }, () => this.worker()));
  }

  private async worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.sync(key);
        this.queue.forget(key);
      } catch (e) {
        if (this.queue.numRequeues(key) < this.maxRetries) {
          consola.warn(`${this.name}: error syncing ${JSON.stringify(key)}, requeuing: ${(e as Error).message}`);
          this.queue.addRateLimited(key);
        } else {
          consola.warn(`${this.name}: dropping ${JSON.stringify(key)} out of the queue: ${(e as Error).message}`);
          this.queue.forget(key);
        }
      } finally {
        this.queue.done(key);
      }
    }
  }
}
