// A pod's status from its containers' statuses, as upstream's kubelet computes it (getPhase,
// GeneratePod*Condition, GetPodQOS): phase, the four conditions, QoS class. Pure: the pod worker feeds it.
import { parseQuantity } from "../util/quantity.ts";
import type { Obj } from "./node.ts";

/** The init containers' side of upstream's getPhase: how many are still to finish, and how many failed. */
function initProgress(spec: Obj, statuses: Obj[]): { pending: number; failed: number } {
  let pending = 0, failed = 0;
  for (const c of spec.initContainers ?? []) {
    const s = statuses.find((x) => x.name === c.name);
    const last = s?.lastState?.terminated;
    if (s?.state?.terminated) { if (s.state.terminated.exitCode !== 0) failed++; }
    else if (s?.state?.waiting && last) { if (last.exitCode !== 0) failed++; }
    else pending++;
  }
  return { pending, failed };
}

/**
 * upstream's getPhase over the init and app containers' statuses: a restarting container counts as
 * stopped, so a crash-looping Always pod is Running; a failed init container fails a Never pod and keeps
 * any other Pending.
 */
export function podPhase(spec: Obj, statuses: Obj[]): string {
  const init = initProgress(spec, statuses);
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
  if (init.failed > 0 && spec.restartPolicy === "Never") return "Failed";
  if (init.pending > 0 || waiting > 0) return "Pending";
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

/** Names of `containers` whose status is not ready, and of those without one (upstream's messages). */
function unready(containers: Obj[] = [], statuses: Obj[], word: string): { message: string; unknown: number } {
  const unknown: string[] = [], notReady: string[] = [];
  for (const c of containers) {
    const s = statuses.find((x) => x.name === c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) notReady.push(c.name);
  }
  const parts: string[] = [];
  if (unknown.length) parts.push(`containers with unknown status: [${unknown.join(" ")}]`);
  if (notReady.length) parts.push(`containers with ${word} status: [${notReady.join(" ")}]`);
  return { message: parts.join(", "), unknown: unknown.length };
}

/** upstream's GeneratePodInitializedCondition: every init container done (ready). */
function initializedCondition(spec: Obj, initStatuses: Obj[], phase: string): Obj {
  const u = unready(spec.initContainers, initStatuses, "incomplete");
  if (phase === "Succeeded" && !u.unknown) return condition("Initialized", true, "PodCompleted");
  return u.message ? condition("Initialized", false, "ContainersNotInitialized", u.message) : condition("Initialized", true);
}

/** upstream's GenerateContainersReadyCondition. */
function containersReadyCondition(spec: Obj, statuses: Obj[], phase: string): Obj {
  const u = unready(spec.containers, statuses, "unready");
  if (phase === "Succeeded" && !u.unknown) return condition("ContainersReady", false, "PodCompleted");
  return u.message ? condition("ContainersReady", false, "ContainersNotReady", u.message) : condition("ContainersReady", true);
}

/** upstream's GeneratePodReadyCondition: ContainersReady, then every readiness gate's condition True. */
function readyCondition(spec: Obj, containersReady: Obj, conditions: Obj[]): Obj {
  if (containersReady.status !== "True") return { ...containersReady, type: "Ready" };
  const messages: string[] = [];
  for (const g of spec.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === g.conditionType);
    if (!c) messages.push(`corresponding condition of pod readiness gate "${g.conditionType}" does not exist.`);
    else if (c.status !== "True") messages.push(`the status of pod readiness gate "${g.conditionType}" is not "True", but ${c.status}`);
  }
  return messages.length ? condition("Ready", false, "ReadinessGatesNotReady", messages.join(", ")) : condition("Ready", true);
}

/** Initialized, Ready, ContainersReady (upstream's order; PodScheduled and gates' conditions are kept from `conditions`). */
export function podConditions(spec: Obj, initStatuses: Obj[], statuses: Obj[], phase: string, conditions: Obj[] = []): Obj[] {
  const containersReady = containersReadyCondition(spec, statuses, phase);
  return [initializedCondition(spec, initStatuses, phase), readyCondition(spec, containersReady, conditions), containersReady];
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
