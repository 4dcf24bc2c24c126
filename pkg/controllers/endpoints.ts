// The endpoint controller (upstream's "endpoint"): for every Service with a selector, an Endpoints object of
// the same name whose subsets hold the selected pods' addresses — ready ones, and not-ready ones apart
// (all ready with publishNotReadyAddresses) — on the ports the Service's targetPorts resolve to on each
// pod. Services without a selector keep the Endpoints their owners write; a Service's Endpoints go with it.
import { isNotFound, type Client, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import { RESOURCES } from "../client/resources.ts";
import type { Store } from "../client/store.ts";
import { repackSubsets, type EndpointAddress, type EndpointPort, type EndpointSubset } from "./endpointsubsets.ts";
import {
  findPort, HEADLESS_LABEL, isNamespaceTerminating, isPodReady, LAST_CHANGE_TRIGGER_TIME, podAddress, podsOf, rfc3339Nano,
  semanticEqual, shouldPodBeInEndpoints, shouldSetHostname,
} from "./endpointutil.ts";
import { splitKey, type ControllerContext, type ControllerInit } from "./framework.ts";
import { ServiceEndpointsController } from "./serviceendpoints.ts";

/** Leader-election locks are Endpoints too; they carry this annotation and belong to no Service. */
const LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";

/** The address of a pod in a Service's Endpoints. */
function addressOf(svc: Obj, pod: Obj, ip: string): EndpointAddress {
  const m = pod.metadata;
  const a: EndpointAddress = { ip };
  if (shouldSetHostname(pod, svc)) a.hostname = pod.spec.hostname;
  if (pod.spec?.nodeName) a.nodeName = pod.spec.nodeName;
  a.targetRef = { kind: "Pod", namespace: m.namespace, name: m.name, uid: m.uid, resourceVersion: m.resourceVersion };
  return a;
}

function endpointPort(sp: Obj, port: number): EndpointPort {
  const p: EndpointPort = { port, protocol: sp.protocol ?? "TCP" };
  if (sp.name) p.name = sp.name;
  if (sp.appProtocol) p.appProtocol = sp.appProtocol;
  return p;
}

/** The subsets of a Service's Endpoints from the pods it selects. */
export function subsetsFor(svc: Obj, pods: Obj[]): EndpointSubset[] {
  const publish = !!svc.spec.publishNotReadyAddresses;
  const headlessWithoutPorts = !svc.spec.ports?.length && svc.spec.clusterIP === "None";
  const subsets: EndpointSubset[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publish)) continue;
    const ip = podAddress(svc, pod);
    if (!ip) continue;
    const address = addressOf(svc, pod, ip);
    const add = (ports: EndpointPort[]) => subsets.push(publish || isPodReady(pod) ? { addresses: [address], ports } : { notReadyAddresses: [address], ports });
    if (headlessWithoutPorts) add([]);
    for (const sp of svc.spec.ports ?? []) {
      const port = findPort(pod, sp);
      if (port !== undefined) add([endpointPort(sp, port)]);
    }
  }
  return repackSubsets(subsets);
}

/** The labels the Endpoints carry: the Service's, and the headless mark for a headless Service. */
function labelsFor(svc: Obj): Record<string, string> {
  const labels = { ...svc.metadata.labels };
  if (svc.spec.clusterIP === "None") labels[HEADLESS_LABEL] = "";
  else delete labels[HEADLESS_LABEL];
  return labels;
}

class EndpointController extends ServiceEndpointsController {
  private readonly client: Client;
  private readonly endpoints: Store;
  private readonly recorder: EventRecorder;

  constructor(ctx: ControllerContext) {
    super("endpoint", ctx);
    this.client = ctx.client;
    this.recorder = ctx.events.newRecorder("endpoint-controller");
    const endpoints = ctx.factory.informerFor(RESOURCES.endpoints);
    this.endpoints = endpoints.store;
    // Endpoints deleted by someone else come back at once.
    endpoints.addEventHandler({ delete: this.enqueue });
  }

  /** Endpoints left from Services deleted while no controller ran are synced (and so deleted) at start. */
  override run(workers: number, signal: AbortSignal): Promise<void> {
    for (const ep of this.endpoints.values()) if (!ep.metadata.annotations?.[LEADER_ANNOTATION]) this.enqueue(ep);
    return super.run(workers, signal);
  }

  protected async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = this.services.get(key);
    if (!svc) {
      this.triggerTimes.forget(key);
      await this.client.delete(RESOURCES.endpoints, name, { namespace }).catch((e) => { if (!isNotFound(e)) throw e; });
      return;
    }
    if (svc.spec?.selector == null) return;
    const pods = podsOf(this.pods, svc);
    const trigger = this.triggerTimes.compute(svc, pods);
    const subsets = subsetsFor(svc, pods);
    const current = this.endpoints.get(key);
    const labels = labelsFor(svc);
    if (current) {
      const { [HEADLESS_LABEL]: _, ...currentLabels } = current.metadata.labels ?? {};
      const { [HEADLESS_LABEL]: __, ...serviceLabels } = svc.metadata.labels ?? {};
      if (semanticEqual(current.subsets, subsets) && semanticEqual(currentLabels, serviceLabels)) return;
    }
    const annotations = { ...current?.metadata.annotations };
    if (trigger) annotations[LAST_CHANGE_TRIGGER_TIME] = rfc3339Nano(trigger);
    else delete annotations[LAST_CHANGE_TRIGGER_TIME];
    const metadata = { ...current?.metadata, name, namespace, labels, annotations };
    const body = { apiVersion: "v1", kind: "Endpoints", metadata, subsets };
    try {
      if (current) await this.client.update(RESOURCES.endpoints, body);
      else await this.client.create(RESOURCES.endpoints, body);
    } catch (e) {
      // A namespace being deleted takes its Services with it: nothing to retry.
      if (!current && isNamespaceTerminating(e)) return;
      const [reason, action, note] = current
        ? ["FailedToUpdateEndpoint", "Update", `Failed to update endpoint ${key}: ${(e as Error).message}`]
        : ["FailedToCreateEndpoint", "Create", `Failed to create endpoint for service ${key}: ${(e as Error).message}`];
      this.recorder.event(svc, undefined, "Warning", reason, action, note);
      throw e;
    }
  }
}

export const startEndpointController: ControllerInit = (ctx) => new EndpointController(ctx);
