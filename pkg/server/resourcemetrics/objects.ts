// metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, computed on each read from the node agents (as
// metrics-server serves them): usage over the window between two scrapes of each Ready node, labels of
// the Node or Pod they describe. A node that cannot be read is left out, as are pods not all of whose
// containers were in both scrapes.
import type { KubeletClient } from "../../api/handlers/podlog.ts";
import type { ResourceStore } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";
import { formatDuration } from "../../util/duration.ts";
import { type Pair, NodeSampler } from "./sampler.ts";
import type { Point } from "./scrape.ts";

const API_VERSION = "metrics.k8s.io/v1beta1";
const iso = (t: number) => new Date(t).toISOString().replace(/\.\d+Z$/, "Z");

/** Nanocores as a Quantity in the largest exact unit (what Go's canonical form of a -9 scale prints). */
export function cpuQuantity(nanoCores: number): string {
  const n = Math.max(0, Math.round(nanoCores));
  if (n % 1e9 === 0) return String(n / 1e9);
  if (n % 1e6 === 0) return `${n / 1e6}m`;
  if (n % 1e3 === 0) return `${n / 1e3}u`;
  return `${n}n`;
}

/** Bytes as a binary-SI Quantity: Ki, Mi, Gi when exact, else the number. */
export function memoryQuantity(bytes: number): string {
  let n = Math.max(0, Math.round(bytes));
  for (const unit of ["", "Ki", "Mi", "Gi", "Ti"]) {
    if (n % 1024 !== 0 || n === 0 || unit === "Ti") return `${n}${unit}`;
    n /= 1024;
  }
  return String(n);
}

const usage = (a: Point, b: Point) => ({
  cpu: cpuQuantity(((b.cpuSeconds - a.cpuSeconds) * 1e9) / ((b.t - a.t) / 1000)),
  memory: memoryQuantity(b.workingSetBytes),
});
const valid = (a: Point | undefined, b: Point | undefined): a is Point => !!a && !!b && b.t > a.t && b.cpuSeconds >= a.cpuSeconds && !Number.isNaN(b.workingSetBytes);
const ready = (n: Obj) => (n.status?.conditions ?? []).some((c: Obj) => c.type === "Ready" && c.status === "True");

export class ResourceMetrics {
  private readonly sampler: NodeSampler;

  constructor(private readonly nodes: ResourceStore, private readonly pods: ResourceStore, kubelet: KubeletClient) {
    this.sampler = new NodeSampler(kubelet);
  }

  /** Every Ready node's pair of scrapes (unreadable ones left out). */
  private async pairs(): Promise<{ node: Obj; pair: Pair }[]> {
    const nodes: Obj[] = (await this.nodes.list("")).items.filter(ready);
    this.sampler.keep(new Set(nodes.map((n) => n.metadata.name)));
    const got = await Promise.all(nodes.map(async (node) => {
      try {
        return { node, pair: await this.sampler.pair(node) };
      } catch {
        return undefined;
      }
    }));
    return got.filter((x) => x !== undefined);
  }

  async nodeMetrics(): Promise<Obj[]> {
    const now = iso(Date.now());
    return (await this.pairs()).flatMap(({ node, pair: { base, cur } }) => {
      if (!valid(base.node, cur.node)) return [];
      return [{
        kind: "NodeMetrics", apiVersion: API_VERSION,
        metadata: { name: node.metadata.name, creationTimestamp: now, ...(node.metadata.labels ? { labels: node.metadata.labels } : {}) },
        timestamp: iso(cur.node!.t), window: formatDuration(Math.round(cur.node!.t - base.node.t)), usage: usage(base.node, cur.node!),
      }];
    });
  }

  /** The PodMetrics of namespace `ns` ("" for all). */
  async podMetrics(ns: string): Promise<Obj[]> {
    const now = iso(Date.now());
    const [pairs, pods] = await Promise.all([this.pairs(), this.pods.list(ns)]);
    const out: Obj[] = [];
    for (const pod of pods.items as Obj[]) {
      const m = pod.metadata, pair = pairs.find((p) => p.node.metadata.name === pod.spec?.nodeName)?.pair;
      if (!pair || pod.status?.phase !== "Running") continue;
      const containers: Obj[] = [];
      let window = 0, t = 0;
      for (const c of pod.spec.containers ?? []) {
        const key = `${m.namespace}/${m.name}/${c.name}`, a = pair.base.containers.get(key), b = pair.cur.containers.get(key);
        if (!valid(a, b)) break;
        containers.push({ name: c.name, usage: usage(a, b!) });
        window = Math.max(window, b!.t - a.t);
        t = Math.max(t, b!.t);
      }
      if (containers.length !== (pod.spec.containers ?? []).length) continue;
      out.push({
        kind: "PodMetrics", apiVersion: API_VERSION,
        metadata: { name: m.name, namespace: m.namespace, creationTimestamp: now, ...(m.labels ? { labels: m.labels } : {}) },
        timestamp: iso(t), window: formatDuration(Math.round(window)), containers,
      });
    }
    return out;
  }
}
