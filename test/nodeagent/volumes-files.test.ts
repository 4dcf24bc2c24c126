// A pod's volumes as folders under the agent's --root-dir, laid out as the kubelet lays them out
// (pods/<uid>/volumes/kubernetes.io~<plugin>/<name>): their files and modes, tmpfs for memory-backed ones,
// a ConfigMap's change and a label's reaching the files, a bound token the API server accepts, hostPath
// and claim failures in upstream's words until fixed, and the folders gone with the pod.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { logFile, logOutput, startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent, host: string;
const NS = "default";
const root = process.getuid?.() === 0;

beforeAll(async () => {
  s = await startServer();
  agent = await startNodeAgent(s, ["--sync-frequency=1s"]);
  host = tempDir("kite-hostpaths-");
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

const getPod = async (name: string) => { const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`); return r.status === 200 ? r.body : undefined; };
const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 15_000) =>
  until(async () => { const p = await getPod(name); return p && f(p) ? p : undefined; }, `${name}: ${what}`, ms);
const patch = async (path: string, body: unknown) => {
  const r = await s.call("PATCH", path, body, { "content-type": "application/merge-patch+json" });
  if (r.status !== 200) throw new Error(`PATCH ${path}: ${r.status} ${JSON.stringify(r.body)}`);
};
const runPod = (name: string, volumes: unknown[], containers: unknown[] = [{ name: "c", image: "busybox", command: ["sleep", "60"] }]) =>
  ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "files" } }, spec: { nodeName: agent.name, serviceAccountName: "default", terminationGracePeriodSeconds: 1, volumes, containers } });
const modeOf = (p: string) => statSync(p).mode & 0o7777;
/** The mount at `dir`, from this process's mount table: [fs type, super options], if one. */
const mountAt = (dir: string) => {
  const line = readFileSync("/proc/self/mountinfo", "utf8").split("\n").find((l) => l.split(" ")[4] === dir);
  return line ? line.split(" - ")[1].split(" ").filter((_, i) => i !== 1) : undefined;
};
const waitingOf = (p: any, c = "c") => p.status?.containerStatuses?.find((s: any) => s.name === c)?.state?.waiting;

let uid: string, vols: string;

test("every kind of volume prepared before the containers start: files, modes, ..data, tmpfs; a mounting container sees them at its mountPath (as root)", async () => {
  const mnt = join(host, "in-container/cfg");
  await ok(s, "POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "files" }, data: { "a.txt": "alpha", "b.txt": "beta" } });
  await ok(s, "POST", `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: "keys" }, data: { "id.key": Buffer.from("private").toString("base64") } });
  const p = await runPod("vols", [
    { name: "scratch", emptyDir: {} },
    { name: "mem", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } },
    { name: "host", hostPath: { path: join(host, "made/here"), type: "DirectoryOrCreate" } },
    { name: "cfg", configMap: { name: "files", defaultMode: 0o640, items: [{ key: "a.txt", path: "dir/a", mode: 0o600 }, { key: "b.txt", path: "b" }] } },
    { name: "sec", secret: { secretName: "keys", defaultMode: 0o400 } },
    { name: "info", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }, { path: "mem", resourceFieldRef: { containerName: "c", resource: "limits.memory", divisor: "1Mi" } }] } },
    { name: "all", projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 600 } }, { configMap: { name: "files", items: [{ key: "a.txt", path: "a" }] } }, { downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } }] } },
  ], [
    { name: "c", image: "busybox", command: ["sleep", "60"], resources: { limits: { memory: "32Mi" } } },
    { name: "m", image: "busybox", command: ["sh", "-c", `cat ${mnt}/dir/a; echo; sleep 60`], volumeMounts: [{ name: "cfg", mountPath: mnt }] },
  ]);
  uid = p.metadata.uid;
  vols = join(agent.rootDir, "pods", uid, "volumes");
  const started = (p: any, c: string) => p.status?.containerStatuses?.find((s: any) => s.name === c)?.state?.running;
  const ready = await podWhen("vols", "c running, m running or refused", (p) => started(p, "c") && (started(p, "m") || waitingOf(p, "m")));
  if (root) {
    await until(async () => logOutput(logFile(agent, uid, "m")) === "alpha\n" || undefined, "m to read its mounted file");
    expect(existsSync(join(mnt, "dir/a"))).toBe(false);
  } else {
    expect(waitingOf(ready, "m")).toEqual({ reason: "CreateContainerConfigError", message: `container "m" mounts volumes, which need mount namespaces: the agent must run as root on Linux` });
  }

  expect(modeOf(join(vols, "kubernetes.io~empty-dir/scratch"))).toBe(0o777);
  expect(statSync(join(host, "made/here")).isDirectory()).toBe(true);
  const cfg = join(vols, "kubernetes.io~configmap/cfg");
  expect(readFileSync(join(cfg, "dir/a"), "utf8")).toBe("alpha");
  expect(modeOf(join(cfg, "dir/a"))).toBe(0o600);
  expect(readFileSync(join(cfg, "b"), "utf8")).toBe("beta");
  expect(modeOf(join(cfg, "b"))).toBe(0o640);
  expect(readlinkSync(join(cfg, "b"))).toBe("..data/b");
  expect(readlinkSync(join(cfg, "..data"))).toMatch(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\./);
  const sec = join(vols, "kubernetes.io~secret/sec");
  expect(readFileSync(join(sec, "id.key"), "utf8")).toBe("private");
  expect(modeOf(join(sec, "id.key"))).toBe(0o400);
  const info = join(vols, "kubernetes.io~downward-api/info");
  expect(readFileSync(join(info, "labels"), "utf8")).toBe('app="files"');
  expect(readFileSync(join(info, "mem"), "utf8")).toBe("32");
  const all = join(vols, "kubernetes.io~projected/all");
  expect(readFileSync(join(all, "a"), "utf8")).toBe("alpha");
  expect(readFileSync(join(all, "name"), "utf8")).toBe("vols");
  expect(modeOf(join(all, "token"))).toBe(0o644);
  if (root) {
    expect(mountAt(join(vols, "kubernetes.io~empty-dir/mem"))).toEqual(["tmpfs", expect.stringContaining("size=16384k")]);
    expect(mountAt(sec)?.[0]).toBe("tmpfs");
    expect(mountAt(all)?.[0]).toBe("tmpfs");
    expect(mountAt(cfg)).toBeUndefined();
  }
});

test("the projected token is a bound service-account token the API server accepts", async () => {
  const token = readFileSync(join(vols, "kubernetes.io~projected/all/token"), "utf8");
  const review = await ok(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } });
  expect(review.status.authenticated).toBe(true);
  expect(review.status.user.username).toBe(`system:serviceaccount:${NS}:default`);
  expect(review.status.user.extra["authentication.kubernetes.io/pod-uid"]).toEqual([uid]);
  // and a request made with it is authenticated (the same token altered is not)
  const get = (t: string) => fetch(`${s.url}/api/v1/namespaces/${NS}/pods`, { headers: { authorization: `Bearer ${t}` }, tls: { ca: s.ca } } as RequestInit);
  expect((await get(token)).status).not.toBe(401);
  expect((await get(`${token.slice(0, -4)}AAAA`)).status).toBe(401);
});

test("a ConfigMap's change and a label's reach the files within the sync period, swapped through ..data", async () => {
  const cfg = join(vols, "kubernetes.io~configmap/cfg");
  const before = readlinkSync(join(cfg, "..data"));
  await patch(`/api/v1/namespaces/${NS}/configmaps/files`, { data: { "a.txt": "alpha-2" } });
  await patch(`/api/v1/namespaces/${NS}/pods/vols`, { metadata: { labels: { app: "files", v: "2" } } });
  await until(async () => (readFileSync(join(cfg, "dir/a"), "utf8") === "alpha-2") || undefined, "the new content", 15_000);
  expect(readlinkSync(join(cfg, "..data"))).not.toBe(before);
  // the old set goes right after the swap
  await until(async () => !existsSync(join(cfg, before)) || undefined, "the old folder to go");
  await until(async () => (readFileSync(join(vols, "kubernetes.io~projected/all/a"), "utf8") === "alpha-2") || undefined, "the projected copy");
  await until(async () => (readFileSync(join(vols, "kubernetes.io~downward-api/info/labels"), "utf8") === 'app="files"\nv="2"') || undefined, "the new labels", 15_000);
});

test("a hostPath of the wrong type keeps the containers in ContainerCreating with upstream's message until it is right", async () => {
  const path = join(host, "wanted-file");
  await runPod("hostfile", [{ name: "h", hostPath: { path, type: "File" } }]);
  const p = await podWhen("hostfile", "waiting", (p) => waitingOf(p)?.message);
  expect(waitingOf(p)).toEqual({ reason: "ContainerCreating", message: `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${path} is not a file` });
  writeFileSync(path, "");
  await podWhen("hostfile", "Running", (p) => p.status?.phase === "Running");
});

test("a claim: missing, then unbound, waits with upstream's messages; bound to a hostPath PV, the pod runs", async () => {
  const pvPath = join(host, "pv");
  await runPod("claims", [{ name: "data", persistentVolumeClaim: { claimName: "data" } }]);
  await podWhen("claims", "no claim", (p) => waitingOf(p)?.message === `error processing PVC ${NS}/data: failed to fetch PVC from API server: persistentvolumeclaims "data" not found`);
  const pvc = await ok(s, "POST", `/api/v1/namespaces/${NS}/persistentvolumeclaims`, { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeName: "pv-data" } });
  await podWhen("claims", "not bound", (p) => waitingOf(p)?.message === `error processing PVC ${NS}/data: PVC is not bound`);
  await ok(s, "POST", "/api/v1/persistentvolumes", {
    metadata: { name: "pv-data" },
    spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: pvPath, type: "DirectoryOrCreate" }, claimRef: { namespace: NS, name: "data", uid: pvc.metadata.uid } },
  });
  const status = await s.call("PATCH", `/api/v1/namespaces/${NS}/persistentvolumeclaims/data/status`, { status: { phase: "Bound" } }, { "content-type": "application/merge-patch+json" });
  expect(status.status).toBe(200);
  await podWhen("claims", "Running", (p) => p.status?.phase === "Running");
  expect(statSync(pvPath).isDirectory()).toBe(true);
});

test("deleting the pod unmounts and removes its volume folders; a hostPath's folder stays", async () => {
  await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/vols`);
  await until(async () => (await getPod("vols")) === undefined || undefined, "the pod to be gone", 15_000);
  // a pending pod is deleted at once: the agent removes its folders once its processes are gone
  await until(async () => !existsSync(vols) || undefined, "the volume folders to go", 15_000);
  expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(vols);
  expect(statSync(join(host, "made/here")).isDirectory()).toBe(true);
  for (const name of ["hostfile", "claims"]) await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/${name}`);
  for (const name of ["hostfile", "claims"]) await until(async () => (await getPod(name)) === undefined || undefined, `${name} to be gone`, 15_000);
  expect(existsSync(join(host, "pv"))).toBe(true);
});
