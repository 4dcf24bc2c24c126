// The node agent's pod status rules, as upstream's kubelet: phase from the containers' states, the
// conditions and their messages, and the QoS class.
import { expect, test } from "bun:test";
import { mergeConditions, podConditions, podPhase, qosClass } from "../../pkg/nodeagent/podstatus.ts";

const running = { running: { startedAt: "t" } };
const waiting = { waiting: { reason: "ContainerCreating" } };
const exited = (exitCode: number) => ({ terminated: { exitCode } });
const spec = (restartPolicy: string, n = 2) => ({ restartPolicy, containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}` })) });
const st = (...states: object[]) => states.map((state, i) => ({ name: `c${i}`, state, lastState: {}, ready: "running" in state }));

test("phase (upstream's getPhase)", () => {
  const cases: [string, object[], string][] = [
    ["Always", st(waiting, running), "Pending"],
    ["Always", st(running, running), "Running"],
    ["Always", st(running, exited(1)), "Running"],
    ["Always", st(exited(0), exited(0)), "Running"],
    ["Never", st(exited(0), exited(0)), "Succeeded"],
    ["Never", st(exited(0), exited(2)), "Failed"],
    ["OnFailure", st(exited(0), exited(0)), "Succeeded"],
    ["OnFailure", st(exited(0), exited(2)), "Running"],
    ["Never", [], "Pending"],
  ];
  for (const [policy, statuses, phase] of cases) expect([policy, JSON.stringify(statuses), podPhase(spec(policy), statuses as any)]).toEqual([policy, JSON.stringify(statuses), phase]);
  // a container waiting to restart (CrashLoopBackOff, with a last termination) counts as stopped
  const restarting = [{ name: "c0", state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: exited(1) }];
  expect(podPhase(spec("OnFailure", 1), restarting)).toBe("Running");
});

test("conditions: Initialized, Ready, ContainersReady with upstream's reasons and messages", () => {
  const sp = spec("Always");
  expect(podConditions(sp, st(running, running), "Running")).toEqual([
    { type: "Initialized", status: "True" }, { type: "Ready", status: "True" }, { type: "ContainersReady", status: "True" },
  ]);
  const message = "containers with unready status: [c0 c1]";
  expect(podConditions(sp, st(waiting, exited(1)), "Pending")).toEqual([
    { type: "Initialized", status: "True" },
    { type: "Ready", status: "False", reason: "ContainersNotReady", message },
    { type: "ContainersReady", status: "False", reason: "ContainersNotReady", message },
  ]);
  expect(podConditions(spec("Never"), st(exited(0), exited(0)), "Succeeded").map((c) => [c.type, c.status, c.reason])).toEqual([
    ["Initialized", "True", "PodCompleted"], ["Ready", "False", "PodCompleted"], ["ContainersReady", "False", "PodCompleted"],
  ]);
});

test("merged conditions keep lastTransitionTime while the status holds, and keep others' conditions", () => {
  const previous = [
    { type: "PodScheduled", status: "True", lastTransitionTime: "t0" },
    { type: "Ready", status: "False", lastTransitionTime: "t0" },
    { type: "Initialized", status: "True", lastTransitionTime: "t0" },
  ];
  const merged = mergeConditions(previous, [{ type: "Initialized", status: "True" }, { type: "Ready", status: "True" }], "t1");
  expect(merged.map((c) => [c.type, c.lastTransitionTime])).toEqual([["Initialized", "t0"], ["Ready", "t1"], ["PodScheduled", "t0"]]);
});

test("QoS class (upstream's GetPodQOS)", () => {
  const c = (requests?: object, limits?: object) => ({ name: "c", resources: { requests, limits } });
  const cases: [object[], string][] = [
    [[{ name: "c" }], "BestEffort"],
    [[c({ cpu: "0" })], "BestEffort"],
    [[c({ cpu: "100m" })], "Burstable"],
    [[c({ cpu: "1", memory: "1Gi" }, { cpu: "1", memory: "1Gi" })], "Guaranteed"],
    [[c(undefined, { cpu: "1", memory: "1Gi" })], "Guaranteed"],
    [[c({ cpu: "500m", memory: "1Gi" }, { cpu: "1", memory: "1Gi" })], "Burstable"],
    [[c({ cpu: "1", memory: "1Gi" }, { cpu: "1", memory: "1Gi" }), { name: "d" }], "Burstable"],
    [[c(undefined, { cpu: "1" })], "Burstable"],
  ];
  for (const [containers, qos] of cases) expect([JSON.stringify(containers), qosClass({ containers })]).toEqual([JSON.stringify(containers), qos]);
});
