// The API server's side of resource metrics, without agents: the kubelet's /metrics/resource text read
// as metrics-server reads it, the agent's exposition read back, and usage written as Quantities the way
// metrics-server's are (cpu in the largest exact unit of nanocores, memory in binary units when exact).
import { expect, test } from "bun:test";
import { resourceMetrics } from "../../pkg/nodeagent/stats/resource.ts";
import { cpuQuantity, memoryQuantity } from "../../pkg/server/resourcemetrics/objects.ts";
import { parseResourceMetrics } from "../../pkg/server/resourcemetrics/scrape.ts";

test("a kubelet's exposition: the node's and each container's cpu seconds and working set, with their times", () => {
  const s = parseResourceMetrics([
    "# HELP node_cpu_usage_seconds_total [ALPHA] Cumulative cpu time consumed by the node in core-seconds",
    "# TYPE node_cpu_usage_seconds_total counter",
    "node_cpu_usage_seconds_total 357.35491 1633253812125",
    "node_memory_working_set_bytes 1.616273408e+09 1633253812125",
    'container_cpu_usage_seconds_total{container="app",namespace="ns",pod="web-1"} 0.5 1633253811000',
    'container_memory_working_set_bytes{container="app",namespace="ns",pod="web-1"} 2.4576e+06 1633253811000',
    'pod_cpu_usage_seconds_total{namespace="ns",pod="web-1"} 0.5 1633253811000',
    "scrape_error 0",
  ].join("\n"));
  expect(s.t).toBe(1633253812125);
  expect(s.node).toEqual({ cpuSeconds: 357.35491, workingSetBytes: 1616273408, t: 1633253812125 });
  expect([...s.containers]).toEqual([["ns/web-1/app", { cpuSeconds: 0.5, workingSetBytes: 2457600, t: 1633253811000 }]]);
});

test("the agent's own exposition reads back the same", () => {
  const summary = {
    node: { cpu: { usageCoreNanoSeconds: 2e9 }, memory: { workingSetBytes: 4096 } },
    pods: [{ podRef: { namespace: "ns", name: 'odd"name' }, cpu: { usageCoreNanoSeconds: 5e8 }, memory: { workingSetBytes: 1024 }, containers: [{ name: "c", cpu: { usageCoreNanoSeconds: 5e8 }, memory: { workingSetBytes: 1024 } }] }],
  };
  const text = resourceMetrics(summary, 1000);
  expect(text).toContain("\nscrape_error 0\n");
  const s = parseResourceMetrics(text);
  expect(s.node).toEqual({ cpuSeconds: 2, workingSetBytes: 4096, t: 1000 });
  expect(s.containers.get('ns/odd"name/c')).toEqual({ cpuSeconds: 0.5, workingSetBytes: 1024, t: 1000 });
  expect(resourceMetrics(undefined, 1000)).toEndWith("scrape_error 1\n");
});

test("usage as Quantities", () => {
  expect([cpuQuantity(2e9), cpuQuantity(250e6), cpuQuantity(1500), cpuQuantity(123456789), cpuQuantity(-5)]).toEqual(["2", "250m", "1500n", "123456789n", "0"]);
  expect([cpuQuantity(3000)]).toEqual(["3u"]);
  expect([memoryQuantity(0), memoryQuantity(1000), memoryQuantity(4096), memoryQuantity(3 * 2 ** 20), memoryQuantity(2 ** 30 + 512)]).toEqual(["0", "1000", "4Ki", "3Mi", String(2 ** 30 + 512)]);
});
