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
  expect(podConditions(sp, [], st(running, running), "Running")).toEqual([
    { type: "Initialized", status: "True" }, { type: "Ready", status: "True" }, { type: "ContainersReady", status: "True" },
  ]);
  const message = "containers with unready status: [c0 c1]";
  expect(podConditions(sp, [], st(waiting, exited(1)), "Pending")).toEqual([
    { type: "Initialized", status: "True" },
    { type: "Ready", status: "False", reason: "ContainersNotReady", message },
    { type: "ContainersReady", status: "False", reason: "ContainersNotReady", message },
  ]);
  expect(podConditions(spec("Never"), [], st(exited(0), exited(0)), "Succeeded").map((c) => [c.type, c.status, c.reason])).toEqual([
    ["Initialized", "True", "PodCompleted"], ["Ready", "False", "PodCompleted"], ["ContainersReady", "False", "PodCompleted"],
  ]);
});

const withInit = (restartPolicy: string) => ({ ...spec(restartPolicy, 1), initContainers: [{ name: "i0" }, { name: "i1" }] });
const initSt = (...states: object[]) => states.map((state, i) => ({ name: `i${i}`, state, lastState: {}, ready: (state as any).terminated?.exitCode === 0 }));
const podInitializing = { waiting: { reason: "PodInitializing" } };

test("phase with init containers (upstream's getPhase over both lists)", () => {
  const app = [{ name: "c0", state: podInitializing, lastState: {}, ready: false }];
  const cases: [string, object[], string][] = [
    ["Always", [...initSt(running, podInitializing), ...app], "Pending"],
    ["Always", [...initSt(exited(0), running), ...app], "Pending"],
    // a failed init container: Never fails the pod, any other policy retries it (still Pending)
    ["Never", [...initSt(exited(0), exited(1)), ...app], "Failed"],
    ["OnFailure", [...initSt(exited(0), exited(1)), ...app], "Pending"],
    ["Always", [...initSt(exited(0), { waiting: { reason: "CrashLoopBackOff" } }).map((s, i) => (i ? { ...s, lastState: exited(1) } : s)), ...app], "Pending"],
    ["Always", [...initSt(exited(0), exited(0)), ...st(running)], "Running"],
    ["Never", [...initSt(exited(0), exited(0)), ...st(exited(0))], "Succeeded"],
  ];
  for (const [policy, statuses, phase] of cases) expect([policy, JSON.stringify(statuses), podPhase(withInit(policy), statuses as any)]).toEqual([policy, JSON.stringify(statuses), phase]);
});

test("Initialized: False with ContainersNotInitialized until every init container succeeded", () => {
  const sp = withInit("Always");
  expect(podConditions(sp, initSt(exited(0), running), st(podInitializing), "Pending")[0]).toEqual(
    { type: "Initialized", status: "False", reason: "ContainersNotInitialized", message: "containers with incomplete status: [i1]" });
  expect(podConditions(sp, initSt(exited(0)), st(podInitializing), "Pending")[0]).toEqual(
    { type: "Initialized", status: "False", reason: "ContainersNotInitialized", message: "containers with unknown status: [i1]" });
  expect(podConditions(sp, initSt(exited(0), exited(0)), st(running), "Running")[0]).toEqual({ type: "Initialized", status: "True" });
});

test("Ready: readiness gates must be True too, with upstream's messages", () => {
  const sp = { ...spec("Always", 1), readinessGates: [{ conditionType: "example.com/a" }, { conditionType: "example.com/b" }] };
  const ready = podConditions(sp, [], st(running), "Running", [{ type: "example.com/a", status: "False" }]);
  expect(ready[1]).toEqual({ type: "Ready", status: "False", reason: "ReadinessGatesNotReady",
    message: 'the status of pod readiness gate "example.com/a" is not "True", but False, corresponding condition of pod readiness gate "example.com/b" does not exist.' });
  expect(ready[2]).toEqual({ type: "ContainersReady", status: "True" });
  expect(podConditions(sp, [], st(running), "Running", [{ type: "example.com/a", status: "True" }, { type: "example.com/b", status: "True" }])[1]).toEqual({ type: "Ready", status: "True" });
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
