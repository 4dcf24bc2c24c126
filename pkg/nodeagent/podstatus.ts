// A pod's status from its containers' statuses, as upstream's kubelet computes it (getPhase,
// GeneratePod*Condition, GetPodQOS): phase, the four conditions, QoS class. Pure: the pod worker feeds it.
import { parseQuantity } from "../util/quantity.ts";
import type { Obj } from "./node.ts";

/** upstream's getPhase: a restarting container counts as stopped, so a crash-looping Always pod is Running. */
export function podPhase(spec: Obj, statuses: Obj[]): string {
  let waiting = 0, running = 0, stopped = 0, succeeded = 0;
  for (const c of spec.containers ?? []) {
    const s = statuses.find((x) => x.name === c.name);
    if (!s || s.state?.waiting) {
      if (s?.lastState?.terminated) stopped++;
      else waiting++;
    } else if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else waiting++;
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (spec.restartPolicy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    if (spec.restartPolicy === "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

const condition = (type: string, status: boolean, reason?: string, message?: string): Obj => {
  const c: Obj = { type, status: status ? "True" : "False" };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
};

/** Initialized, Ready, ContainersReady (upstream's order; PodScheduled is kept from the pod). */
export function podConditions(spec: Obj, statuses: Obj[], phase: string): Obj[] {
  const initialized = phase === "Succeeded" ? condition("Initialized", true, "PodCompleted") : condition("Initialized", true);
  if (phase === "Succeeded") return [initialized, condition("Ready", false, "PodCompleted"), condition("ContainersReady", false, "PodCompleted")];
  const unready = (spec.containers ?? []).filter((c: Obj) => !statuses.find((s) => s.name === c.name)?.ready).map((c: Obj) => c.name);
  if (!unready.length) return [initialized, condition("Ready", true), condition("ContainersReady", true)];
  const message = `containers with unready status: [${unready.join(" ")}]`;
  return [initialized, condition("Ready", false, "ContainersNotReady", message), condition("ContainersReady", false, "ContainersNotReady", message)];
}

/** Merges fresh conditions into the pod's: a condition keeps its lastTransitionTime while its status holds. */
export function mergeConditions(previous: Obj[], fresh: Obj[], now: string): Obj[] {
  const out: Obj[] = fresh.map((c) => {
    const old = previous.find((p) => p.type === c.type);
    return { ...c, lastProbeTime: null, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now };
  });
  // conditions others own (PodScheduled, readiness gates') are kept as they are
  for (const p of previous) if (!out.some((c) => c.type === p.type)) out.push(p);
  return out;
}

const COMPUTE = ["cpu", "memory"];

/** upstream's GetPodQOS over containers and init containers. */
export function qosClass(spec: Obj): string {
  const requests = new Map<string, number>(), limits = new Map<string, number>();
  let guaranteed = true;
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const req = c.resources?.requests ?? {}, lim = c.resources?.limits ?? {};
    for (const r of COMPUTE) {
      const q = parseQuantity(req[r]);
      if (q !== null && q !== 0) requests.set(r, (requests.get(r) ?? 0) + q);
      const l = parseQuantity(lim[r]);
      if (l !== null && l !== 0) limits.set(r, (limits.get(r) ?? 0) + l);
    }
    if (!COMPUTE.every((r) => { const l = parseQuantity(lim[r]); return l !== null && l !== 0; })) guaranteed = false;
  }
  if (!requests.size && !limits.size) return "BestEffort";
  if (guaranteed && COMPUTE.every((r) => requests.get(r) === undefined || requests.get(r) === limits.get(r))) return "Guaranteed";
  return "Burstable";
}
