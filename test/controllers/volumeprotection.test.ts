// pvc-protection and pv-protection against a real server and `kite controller-manager`: a claim being
// deleted stays while a scheduled, unfinished pod uses it and goes once that pod finishes; a volume being
// deleted stays while it is Bound; a protection finalizer removed from a live object comes back.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { setPodPhase } from "../helpers/playnode.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const PVCS = "/api/v1/namespaces/default/persistentvolumeclaims";
const PVS = "/api/v1/persistentvolumes";
const MERGE = { "Content-Type": "application/merge-patch+json" };

beforeAll(async () => {
  s = await startServer();
  cm = await startControllerManager(s, "pvc-protection,pv-protection", ["--use-service-account-credentials"]);
});
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

const claim = (name: string) => ({ metadata: { name }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
const gone = (path: string) => until(async () => (await s.call("GET", path)).status === 404 || undefined, `${path} to go`);

test("a claim a running pod uses stays while deleted, and goes when the pod finishes", async () => {
  expect((await s.call("POST", PVCS, claim("data"))).body.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
  const pod = (await s.call("POST", "/api/v1/namespaces/default/pods", {
    metadata: { name: "user" },
    spec: { nodeName: "node-1", restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }], volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }] },
  })).body;
  await setPodPhase(s, pod, "Running");
  expect((await s.call("DELETE", `${PVCS}/data`)).status).toBe(200);
  await Bun.sleep(1000); // the controller has seen it by now; the claim must still be there
  const held = (await s.call("GET", `${PVCS}/data`)).body;
  expect(held.metadata.deletionTimestamp).toBeTruthy();
  expect(held.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
  await setPodPhase(s, pod, "Succeeded");
  await gone(`${PVCS}/data`);
});

test("a claim no pod uses goes at once", async () => {
  await s.call("POST", PVCS, claim("free"));
  expect((await s.call("DELETE", `${PVCS}/free`)).status).toBe(200);
  await gone(`${PVCS}/free`);
});

test("a Bound volume stays while deleted, and goes once released; a removed finalizer comes back", async () => {
  const pv = { metadata: { name: "vol" }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/vol" } } };
  expect((await s.call("POST", PVS, pv)).body.metadata.finalizers).toEqual(["kubernetes.io/pv-protection"]);
  expect((await s.call("PATCH", `${PVS}/vol`, { metadata: { finalizers: null } }, MERGE)).status).toBe(200);
  await until(async () => (await s.call("GET", `${PVS}/vol`)).body.metadata.finalizers?.includes("kubernetes.io/pv-protection") || undefined, "the finalizer back");
  expect((await s.call("PATCH", `${PVS}/vol/status`, { status: { phase: "Bound" } }, MERGE)).status).toBe(200);
  expect((await s.call("DELETE", `${PVS}/vol`)).status).toBe(200);
  await Bun.sleep(1000);
  expect((await s.call("GET", `${PVS}/vol`)).body.metadata.deletionTimestamp).toBeTruthy();
  expect((await s.call("PATCH", `${PVS}/vol/status`, { status: { phase: "Released" } }, MERGE)).status).toBe(200);
  await gone(`${PVS}/vol`);
});
