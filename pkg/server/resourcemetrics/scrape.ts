// One read of a node agent's /metrics/resource (with the kubelet client credentials), as metrics-server
// reads it: the node's and each container's cumulative cpu seconds and working set, each with its time.
import type { KubeletClient } from "../../api/handlers/podlog.ts";
import { agentURL } from "../../registry/podlog.ts";
import type { Obj } from "../../registry/types.ts";

export interface Point { cpuSeconds: number; workingSetBytes: number; t: number }

export interface Scrape {
  /** When it was taken (the node's sample time). */
  t: number;
  node?: Point;
  /** By "namespace/pod/container". */
  containers: Map<string, Point>;
}

/** `name{a="b",...} value [timestamp]`: the families a scrape needs. */
const LINE = /^(\w+)(?:\{(.*)\})?\s+(\S+)(?:\s+(\d+))?$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export function parseResourceMetrics(text: string, now = Date.now()): Scrape {
  const out: Scrape = { t: now, containers: new Map() };
  const point = (m: Map<string, Point>, key: string, t: number) => m.get(key) ?? m.set(key, { cpuSeconds: NaN, workingSetBytes: NaN, t }).get(key)!;
  const nodes = new Map<string, Point>();
  for (const line of text.split("\n")) {
    const m = LINE.exec(line.trim());
    if (!m) continue;
    const [, name, labelText, value, ts] = m;
    const t = ts ? Number(ts) : now;
    const labels = Object.fromEntries([...(labelText ?? "").matchAll(LABEL)].map((l) => [l[1], l[2].replace(/\\(.)/g, "$1")]));
    const target = name.startsWith("node_") ? point(nodes, "", t) : name.startsWith("container_") ? point(out.containers, `${labels.namespace}/${labels.pod}/${labels.container}`, t) : undefined;
    if (!target) continue;
    if (name.endsWith("_cpu_usage_seconds_total")) target.cpuSeconds = Number(value);
    else if (name.endsWith("_memory_working_set_bytes")) target.workingSetBytes = Number(value);
    target.t = Math.max(target.t, t);
  }
  out.node = nodes.get("");
  if (out.node) out.t = out.node.t;
  return out;
}

/** Reads a node's agent; throws when it cannot be reached or answers other than 200. */
export async function scrapeNode(node: Obj, kubelet: KubeletClient): Promise<Scrape> {
  const url = agentURL(node, kubelet.preferredAddressTypes, "/metrics/resource");
  const res = await fetch(url, {
    signal: AbortSignal.timeout(kubelet.timeoutMs),
    tls: { cert: kubelet.cert, key: kubelet.key, ca: kubelet.ca, rejectUnauthorized: !!kubelet.ca },
  } as RequestInit);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return parseResourceMetrics(await res.text());
}
