// The eviction manager, as upstream's kubelet runs it: every period it observes the signals, finds the
// thresholds met (hard ones at once, soft ones once held for their grace period; a met threshold stays met
// until its minimum reclaim is back), keeps the node's pressure conditions on for
// --eviction-pressure-transition-period after the last breach, and evicts one pod per period, ranked as
// upstream ranks them for the starved resource. Under pressure it also refuses new pods (admit).
import { thresholdValue, type Signal, type Threshold } from "../config/thresholds.ts";
import { binaryQuantity, type Obj } from "../node.ts";
import { qosClass } from "../podstatus.ts";
import { quantityValue } from "../../scheduler/framework/resource.ts";
import type { Observations } from "./signals.ts";

export type PressureCondition = "MemoryPressure" | "DiskPressure" | "PIDPressure";

/** Which condition and which resource each signal stands for (upstream's signalToNodeCondition/Resource). */
const SIGNAL: Record<Signal, { condition: PressureCondition; resource: string }> = {
  "memory.available": { condition: "MemoryPressure", resource: "memory" },
  "allocatableMemory.available": { condition: "MemoryPressure", resource: "memory" },
  "nodefs.available": { condition: "DiskPressure", resource: "ephemeral-storage" },
  "nodefs.inodesFree": { condition: "DiskPressure", resource: "inodes" },
  "imagefs.available": { condition: "DiskPressure", resource: "ephemeral-storage" },
  "imagefs.inodesFree": { condition: "DiskPressure", resource: "inodes" },
  "pid.available": { condition: "PIDPressure", resource: "pids" },
};

/** A pod the manager may evict, with what it uses. */
export interface Candidate { pod: Obj; memoryBytes: number; containerMemory: Map<string, number> }

export interface EvictionOptions {
  hard: Threshold[];
  soft: Threshold[];
  pressureTransitionPeriodMs: number;
  maxPodGracePeriodSeconds: number;
}

export interface Decision { pod: Obj; message: string; gracePeriodSeconds: number }

/** Static and mirror pods and system-critical priorities are never evicted (upstream's IsCriticalPod). */
export const isCritical = (pod: Obj) =>
  ["file", "http"].includes(pod.metadata?.annotations?.["kubernetes.io/config.source"]) ||
  pod.metadata?.annotations?.["kubernetes.io/config.mirror"] !== undefined ||
  (pod.spec?.priority ?? 0) >= 2_000_000_000;

const memoryRequest = (c: Obj) => quantityValue(c.resources?.requests?.memory);
const podMemoryRequest = (pod: Obj) => (pod.spec.containers ?? []).reduce((n: number, c: Obj) => n + memoryRequest(c), 0);

/** A byte count as the message prints it: Ki, as upstream's Quantity prints usage. */
const ki = (bytes: number) => `${Math.ceil(bytes / 1024)}Ki`;

export class EvictionManager {
  private readonly firstObserved = new Map<Threshold, number>();
  private readonly lastMet = new Set<Threshold>();
  private readonly conditionSeen = new Map<PressureCondition, number>();

  constructor(private readonly o: EvictionOptions, private readonly now = Date.now) {}

  /** The pressure conditions on now. */
  conditions(): Set<PressureCondition> {
    const t = this.now();
    return new Set([...this.conditionSeen].filter(([, at]) => t - at < this.o.pressureTransitionPeriodMs).map(([c]) => c));
  }

  /** Upstream's eviction admission: under pressure, only critical pods (and non-BestEffort ones under memory pressure alone) start. */
  admit(pod: Obj): { reason: string; message: string } | undefined {
    const on = [...this.conditions()];
    if (!on.length || isCritical(pod)) return undefined;
    if (on.length === 1 && on[0] === "MemoryPressure" && qosClass(pod.spec) !== "BestEffort") return undefined;
    return { reason: "Evicted", message: `The node had condition: [${on.join(", ")}]. ` };
  }

  private met(t: Threshold, obs: Observations): boolean {
    const o = obs[t.signal];
    if (!o) return false;
    let limit = thresholdValue(t, o.capacity);
    // a threshold met last time stays met until the minimum reclaim is back too
    if (this.lastMet.has(t) && t.minimumReclaim) limit += thresholdValue(t.minimumReclaim, o.capacity);
    return o.available < limit;
  }

  /**
   * One round: the thresholds met, the conditions, and the pod to evict if any (the candidates exclude
   * pods already stopping). Returns undefined when nothing is to be evicted.
   */
  synchronize(obs: Observations, candidates: Candidate[]): Decision | undefined {
    const t = this.now();
    const met = [...this.o.hard, ...this.o.soft].filter((th) => this.met(th, obs));
    this.lastMet.clear();
    for (const th of met) this.lastMet.add(th);
    for (const th of [...this.firstObserved.keys()]) if (!met.includes(th)) this.firstObserved.delete(th);
    for (const th of met) if (!this.firstObserved.has(th)) this.firstObserved.set(th, t);
    for (const th of met) this.conditionSeen.set(SIGNAL[th.signal].condition, t);

    const due = met.filter((th) => th.gracePeriodMs === undefined || t - this.firstObserved.get(th)! >= th.gracePeriodMs);
    if (!due.length) return undefined;
    // hard thresholds first, as upstream sorts them
    const th = due.find((x) => x.gracePeriodMs === undefined) ?? due[0];
    const { resource } = SIGNAL[th.signal];
    const ranked = rank(resource, candidates.filter((c) => !isCritical(c.pod)));
    if (!ranked.length) return undefined;
    const victim = ranked[0];
    const o = obs[th.signal]!;
    let message = `The node was low on resource: ${resource}. Threshold quantity: ${quantityText(th, o.capacity, resource)}, available: ${amountText(o.available, resource)}. `;
    if (resource === "memory") {
      for (const c of victim.pod.spec.containers ?? []) {
        const used = victim.containerMemory.get(c.name) ?? 0;
        if (used > memoryRequest(c)) message += `Container ${c.name} was using ${ki(used)}, which exceeds its request of ${c.resources?.requests?.memory ?? 0}. `;
      }
    }
    const soft = th.gracePeriodMs !== undefined;
    return { pod: victim.pod, message, gracePeriodSeconds: soft ? Math.max(0, this.o.maxPodGracePeriodSeconds) : 0 };
  }
}

const counted = (resource: string) => resource === "inodes" || resource === "pids";
const amountText = (n: number, resource: string) => (counted(resource) ? String(n) : ki(n));
const quantityText = (th: Threshold, capacity: number, resource: string) =>
  counted(resource) ? String(Math.ceil(thresholdValue(th, capacity))) : binaryQuantity(Math.ceil(thresholdValue(th, capacity)));

/**
 * Upstream's ranking for the resource: memory — pods using more than they request first, then lower
 * priority, then the most use above request; every other resource — lower priority first.
 */
export function rank(resource: string, candidates: Candidate[]): Candidate[] {
  const priority = (c: Candidate) => c.pod.spec.priority ?? 0;
  const above = (c: Candidate) => c.memoryBytes - podMemoryRequest(c.pod);
  return [...candidates].sort((a, b) => {
    if (resource === "memory") {
      const ea = above(a) > 0 ? 0 : 1, eb = above(b) > 0 ? 0 : 1;
      if (ea !== eb) return ea - eb;
    }
    if (priority(a) !== priority(b)) return priority(a) - priority(b);
    return resource === "memory" ? above(b) - above(a) : 0;
  });
}
