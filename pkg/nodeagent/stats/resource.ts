// GET /metrics/resource: the kubelet's resource metrics (v1.21's names and help texts, Prometheus text with
// each sample's timestamp), made from the same reads as the Summary API (./summary.ts).
import type { Obj } from "../node.ts";

type Sample = [labels: Record<string, string>, value: number];

const FAMILIES: [name: string, type: "counter" | "gauge", help: string, of: (s: Obj) => Sample[]][] = [
  ["container_cpu_usage_seconds_total", "counter", "Cumulative cpu time consumed by the container in core-seconds", (s) => containers(s, (c) => c.cpu.usageCoreNanoSeconds / 1e9)],
  ["container_memory_working_set_bytes", "gauge", "Current working set of the container in bytes", (s) => containers(s, (c) => c.memory.workingSetBytes)],
  ["node_cpu_usage_seconds_total", "counter", "Cumulative cpu time consumed by the node in core-seconds", (s) => [[{}, s.node.cpu.usageCoreNanoSeconds / 1e9]]],
  ["node_memory_working_set_bytes", "gauge", "Current working set of the node in bytes", (s) => [[{}, s.node.memory.workingSetBytes]]],
  ["pod_cpu_usage_seconds_total", "counter", "Cumulative cpu time consumed by the pod in core-seconds", (s) => pods(s, (p) => p.cpu.usageCoreNanoSeconds / 1e9)],
  ["pod_memory_working_set_bytes", "gauge", "Current working set of the pod in bytes", (s) => pods(s, (p) => p.memory.workingSetBytes)],
];

function containers(s: Obj, value: (c: Obj) => number): Sample[] {
  return s.pods.flatMap((p: Obj) => p.containers.map((c: Obj): Sample => [{ container: c.name, namespace: p.podRef.namespace, pod: p.podRef.name }, value(c)]));
}

function pods(s: Obj, value: (p: Obj) => number): Sample[] {
  return s.pods.map((p: Obj): Sample => [{ namespace: p.podRef.namespace, pod: p.podRef.name }, value(p)]);
}

const escape = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const labelText = (l: Record<string, string>) => {
  const keys = Object.keys(l);
  return keys.length ? `{${keys.map((k) => `${k}="${escape(l[k])}"`).join(",")}}` : "";
};

/**
 * The exposition of a Summary read at `timeMs` (every sample carries it, to the millisecond: rates over a
 * second need more than the Summary's whole seconds); without one (the reads failed) only scrape_error, at 1.
 */
export function resourceMetrics(s: Obj | undefined, timeMs: number): string {
  const lines: string[] = [];
  for (const [name, type, help, of] of FAMILIES) {
    const samples = s ? of(s) : [];
    if (!samples.length) continue;
    lines.push(`# HELP ${name} [ALPHA] ${help}`, `# TYPE ${name} ${type}`);
    for (const [l, v] of samples) lines.push(`${name}${labelText(l)} ${v} ${timeMs}`);
  }
  lines.push("# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise", "# TYPE scrape_error gauge", `scrape_error ${s ? 0 : 1}`);
  return `${lines.join("\n")}\n`;
}
