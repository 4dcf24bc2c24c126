// Defaults of the apps/v1 workloads.
import type { Obj } from "../registry/types.ts";
import { child, fill, fillZero, items } from "./fill.ts";
import { defaultPodTemplate } from "./pod.ts";
import { defaultClaim } from "./volumes.ts";

/** A strategy of type `rolling` (set when the type is unset) gets its rollingUpdate parameters. */
function rollingStrategy(strategy: Obj, rolling: string, params: Obj): void {
  fillZero(strategy, { type: rolling });
  if (strategy.type === rolling) fill(child(strategy, "rollingUpdate"), params);
}

export function defaultDeployment(d: Obj): void {
  const sp = child(d, "spec");
  fill(sp, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
  rollingStrategy(child(sp, "strategy"), "RollingUpdate", { maxUnavailable: "25%", maxSurge: "25%" });
  defaultPodTemplate(sp.template);
}

export function defaultReplicaSet(rs: Obj): void {
  const sp = child(rs, "spec");
  fill(sp, { replicas: 1 });
  defaultPodTemplate(sp.template);
}

export function defaultStatefulSet(ss: Obj): void {
  const sp = child(ss, "spec");
  fill(sp, { replicas: 1, revisionHistoryLimit: 10 });
  fillZero(sp, { podManagementPolicy: "OrderedReady" });
  const strategy = child(sp, "updateStrategy");
  // Only a defaulted type brings its own rollingUpdate; one the writer named keeps what it was given.
  if (!strategy.type) Object.assign(strategy, { type: "RollingUpdate", rollingUpdate: {} });
  const rolling = strategy.type === "RollingUpdate" && strategy.rollingUpdate;
  if (rolling && typeof rolling === "object") fill(rolling, { partition: 0 });
  defaultPodTemplate(sp.template);
  items(sp, "volumeClaimTemplates").forEach(defaultClaim);
}

// maxSurge is defaulted only from v1.22 (the DaemonSetUpdateSurge gate is alpha and off in v1.21).
export function defaultDaemonSet(ds: Obj): void {
  const sp = child(ds, "spec");
  fill(sp, { revisionHistoryLimit: 10 });
  rollingStrategy(child(sp, "updateStrategy"), "RollingUpdate", { maxUnavailable: 1 });
  defaultPodTemplate(sp.template);
}
