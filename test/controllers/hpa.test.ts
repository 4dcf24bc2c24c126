// The horizontalpodautoscaling controller against a real node agent: a Deployment whose pods burn cpu
// (50m requested) scales up under the load as far as the HPA allows, and back to its minimum once the
// load stops (downscale stabilization and sync period shortened by the controller-manager's flags), with
// upstream's status, conditions and events; `kubectl top pods` sees the same usage the controller reads.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../helpers/component.ts";
import { startControllerManager } from "../helpers/controllers.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import type { TestComponent } from "../helpers/component.ts";

const NS = "default";
let s: TestServer, agent: TestNodeAgent, manager: TestComponent, stopFile: string;

beforeAll(async () => {
  s = await startServer(["--kubelet-preferred-address-types=InternalIP,Hostname"]);
  [agent, manager] = await Promise.all([
    startNodeAgent(s),
    startControllerManager(s, "deployment,replicaset,horizontalpodautoscaling", ["--horizontal-pod-autoscaler-sync-period=1s", "--horizontal-pod-autoscaler-downscale-stabilization=3s"]),
  ]);
  stopFile = join(tempDir("kite-hpa-"), "stop");
  await ok(s, "POST", `/apis/apps/v1/namespaces/${NS}/deployments`, {
    apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "burner" },
    spec: {
      replicas: 1, selector: { matchLabels: { app: "burner" } },
      template: {
        metadata: { labels: { app: "burner" } },
        spec: {
          nodeName: agent.name, terminationGracePeriodSeconds: 0,
          // busy until the test makes the stop file, then idle
          containers: [{ name: "main", image: "busybox", command: ["sh", "-c", `while [ ! -e ${stopFile} ]; do :; done; exec sleep 3600`], resources: { requests: { cpu: "50m" } } }],
        },
      },
    },
  });
});
afterAll(async () => {
  writeFileSync(stopFile, "");
  await manager?.stop();
  await agent?.stop();
  await s?.stop();
});

const hpa = async () => (await s.call("GET", `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers/burner`)).body;
const events = async (reason: string) => ((await s.call("GET", `/api/v1/namespaces/${NS}/events?fieldSelector=reason%3D${reason}`)).body.items ?? []).map((e: { message: string }) => e.message);

test("scales up under cpu load, and back down once the load stops", async () => {
  await until(async () => (await s.call("GET", `/apis/apps/v1/namespaces/${NS}/deployments/burner`)).body?.status?.readyReplicas === 1 || undefined, "the first replica ready", 20_000);
  await ok(s, "POST", `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`, {
    apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", metadata: { name: "burner" },
    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "burner" }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
  });

  const up = await until(async () => { const h = await hpa(); return h.status?.desiredReplicas === 3 ? h : undefined; }, "the scale up", 30_000);
  expect(up.status.currentCPUUtilizationPercentage).toBeGreaterThan(100);
  expect(Date.parse(up.status.lastScaleTime)).toBeGreaterThan(Date.now() - 60_000);
  expect((await s.call("GET", `/apis/apps/v1/namespaces/${NS}/deployments/burner/scale`)).body.spec.replicas).toBe(3);
  expect(await events("SuccessfulRescale")).toContain("New size: 3; reason: cpu resource utilization (percentage of request) above target");
  const conditions = JSON.parse(up.metadata.annotations["autoscaling.alpha.kubernetes.io/conditions"]);
  expect(conditions.find((c: { type: string }) => c.type === "ScalingActive")).toMatchObject({ status: "True", reason: "ValidMetricFound", message: "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)" });

  // the same conditions at autoscaling/v2beta2, as its status
  const v2 = (await s.call("GET", `/apis/autoscaling/v2beta2/namespaces/${NS}/horizontalpodautoscalers/burner`)).body;
  expect(v2.status.conditions.map((c: { type: string }) => c.type).sort()).toEqual(["AbleToScale", "ScalingActive", "ScalingLimited"]);
  expect(v2.status.currentMetrics[0]).toMatchObject({ type: "Resource", resource: { name: "cpu", current: { averageUtilization: expect.any(Number) } } });

  writeFileSync(stopFile, "");
  const down = await until(async () => { const h = await hpa(); return h.status?.desiredReplicas === 1 && h.status.currentReplicas <= 3 ? h : undefined; }, "the scale down", 30_000);
  expect(down.status.currentCPUUtilizationPercentage).toBeLessThan(50);
  expect(await events("SuccessfulRescale")).toContain("New size: 1; reason: All metrics below target");
  await until(async () => (await s.call("GET", `/apis/apps/v1/namespaces/${NS}/deployments/burner`)).body?.status?.replicas === 1 || undefined, "the Deployment back to one replica", 20_000);
}, 90_000);
