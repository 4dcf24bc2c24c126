// The process runtime's pure parts: CrashLoopBackOff timing, $(VAR) expansion, a container's process
// configuration (or why it cannot run), its limits as cgroup files, and static pods read from manifests.
import { expect, test } from "bun:test";
import { CrashLoopBackoff } from "../../pkg/nodeagent/backoff.ts";
import { terminatedState } from "../../pkg/nodeagent/container.ts";
import { limitFiles } from "../../pkg/nodeagent/runtime/cgroups.ts";
import { containerConfig, containerLimits, expand, podHostname } from "../../pkg/nodeagent/runtime/config.ts";
import { mirrorPod, staticPod } from "../../pkg/nodeagent/static.ts";
import { decodeYaml } from "../../pkg/yaml/decode.ts";

test("CrashLoopBackOff: first restart immediate, then 10 s doubling to 5 min, reset after 10 quiet minutes", () => {
  let now = 1_000_000;
  const b = new CrashLoopBackoff(undefined, undefined, () => now);
  expect(b.remaining("p/c", now)).toBe(0);
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    b.next("p/c");
    waits.push(b.current("p/c"));
  }
  expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  const b2 = new CrashLoopBackoff(undefined, undefined, () => now);
  b2.next("p/c"); // restarted now
  now += 3_000; // exits 3 s later
  expect(b2.remaining("p/c", now)).toBe(10_000);
  now += 4_000;
  expect(b2.remaining("p/c", now - 4_000)).toBe(6_000);
  // ran for more than 10 minutes after its last restart: no wait, and the next backoff starts over
  now += 11 * 60_000;
  expect(b2.remaining("p/c", now)).toBe(0);
  b2.next("p/c");
  expect(b2.current("p/c")).toBe(10_000);
  b2.forget("p/");
  expect(b2.current("p/c")).toBe(0);
});

test("$(VAR) expansion as upstream: $$ escapes, unknown references stay", () => {
  const vars = new Map([["A", "x"], ["B", "y"]]);
  expect(expand("$(A)-$(B)-$(C)-$$(A)-$$-$A", vars)).toBe("x-y-$(C)-$(A)-$-$A");
});

test("a container's process: argv expanded from its env, env over PATH and HOSTNAME, workingDir, log file, mounts; or the reason it cannot run", () => {
  const pod = { metadata: { name: "p", uid: "u1" } };
  const mounts = [{ hostPath: "/h", containerPath: "/c", readOnly: true }];
  const inputs = { env: new Map([["WHO", "w"], ["MSG", "hi w"]]), mounts };
  const r = containerConfig(pod, { name: "c", command: ["echo", "$(MSG)"], args: ["$(HOSTNAME)"] }, "/root", 2, inputs);
  if (!("spec" in r)) throw new Error(r.error);
  // HOSTNAME is the runtime's, not the container's: upstream leaves the reference as written
  expect(r.spec.argv).toEqual(["echo", "hi w", "$(HOSTNAME)"]);
  expect(r.spec.env).toMatchObject({ WHO: "w", MSG: "hi w", HOSTNAME: "p" });
  expect(r.spec.env.PATH).toContain("/usr/bin");
  expect(r.spec.workingDir).toBe("/");
  expect(r.spec.logPath).toBe("/root/pods/u1/containers/c/2.log");
  expect(r.spec.mounts).toEqual(mounts);
  const x = containerConfig(pod, { name: "c", image: "img" }, "/root", 0, { env: new Map(), mounts: [] });
  expect("error" in x && x.error).toContain(`has no command`);
});

test("a static pod: named <name>-<node>, defaulted, bound to the node, a uid from its content; its mirror pod", () => {
  const yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: x\n    command: [sleep, '9']\n";
  const p = staticPod(decodeYaml(yaml) as any, "/m/web.yaml", "file", "n1");
  expect(p.metadata).toMatchObject({ name: "web-n1", namespace: "default" });
  expect(p.spec).toMatchObject({ nodeName: "n1", restartPolicy: "Always", terminationGracePeriodSeconds: 30 });
  expect(p.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
  expect(p.metadata.annotations).toEqual({ "kubernetes.io/config.hash": p.metadata.uid, "kubernetes.io/config.source": "file" });
  expect(staticPod(decodeYaml(yaml) as any, "/m/web.yaml", "file", "n1").metadata.uid).toBe(p.metadata.uid);
  expect(staticPod(decodeYaml(yaml.replace("'9'", "'10'")) as any, "/m/web.yaml", "file", "n1").metadata.uid).not.toBe(p.metadata.uid);
  expect(() => staticPod(decodeYaml("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n") as any, "/m/s.yaml", "file", "n1")).toThrow("not a v1 Pod");
  const m = mirrorPod(p, "n1", "node-uid");
  expect(m.metadata.uid).toBeUndefined();
  expect(m.metadata.annotations["kubernetes.io/config.mirror"]).toBe(p.metadata.uid);
  expect(m.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: "n1", uid: "node-uid", controller: true }]);
});

test("limits: resources.limits to bytes and millicores, then to cgroup v1 and v2 files (cpu quota over a 100 ms period)", () => {
  expect(containerLimits({ resources: { limits: { memory: "20Mi", cpu: "250m" } } })).toEqual({ memoryBytes: 20 * 2 ** 20, cpuMilli: 250 });
  expect(containerLimits({ resources: { limits: { cpu: "1.5" }, requests: { memory: "1Gi" } } })).toEqual({ cpuMilli: 1500 });
  expect(containerLimits({})).toEqual({});
  const l = { memoryBytes: 1048576, cpuMilli: 250 };
  expect(limitFiles(false, l, true)).toEqual([
    ["memory", "memory.limit_in_bytes", "1048576"], ["memory", "memory.memsw.limit_in_bytes", "1048576"],
    ["cpu", "cpu.cfs_period_us", "100000"], ["cpu", "cpu.cfs_quota_us", "25000"],
  ]);
  expect(limitFiles(true, l, false)).toEqual([["memory", "memory.max", "1048576"], ["memory", "memory.swap.max", "0"], ["cpu", "cpu.max", "25000 100000"]]);
  // the kernel's smallest quota is 1 ms
  expect(limitFiles(false, { cpuMilli: 1 }, false)).toEqual([["cpu", "cpu.cfs_period_us", "100000"], ["cpu", "cpu.cfs_quota_us", "1000"]]);
});

test("a container's hostname: spec.hostname, else the pod's name cut to 63 characters; HOSTNAME has it", () => {
  expect(podHostname({ metadata: { name: "web-0" }, spec: { hostname: "db" } })).toBe("db");
  expect(podHostname({ metadata: { name: `${"a".repeat(62)}-b` }, spec: {} })).toBe("a".repeat(62));
  const r = containerConfig({ metadata: { name: "p", uid: "u" }, spec: { hostname: "h" } }, { name: "c", command: ["x"], resources: { limits: { memory: "1Mi" } } }, "/r", 0, { env: new Map(), mounts: [] });
  if (!("spec" in r)) throw new Error(r.error);
  expect(r.spec).toMatchObject({ hostname: "h", env: { HOSTNAME: "h" }, mounts: [], limits: { memoryBytes: 2 ** 20 } });
});

test("a run's terminated state: Completed, Error, OOMKilled, StartError (with its message), ContainerStatusUnknown", () => {
  const at = new Date("2021-01-01T00:00:05Z"), id = "kite-process://x";
  const t = (e: object) => terminatedState({ exitCode: 1, finishedAt: at, ...e }, "2021-01-01T00:00:00Z", id);
  expect(t({ exitCode: 0 })).toEqual({ exitCode: 0, reason: "Completed", startedAt: "2021-01-01T00:00:00Z", finishedAt: "2021-01-01T00:00:05Z", containerID: id });
  expect(t({}).reason).toBe("Error");
  expect(t({ exitCode: 137, oomKilled: true }).reason).toBe("OOMKilled");
  expect(t({ exitCode: 128, startError: "cannot mount /a at /b" })).toMatchObject({ reason: "StartError", message: "cannot mount /a at /b" });
  expect(t({ exitCode: 137, unknown: true }).reason).toBe("ContainerStatusUnknown");
  expect(terminatedState({ exitCode: 128, finishedAt: at, startError: "x" }, "s").containerID).toBeUndefined();
});
