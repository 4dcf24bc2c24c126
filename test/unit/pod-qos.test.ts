// A pod's QoS class as upstream's GetPodQOS gives it (the create path stores it in status.qosClass).
import { describe, expect, test } from "bun:test";
import { podQOSClass } from "../../pkg/util/podqos.ts";

const pod = (...containers: { requests?: Record<string, string>; limits?: Record<string, string> }[]) => ({
  spec: { containers: containers.map((resources, i) => ({ name: `c${i}`, image: "x", resources })) },
});

describe("pod QoS class", () => {
  test.each([
    ["nothing requested", pod({}), "BestEffort"],
    ["only other resources", pod({ requests: { "ephemeral-storage": "1Gi" } }), "BestEffort"],
    ["zero requests", pod({ requests: { cpu: "0" } }), "BestEffort"],
    ["a cpu request", pod({ requests: { cpu: "100m" } }), "Burstable"],
    ["requests equal to limits for cpu and memory", pod({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1000m", memory: "1024Mi" } }), "Guaranteed"],
    ["a limit only for cpu", pod({ requests: { cpu: "1" }, limits: { cpu: "1" } }), "Burstable"],
    ["requests below limits", pod({ requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }), "Burstable"],
    ["one container guaranteed, one best effort", pod({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } }, {}), "Burstable"],
  ] as const)("%s → %s", (_what, p, want) => {
    expect(podQOSClass(p)).toBe(want);
  });

  test("init containers count", () => {
    const p = pod({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } });
    (p.spec as any).initContainers = [{ name: "init", image: "x", resources: { requests: { cpu: "1" } } }];
    expect(podQOSClass(p)).toBe("Burstable");
  });
});
