// One pod on this node: its containers' runners, its status, its stop. The agent creates one per pod uid
// and calls update() for each new version of the pod and terminate() when it is deleted.
import { rfc3339 } from "../client/time.ts";
import type { CrashLoopBackoff } from "./backoff.ts";
import { ContainerRunner } from "./container.ts";
import type { Obj } from "./node.ts";
import { mergeConditions, podConditions, podPhase, qosClass } from "./podstatus.ts";
import type { ProcessRuntime } from "./runtime/runtime.ts";

export interface PodWorkerContext {
  rootDir: string;
  runtime: ProcessRuntime;
  hostIP: string;
  backoff: CrashLoopBackoff;
  /** Called (at most once per tick) when the pod's status may have changed. */
  onStatusChange: (w: PodWorker) => void;
}

export class PodWorker {
  readonly containers: ContainerRunner[] = [];
  readonly startTime = new Date();
  private terminating?: Promise<void>;
  /** Set when the agent evicts the pod: it is Failed with this reason and message from then on. */
  evicted?: { reason: string; message: string };
  private pending = false;

  constructor(public pod: Obj, private readonly ctx: PodWorkerContext) {}

  get uid(): string { return this.pod.metadata.uid; }

  private changed = () => {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => { this.pending = false; this.ctx.onStatusChange(this); });
  };

  start(): void {
    const ctx = { rootDir: this.ctx.rootDir, runtime: this.ctx.runtime, backoff: this.ctx.backoff, onChange: this.changed };
    for (const c of this.pod.spec.containers ?? []) this.containers.push(new ContainerRunner(this.pod, c, ctx));
    const init = this.pod.spec.initContainers ?? [];
    for (const r of this.containers) {
      if (init.length) r.refuse(`the process runtime does not run init containers yet (pod has ${init.length})`);
      else void r.run();
    }
    this.changed();
  }

  /** True once terminate() was called. */
  get stopping(): boolean { return this.terminating !== undefined; }

  /** Stops every container (SIGTERM, SIGKILL after graceMs); resolves when all are gone. */
  terminate(graceMs: number): Promise<void> {
    this.terminating ??= Promise.all(this.containers.map((c) => c.stop(graceMs))).then(() => this.ctx.backoff.forget(`${this.uid}/`));
    return this.terminating;
  }

  /** The status to report, merged over `current` (the pod's status in the API server). */
  status(current: Obj = {}): Obj {
    const statuses = this.containers.map((c) => c.status());
    const phase = this.evicted ? "Failed" : podPhase(this.pod.spec, statuses);
    const now = rfc3339(new Date());
    return {
      phase,
      conditions: mergeConditions(current.conditions ?? [], podConditions(this.pod.spec, statuses, phase), now),
      hostIP: this.ctx.hostIP,
      podIP: this.ctx.hostIP,
      podIPs: [{ ip: this.ctx.hostIP }],
      startTime: current.startTime ?? rfc3339(this.startTime),
      containerStatuses: statuses,
      qosClass: qosClass(this.pod.spec),
      ...this.evicted,
    };
  }
}
