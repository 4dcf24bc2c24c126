// Defaults of pods and of everything that holds a pod spec (core/v1): containers, probes, handlers,
// volumes. Upstream's generated defaulters apply them wherever the type appears; so do these.
import type { Obj } from "../registry/types.ts";
import { child, fill, fillZero, items, sub } from "./fill.ts";
import { defaultPullPolicy } from "./image.ts";
import { defaultFieldRef, defaultVolume } from "./volumes.ts";
import { isMap } from "../util/ismap.ts";

const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"];
const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"];

/** An HTTP GET (a probe's or a lifecycle hook's) asks for `/` over HTTP unless told otherwise. */
function defaultHandler(h: Obj | undefined): void {
  const get = sub(h, "httpGet");
  if (get) fillZero(get, { path: "/", scheme: "HTTP" });
}

function defaultProbe(p: Obj): void {
  fillZero(p, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  defaultHandler(p);
}

function defaultContainer(c: Obj): void {
  // the image is parsed only when the policy is unset: objects read from storage have one
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultPullPolicy(c.image);
  fillZero(c, { terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" });
  child(c, "resources");
  for (const p of items(c, "ports")) fillZero(p, { protocol: "TCP" });
  for (const e of items(c, "env")) defaultFieldRef(sub(e, "valueFrom"));
  for (const k of PROBES) {
    const p = sub(c, k);
    if (p) defaultProbe(p);
  }
  defaultHandler(sub(sub(c, "lifecycle"), "postStart"));
  defaultHandler(sub(sub(c, "lifecycle"), "preStop"));
}

const containersOf = (sp: Obj) => CONTAINER_LISTS.flatMap((k) => items(sp, k));

export function defaultPodSpec(sp: Obj): void {
  fillZero(sp, { dnsPolicy: "ClusterFirst", restartPolicy: "Always", schedulerName: "default-scheduler" });
  fill(sp, { terminationGracePeriodSeconds: 30 });
  child(sp, "securityContext");
  // On the host's network a container's port is the host's port.
  if (sp.hostNetwork === true) {
    for (const c of [...items(sp, "containers"), ...items(sp, "initContainers")]) {
      for (const p of items(c, "ports")) fillZero(p, { hostPort: p.containerPort });
    }
  }
  containersOf(sp).forEach(defaultContainer);
  items(sp, "volumes").forEach(defaultVolume);
}

/** A pod template (spec.template of the workloads, template of PodTemplate). */
export function defaultPodTemplate(t: Obj | undefined): void {
  if (isMap(t)) defaultPodSpec(child(t, "spec"));
}

/** What only Pods get, not pod templates: requests taken from limits, service links on. */
export function defaultPod(pod: Obj): void {
  const sp = child(pod, "spec");
  defaultPodSpec(sp);
  fill(sp, { enableServiceLinks: true });
  for (const c of [...items(sp, "containers"), ...items(sp, "initContainers")]) {
    const res = sub(c, "resources");
    const limits = sub(res, "limits");
    if (res && limits) res.requests = { ...limits, ...(sub(res, "requests") ?? {}) };
  }
}
