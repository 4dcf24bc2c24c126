// Objects stored at an older storage version (a v1.20 cluster's batch/v1beta1 CronJobs, HPAs stored at
// autoscaling/v2beta1) are read at their hub and at every other served version.
import { afterAll, expect, test } from "bun:test";
import { Registry } from "../../pkg/registry/registry.ts";
import { SERVED } from "../../pkg/registry/served.ts";
import { SqliteStore } from "../../pkg/storage/sqlite.ts";

const store = new SqliteStore(":memory:");
afterAll(() => store.close());
const registry = new Registry(SERVED, store, { etcdPrefix: "/registry", caching: { enabled: false, defaultSize: 0, sizes: {} } });
const get = (group: string, version: string, plural: string, name: string) => registry.lookup(group, version, plural)!.get("default", name);

test("a CronJob stored at batch/v1beta1 is read at v1 and v1beta1", async () => {
  await store.create("/registry/cronjobs/default/old", JSON.stringify({
    apiVersion: "batch/v1beta1", kind: "CronJob", metadata: { name: "old", namespace: "default", uid: "u1" },
    spec: { schedule: "@hourly", jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }] } } } } },
  }));
  const v1 = await get("batch", "v1", "cronjobs", "old");
  expect([v1.apiVersion, v1.spec.schedule, v1.metadata.uid]).toEqual(["batch/v1", "@hourly", "u1"]);
  expect((await get("batch", "v1beta1", "cronjobs", "old")).apiVersion).toBe("batch/v1beta1");
});

test("an HPA stored at autoscaling/v2beta1 is read at v1 (with upstream's annotations) and at v2beta2", async () => {
  await store.create("/registry/horizontalpodautoscalers/default/web", JSON.stringify({
    apiVersion: "autoscaling/v2beta1", kind: "HorizontalPodAutoscaler", metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 4,
      metrics: [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: 70 } }, { type: "Pods", pods: { metricName: "qps", targetAverageValue: "5" } }],
    },
  }));
  const v1 = await get("autoscaling", "v1", "horizontalpodautoscalers", "web");
  expect(v1.spec.targetCPUUtilizationPercentage).toBe(70);
  expect(JSON.parse(v1.metadata.annotations["autoscaling.alpha.kubernetes.io/metrics"])).toEqual([{ type: "Pods", pods: { metricName: "qps", targetAverageValue: "5" } }]);
  const v2 = await get("autoscaling", "v2beta2", "horizontalpodautoscalers", "web");
  // Read through the v1 hub, the CPU target comes after the annotation's metrics (as upstream reads every HPA it stores at v1).
  expect(v2.spec.metrics).toEqual([
    { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "5" } } },
    { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } },
  ]);
});
