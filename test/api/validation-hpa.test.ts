// A HorizontalPodAutoscaler's metrics and behavior written at autoscaling/v2beta1 and v2beta2 are checked
// as upstream v1.21 checks them (422 Invalid, upstream's paths in the v2beta2 form and its words), and a
// valid one of each version is created.
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, useServer } from "./fixtures.ts";

const NS = "validation-hpa";
let s: TestServer;
useServer(NS, (x) => (s = x));

const R = "FieldValueRequired", I = "FieldValueInvalid", NSUP = "FieldValueNotSupported", F = "FieldValueForbidden";
const path = (v: string) => `/apis/autoscaling/${v}/namespaces/${NS}/horizontalpodautoscalers`;
const hpa = (v: string, name: string, spec: object) => ({
  apiVersion: `autoscaling/${v}`, kind: "HorizontalPodAutoscaler", metadata: { name },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 5, ...spec },
});
const util = (n: number) => ({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: n } } });
const pods = (target: object) => ({ type: "Pods", pods: { metric: { name: "qps" }, target } });

/** [label, version, spec, field, reason, message] */
const BAD: [string, string, object, string, string, string][] = [
  ["utilization 0", "v2beta2", { metrics: [util(0)] }, "spec.metrics[0].resource.target.averageUtilization", I, "Invalid value: 0: must be greater than 0"],
  ["utilization 0 after another metric", "v2beta2", { metrics: [pods({ type: "AverageValue", averageValue: "1" }), util(0)] }, "spec.metrics[1].resource.target.averageUtilization", I, "must be greater than 0"],
  ["v2beta1 utilization 0", "v2beta1", { metrics: [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: 0 } }] }, "spec.metrics[0].resource.target.averageUtilization", I, "must be greater than 0"],
  ["unknown type", "v2beta2", { metrics: [{ type: "Magic" }] }, "spec.metrics[0].type", NSUP, `Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"`],
  ["source missing", "v2beta2", { metrics: [{ type: "Pods" }] }, "spec.metrics[0].pods", R, "must populate information for the given metric source"],
  ["pods without averageValue", "v2beta2", { metrics: [pods({ type: "Value", value: "1" })] }, "spec.metrics[0].pods.target.averageValue", R, "must specify a positive target averageValue"],
  ["negative value", "v2beta2", { metrics: [pods({ type: "AverageValue", averageValue: "-1" })] }, "spec.metrics[0].pods.target.averageValue", I, "must be positive"],
  ["metric without a name", "v2beta1", { metrics: [{ type: "Pods", pods: { targetAverageValue: "1" } }] }, "spec.metrics[0].pods.metric.name", R, "must specify a metric name"],
  ["external with both targets", "v2beta1", { metrics: [{ type: "External", external: { metricName: "queue", targetValue: "1", targetAverageValue: "2" } }] }, "spec.metrics[0].external.target.value", F, "may not set both a target value for metric and a per-pod target"],
  ["object without its target", "v2beta2", { metrics: [{ type: "Object", object: { metric: { name: "hits" }, describedObject: { kind: "Service", name: "web" }, target: { type: "Value" } } }] }, "spec.metrics[0].object.target.averageValue", R, "must set either a target value or averageValue"],
  ["container resource (gate off)", "v2beta2", { metrics: [{ type: "ContainerResource", containerResource: { name: "cpu", container: "app", target: { type: "Utilization", averageUtilization: 50 } } }] }, "spec.metrics[0].containerResource", R, "only allowed when HPAContainerMetrics feature is enabled"],
  ["policy period too long", "v2beta2", { metrics: [util(50)], behavior: { scaleDown: { policies: [{ type: "Pods", value: 1, periodSeconds: 1801 }] } } }, "spec.behavior.scaleDown.policies[0].periodSeconds", I, "must be less than or equal to 1800"],
  // checks that need the object at the version it was written in (autoscaling/v1 cannot carry it)
  ["resource and pods in one metric", "v2beta2", { metrics: [{ ...util(50), pods: pods({ type: "AverageValue", averageValue: "1" }).pods }] }, "spec.metrics[0].pods", F, "must populate the given metric source only"],
  ["cpu utilization and value", "v2beta2", { minReplicas: undefined, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50, averageValue: "100m" } } }] }, "spec.metrics[0].resource.target.averageValue", F, "may not set both a target raw value and a target utilization"],
  ["bad target type", "v2beta2", { metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Percent", averageUtilization: 50 } } }] }, "spec.metrics[0].resource.target.type", I, `Invalid value: "Percent": must be either Utilization, Value, or AverageValue`],
  ["v2beta1 cpu utilization and value", "v2beta1", { metrics: [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: 50, targetAverageValue: "100m" } }] }, "spec.metrics[0].resource.target.averageValue", F, "may not set both a target raw value and a target utilization"],
  ["v2beta1 resource and pods in one metric", "v2beta1", { minReplicas: undefined, metrics: [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: 50 }, pods: { metricName: "qps", targetAverageValue: "1" } }] }, "spec.metrics[0].pods", F, "must populate the given metric source only"],
  ["unknown select policy", "v2beta2", { metrics: [util(50)], behavior: { scaleUp: { selectPolicy: "Most", policies: [{ type: "Percent", value: 10, periodSeconds: 60 }] } } }, "spec.behavior.scaleUp.selectPolicy", NSUP, `Unsupported value: "Most"`],
];

describe("HPA metrics at autoscaling/v2beta1 and v2beta2", () => {
  test("valid metrics of every source type are created at either version", async () => {
    const metrics = [util(60), pods({ type: "AverageValue", averageValue: "10" }),
      { type: "External", external: { metric: { name: "queue", selector: { matchLabels: { q: "jobs" } } }, target: { type: "Value", value: "30" } } },
      { type: "Object", object: { metric: { name: "hits" }, describedObject: { apiVersion: "v1", kind: "Service", name: "web" }, target: { type: "AverageValue", averageValue: "5" } } }];
    expectCode(await s.call("POST", path("v2beta2"), hpa("v2beta2", "good2", { metrics, behavior: { scaleDown: { stabilizationWindowSeconds: 300 } } })), 201, "v2beta2");
    expectCode(await s.call("POST", path("v2beta1"), hpa("v2beta1", "good1", { metrics: [{ type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } }] })), 201, "v2beta1");
  });

  test("a v2 HPA without metrics gets upstream's default, 80 % CPU, read at v1 too", async () => {
    expectCode(await s.call("POST", path("v2beta2"), hpa("v2beta2", "no-metrics", {})), 201, "create");
    const v1 = await s.call("GET", `${path("v1")}/no-metrics`);
    expect(v1.body.spec).toMatchObject({ minReplicas: 1, targetCPUUtilizationPercentage: 80 });
  });

  test("invalid metrics are refused with upstream's causes", async () => {
    await Promise.all(BAD.map(async ([label, v, spec, field, reason, words], i) => {
      const st = expectStatus(await s.call("POST", path(v), hpa(v, `bad-${i}`, spec)), 422, "Invalid", label);
      const causes: any[] = st.details?.causes ?? [];
      expect(causes.some((c) => c.field === field && c.reason === reason && String(c.message).includes(words)), `${label}: ${JSON.stringify(causes)}`).toBe(true);
    }));
  });
});
