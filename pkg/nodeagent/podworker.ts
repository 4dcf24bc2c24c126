// One pod on this node: its init containers run one after another, each to completion, then its
// containers together; its status; its stop. The agent creates one per pod uid and calls terminate()
// when the pod is deleted.
import { rfc3339 } from "../client/time.ts";
import type { CrashLoopBackoff } from "./backoff.ts";
import { ContainerRunner } from "./container.ts";
import type { Obj } from "./node.ts";
import { mergeConditions, podConditions, podPhase, qosClass } from "./podstatus.ts";

export interface PodWorkerContext {
  rootDir: string;
  hostIP: string;
  backoff: CrashLoopBackoff;
  /** Called (at most once per tick) when the pod's status may have changed. */
  onStatusChange: (w: PodWorker) => void;
}

export class PodWorker {
  readonly initContainers: ContainerRunner[] = [];
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
    const ctx = { rootDir: this.ctx.rootDir, backoff: this.ctx.backoff, onChange: this.changed, podIP: () => this.ctx.hostIP };
    for (const c of this.pod.spec.initContainers ?? []) this.initContainers.push(new ContainerRunner(this.pod, c, ctx, true));
    for (const c of this.pod.spec.containers ?? []) this.containers.push(new ContainerRunner(this.pod, c, ctx));
    // no status yet: the containers' first change (running, and ready after a first readiness probe,
    // within milliseconds) makes the first one, so that a new pod costs one status write, not two
    void this.run();
  }

  /** Init containers in order, each until it succeeded (a failure under restartPolicy Never fails the pod), then the containers. */
  private async run(): Promise<void> {
    for (const r of this.initContainers) {
      await r.run();
      if (this.terminating || !r.succeeded) return;
    }
    if (this.terminating) return;
    for (const r of this.containers) void r.run();
  }

  /** True once terminate() was called. */
  get stopping(): boolean { return this.terminating !== undefined; }

  /** Stops every container (preStop, SIGTERM, SIGKILL after graceMs); resolves when all are gone. */
  terminate(graceMs: number): Promise<void> {
    this.terminating ??= Promise.all([...this.initContainers, ...this.containers].map((c) => c.stop(graceMs))).then(() => this.ctx.backoff.forget(`${this.uid}/`));
    return this.terminating;
  }

  /** The status to report, merged over `current` (the pod's status in the API server). */
  status(current: Obj = {}): Obj {
    const initStatuses = this.initContainers.map((c) => c.status());
    // upstream sorts containerStatuses by name; init containers keep the spec's order
    const statuses = this.containers.map((c) => c.status()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const phase = this.evicted ? "Failed" : podPhase(this.pod.spec, [...statuses, ...initStatuses]);
    const now = rfc3339(new Date());
    const conditions = current.conditions ?? [];
    const status: Obj = {
      phase,
      conditions: mergeConditions(conditions, podConditions(this.pod.spec, initStatuses, statuses, phase, conditions), now),
      hostIP: this.ctx.hostIP,
      podIP: this.ctx.hostIP,
      podIPs: [{ ip: this.ctx.hostIP }],
      startTime: current.startTime ?? rfc3339(this.startTime),
    };
    if (initStatuses.length) status.initContainerStatuses = initStatuses;
    status.containerStatuses = statuses;
    status.qosClass = qosClass(this.pod.spec);
    return { ...status, ...this.evicted };
  }
}
