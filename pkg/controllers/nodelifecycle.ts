// The node lifecycle controller (upstream v1.21's, taint-based evictions): every --node-monitor-period it
// looks at each node's Ready heartbeat and Lease (kube-node-lease); a node silent beyond
// --node-monitor-grace-period (--node-startup-grace-period before it ever posted Ready) gets its conditions
// Unknown ("Kubelet stopped posting node status.") and its pods marked not Ready; then, as its zone's
// disruption allows, its not-ready/unreachable NoExecute taint follows its Ready condition, and the taint
// manager evicts the pods that do not tolerate it. On every change of a node its NoSchedule condition taints
// are kept (and a NoExecute one removed once it is Ready).
import { consola } from "consola";
import { isConflict, isNotFound, type Obj } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { objectOf, type DeletedFinalStateUnknown } from "../client/store.ts";
import { rfc3339 } from "../client/time.ts";
import { keyOf, KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";
import { TaintEvictions } from "./nodelifecycle-eviction.ts";
import { conditionOf, NodeHealth, unknownConditions } from "./nodelifecycle-health.ts";
import { noExecuteTaints, reconcileTaints } from "./nodelifecycle-taints.ts";
import { disruption, type Disruption, type NoExecutePolicy } from "./nodelifecycle-zones.ts";

const NODE_LEASE_NAMESPACE = "kube-node-lease";
const NODE_NAME_INDEX = "nodeName";

export class NodeLifecycleController extends KeyedController {
  private readonly nodes: SharedInformer;
  private readonly leases: SharedInformer;
  private readonly pods: SharedInformer;
  private readonly health: NodeHealth;
  private readonly evictions: TaintEvictions;
  private readonly recorder: EventRecorder;
  /** The zones' disruption as the last monitor pass found it (to notice its changes). */
  private zones: Disruption = disruption([]);

  constructor(private readonly ctx: ControllerContext) {
    super("nodelifecycle");
    const o = ctx.options;
    this.health = new NodeHealth({ monitorMs: o.nodeMonitorGracePeriodMs, startupMs: o.nodeStartupGracePeriodMs });
    this.nodes = ctx.factory.informerFor(RESOURCES.nodes);
    this.leases = ctx.factory.informerFor(RESOURCES.leases, { namespace: NODE_LEASE_NAMESPACE });
    this.pods = ctx.factory.informerFor(RESOURCES.pods, { indexers: { [NODE_NAME_INDEX]: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) } });
    this.recorder = ctx.events.newRecorder("node-controller");
    this.evictions = new TaintEvictions(ctx.client, this.recorder);
    const nodeChanged = (node: Obj) => {
      this.enqueue(node);
      const taints = noExecuteTaints(node);
      for (const pod of this.pods.store.byIndex(NODE_NAME_INDEX, node.metadata.name)) this.evictions.consider(pod, taints);
    };
    this.nodes.addEventHandler({
      add: nodeChanged,
      update: (_, cur) => nodeChanged(cur),
      delete: (o: Obj | DeletedFinalStateUnknown) => {
        const node = objectOf(o);
        this.health.forget(node.metadata.name);
        for (const pod of this.pods.store.byIndex(NODE_NAME_INDEX, node.metadata.name)) this.evictions.consider(pod, []);
      },
    });
    const podChanged = (pod: Obj) => {
      if (pod.spec?.nodeName) this.evictions.consider(pod, noExecuteTaints(this.nodes.store.get(pod.spec.nodeName)));
    };
    this.pods.addEventHandler({ add: podChanged, update: (_, cur) => podChanged(cur), delete: (o) => this.evictions.forget(keyOf(o)) });
  }

  override async run(workers: number, signal: AbortSignal): Promise<void> {
    await Promise.all([super.run(workers, signal), this.monitorLoop(signal)]);
    this.evictions.stop();
  }

  /** A pass every --node-monitor-period, one at a time. */
  private async monitorLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.monitor().catch((e) => consola.warn(`nodelifecycle: ${(e as Error).message}`));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.ctx.options.nodeMonitorPeriodMs);
        signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
  }

  /**
   * Upstream's monitorNodeHealth: the nodes silent too long become Unknown; then, with the zones' disruption
   * known, each node's NoExecute taints follow its Ready condition (only here are they added).
   */
  private async monitor(): Promise<void> {
    const nodes = await this.checkHealth();
    const was = this.zones;
    this.zones = disruption(nodes);
    if (this.zones.all !== was.all) consola.info(this.zones.all ? "Controller detected that all Nodes are not-Ready. Entering master disruption mode." : "Controller detected that some Nodes are Ready. Exiting master disruption mode.");
    for (const node of nodes) {
      await this.writeTaints(node, this.zones.policyFor(node)).catch((e) => {
        if (!isConflict(e)) consola.warn(`nodelifecycle: tainting node ${node.metadata.name}: ${(e as Error).message}`);
      });
    }
  }

  /** Every node as it is after the silent ones were made Unknown. */
  private async checkHealth(): Promise<Obj[]> {
    const out: Obj[] = [];
    for (const node of this.nodes.store.list()) {
      out.push(node);
      const lease = this.leases.store.get(`${NODE_LEASE_NAMESPACE}/${node.metadata.name}`);
      if (!this.health.silent(node, lease)) continue;
      const conditions = unknownConditions(node);
      if (!conditions) continue;
      try {
        out[out.length - 1] = await this.ctx.client.update(RESOURCES.nodes, { ...node, status: { ...node.status, conditions } }, { subresource: "status" });
      } catch (e) {
        // the next pass decides on the newer node
        if (!isConflict(e) && !isNotFound(e)) consola.warn(`nodelifecycle: updating node ${node.metadata.name}: ${(e as Error).message}`);
        continue;
      }
      if (conditionOf(node, "Ready")?.status === "True") {
        this.recorder.event(node, undefined, "Normal", "NodeNotReady", "NodeNotReady", `Node ${node.metadata.name} status is now: NodeNotReady`);
        await this.markPodsNotReady(node.metadata.name);
      }
    }
    return out;
  }

  /** Upstream's MarkPodsNotReady: the node's pods are no longer Ready. */
  private async markPodsNotReady(nodeName: string): Promise<void> {
    for (const pod of this.pods.store.byIndex(NODE_NAME_INDEX, nodeName)) {
      const conditions: Obj[] = pod.status?.conditions ?? [];
      if (!conditions.some((c) => c.type === "Ready" && c.status !== "False")) continue;
      const next = conditions.map((c) => (c.type === "Ready" ? { ...c, status: "False", lastTransitionTime: rfc3339(new Date()) } : c));
      try {
        await this.ctx.client.update(RESOURCES.pods, { ...pod, status: { ...pod.status, conditions: next } }, { namespace: pod.metadata.namespace, subresource: "status" });
      } catch (e) {
        if (!isNotFound(e)) consola.warn(`nodelifecycle: marking pod ${keyOf(pod)} not ready: ${(e as Error).message}`);
        continue;
      }
      this.recorder.event(pod, undefined, "Warning", "NodeNotReady", "NodeNotReady", "Node is not ready");
    }
  }

  /** Keeps the node's condition taints on each of its changes; NoExecute ones are only removed here. */
  protected async sync(name: string): Promise<void> {
    const node = this.nodes.store.get(name);
    if (node) await this.writeTaints(node, this.zones.all ? "none" : "hold");
  }

  private async writeTaints(node: Obj, policy: NoExecutePolicy): Promise<void> {
    const taints = reconcileTaints(node, policy);
    if (!taints) return;
    // the resourceVersion makes a patch on a stale node fail (and retry) rather than drop a taint someone added
    const patch = { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } };
    try {
      await this.ctx.client.patch(RESOURCES.nodes, node.metadata.name, patch, "merge");
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export const initNodeLifecycleController: ControllerInit = (ctx) => new NodeLifecycleController(ctx);
