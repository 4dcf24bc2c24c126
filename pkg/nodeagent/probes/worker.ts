// One probe of one run of a container, on one timer: the first probe initialDelaySeconds after the
// container started (upstream probes on its period's ticks from then on, so this is the earliest such
// tick), then every periodSeconds after the previous one began. A result counts once it repeats
// successThreshold (success) or failureThreshold (failure) times in a row, as upstream's worker counts.
import { consola } from "consola";
import type { Obj } from "../node.ts";
import { type ContainerTarget, type ProbeOutcome, runProbe } from "./handler.ts";

export type ProbeType = "liveness" | "readiness" | "startup";

/** A probe's timing with the API server's defaults (a zero means the default, as there). */
export function probeTimings(p: Obj) {
  return {
    initialDelayMs: 1000 * (p.initialDelaySeconds || 0),
    periodMs: 1000 * (p.periodSeconds || 10),
    timeoutMs: 1000 * (p.timeoutSeconds || 1),
    successThreshold: p.successThreshold || 1,
    failureThreshold: p.failureThreshold || 3,
  };
}

const TITLE: Record<ProbeType, string> = { liveness: "Liveness", readiness: "Readiness", startup: "Startup" };

export class ProbeWorker {
  /** upstream's initial results: not ready, alive, not yet started. */
  result: boolean | undefined;
  readonly timing: ReturnType<typeof probeTimings>;
  /** Settles once the first probe has been counted (or the worker stopped before it). */
  readonly firstProbe: Promise<void>;
  private settleFirst!: () => void;
  private timer?: ReturnType<typeof setTimeout>;
  private last?: boolean;
  private run = 0;
  private stopped = true;

  constructor(readonly type: ProbeType, private readonly probe: Obj, private readonly target: ContainerTarget,
    private readonly onResult: (w: ProbeWorker) => void, private readonly probeFn = runProbe) {
    this.timing = probeTimings(probe);
    this.firstProbe = new Promise((resolve) => { this.settleFirst = resolve; });
    this.result = type === "readiness" ? false : type === "liveness" ? true : undefined;
  }

  /** Starts probing: the first probe initialDelaySeconds after `startedAt` (or at once if that is past). */
  start(startedAt: number): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(startedAt + this.timing.initialDelayMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.settleFirst();
  }

  private schedule(at: number): void {
    if (this.stopped) return;
    const delay = at - Date.now();
    // a probe due now starts now: behind a timer it would wait for whatever else this turn of the loop runs
    if (delay <= 0) void this.tick();
    else this.timer = setTimeout(() => void this.tick(), delay);
  }

  private async tick(): Promise<void> {
    const began = Date.now();
    const outcome = await this.probeFn(this.probe, this.target, this.timing.timeoutMs);
    if (this.stopped) return;
    this.count(outcome);
    this.settleFirst();
    this.schedule(began + this.timing.periodMs);
  }

  private count(outcome: ProbeOutcome): void {
    const c = this.target.container.name, p = this.target.pod.metadata;
    if ("error" in outcome) {
      consola.debug(`${TITLE[this.type]} probe errored for ${p.namespace}/${p.name} container ${c}: ${outcome.error}`);
      this.target.record?.("Warning", "Unhealthy", `${TITLE[this.type]} probe errored: ${outcome.error}`);
      return;
    }
    const ok = outcome.result !== "failure";
    // as upstream's prober: every failed probe is an Unhealthy event, not only the one that crosses the threshold
    if (!ok) {
      consola.debug(`${TITLE[this.type]} probe failed for ${p.namespace}/${p.name} container ${c}: ${outcome.output}`);
      this.target.record?.("Warning", "Unhealthy", `${TITLE[this.type]} probe failed: ${outcome.output}`);
    } else if (outcome.result === "warning") this.target.record?.("Warning", "ProbeWarning", `${TITLE[this.type]} probe warning: ${outcome.output}`);
    if (this.last === ok) this.run++;
    else { this.last = ok; this.run = 1; }
    if (this.run < (ok ? this.timing.successThreshold : this.timing.failureThreshold)) return;
    // a failed liveness or startup probe ends this run of the container: nothing more to probe
    if (!ok && this.type !== "readiness") this.stop();
    // a startup probe is done once it succeeded
    if (ok && this.type === "startup") this.stop();
    if (this.result === ok) return;
    this.result = ok;
    this.onResult(this);
  }
}
