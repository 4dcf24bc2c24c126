// The endpointslice controller in `kite controller-manager` (--max-endpoints-per-slice=3, so that splits
// come quickly): a Service's EndpointSlices (discovery.k8s.io/v1) carry its name and the controller's
// label, are owned by it, list one endpoint per selected pod with its conditions and topology, split past
// the maximum and shrink back, keep one empty placeholder when no pod is left, and go with the Service.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { podManifest, setPodStatus } from "../helpers/playnode.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

const NS = "default";
const SLICES = `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`;

let s: TestServer;
let manager: TestComponent;
beforeAll(async () => {
  s = await startServer();
  const node = { metadata: { name: "node-1", labels: { "topology.kubernetes.io/zone": "zone-a" } } };
  expect((await s.call("POST", "/api/v1/nodes", node)).status).toBe(201);
  manager = await startControllerManager(s, "endpointslice", ["--max-endpoints-per-slice=3"]);
});
afterAll(async () => {
  await manager?.stop();
  await s?.stop();
});

const create = async (path: string, body: unknown) => {
  const r = await s.call("POST", path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
const patch = (path: string, body: unknown) => s.call("PATCH", path, body, { "content-type": "application/merge-patch+json" });
const slicesOf = async (svc: string): Promise<any[]> =>
  (await s.call("GET", `${SLICES}?labelSelector=kubernetes.io/service-name=${svc}`)).body.items;
/** Waits until the Service's slices satisfy `ok`; returns them. */
async function waitSlices(svc: string, what: string, ok: (slices: any[]) => boolean): Promise<any[]> {
  let last: any[] = [];
  return until(async () => { last = await slicesOf(svc); return ok(last) ? last : undefined; }, what, 10_000)
    .catch((e) => { throw new Error(`${e.message}; last ${JSON.stringify(last.map((x) => x.endpoints))}`); });
}
const endpointsIn = (slices: any[]) => slices.flatMap((x) => x.endpoints ?? []);

test("one endpoint per pod, with its conditions, topology, ports and the Service's labels", async () => {
  const svc = await create(`/api/v1/namespaces/${NS}/services`, {
    metadata: { name: "web", labels: { tier: "front" } },
    spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
  });
  // Before any pod has an address: one empty placeholder slice.
  const [placeholder] = await waitSlices("web", "a placeholder slice", (x) => x.length === 1);
  expect(placeholder.endpoints ?? []).toEqual([]);

  await create(`/api/v1/namespaces/${NS}/pods`, podManifest("web-1", { app: "web" }, { http: 8080 }));
  await setPodStatus(s, NS, "web-1", { ip: "10.1.0.1", ready: false });
  const [slice] = await waitSlices("web", "web-1 in a slice", (x) => x.length === 1 && endpointsIn(x).length === 1);
  expect(slice.addressType).toBe("IPv4");
  expect(slice.metadata.labels).toEqual({ tier: "front", "kubernetes.io/service-name": "web", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io" });
  expect(slice.metadata.generateName).toBe("web-");
  expect(slice.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Service", name: "web", uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  expect(slice.ports).toEqual([{ name: "http", port: 8080, protocol: "TCP" }]);
  const ep = slice.endpoints[0];
  expect(ep.addresses).toEqual(["10.1.0.1"]);
  expect(ep.conditions).toEqual({ ready: false, serving: false, terminating: false });
  expect(ep.nodeName).toBe("node-1");
  expect(ep.zone).toBe("zone-a");
  expect(ep.targetRef).toMatchObject({ kind: "Pod", namespace: NS, name: "web-1" });

  await setPodStatus(s, NS, "web-1", { ip: "10.1.0.1", ready: true });
  await waitSlices("web", "web-1 ready", (x) => endpointsIn(x)[0]?.conditions?.ready === true);

  // A terminating pod stays, not ready, until it is gone.
  await patch(`/api/v1/namespaces/${NS}/pods/web-1`, { metadata: { finalizers: ["test.kite.dev/hold"] } });
  expect((await s.call("DELETE", `/api/v1/namespaces/${NS}/pods/web-1`, { gracePeriodSeconds: 0 })).status).toBe(200);
  const [terminating] = endpointsIn(await waitSlices("web", "web-1 terminating", (x) => endpointsIn(x)[0]?.conditions?.terminating === true));
  expect(terminating.conditions).toEqual({ ready: false, serving: true, terminating: true });
  await patch(`/api/v1/namespaces/${NS}/pods/web-1`, { metadata: { finalizers: null } });
  const after = await waitSlices("web", "web-1 gone", (x) => endpointsIn(x).length === 0);
  expect(after).toHaveLength(1);
});

test("slices split past --max-endpoints-per-slice and shrink back; they go with the Service", async () => {
  await create(`/api/v1/namespaces/${NS}/services`, { metadata: { name: "many" }, spec: { selector: { app: "many" }, ports: [{ port: 80, targetPort: 8080 }] } });
  for (let i = 0; i < 7; i++) {
    await create(`/api/v1/namespaces/${NS}/pods`, podManifest(`many-${i}`, { app: "many" }, {}));
    await setPodStatus(s, NS, `many-${i}`, { ip: `10.2.0.${i + 1}`, ready: true });
  }
  const split = await waitSlices("many", "7 endpoints", (x) => endpointsIn(x).length === 7);
  expect(split.length).toBe(3);
  for (const x of split) expect(x.endpoints.length).toBeLessThanOrEqual(3);
  expect(new Set(endpointsIn(split).map((e) => e.addresses[0])).size).toBe(7);
  expect(split.every((x) => JSON.stringify(x.ports) === JSON.stringify([{ name: "", port: 8080, protocol: "TCP" }]))).toBe(true);

  for (let i = 2; i < 7; i++) expect((await s.call("DELETE", `/api/v1/namespaces/${NS}/pods/many-${i}`, { gracePeriodSeconds: 0 })).status).toBe(200);
  const shrunk = await waitSlices("many", "2 endpoints", (x) => endpointsIn(x).length === 2);
  expect(endpointsIn(shrunk).map((e) => e.addresses[0]).sort()).toEqual(["10.2.0.1", "10.2.0.2"]);
  expect(shrunk.length).toBeLessThanOrEqual(2);

  expect((await s.call("DELETE", `/api/v1/namespaces/${NS}/services/many`)).status).toBe(200);
  await waitSlices("many", "the slices to go", (x) => x.length === 0);
});

test("a selector change moves the endpoints; a Service without a selector gets no slices", async () => {
  await create(`/api/v1/namespaces/${NS}/services`, { metadata: { name: "mover" }, spec: { selector: { app: "a" }, ports: [{ port: 80 }] } });
  await create(`/api/v1/namespaces/${NS}/services`, { metadata: { name: "external" }, spec: { ports: [{ port: 80 }] } });
  for (const [name, app, ip] of [["a-1", "a", "10.3.0.1"], ["b-1", "b", "10.3.0.2"]]) {
    await create(`/api/v1/namespaces/${NS}/pods`, podManifest(name, { app }, {}));
    await setPodStatus(s, NS, name, { ip, ready: true });
  }
  await waitSlices("mover", "a-1", (x) => JSON.stringify(endpointsIn(x).map((e) => e.addresses[0])) === `["10.3.0.1"]`);
  expect((await patch(`/api/v1/namespaces/${NS}/services/mover`, { spec: { selector: { app: "b" } } })).status).toBe(200);
  await waitSlices("mover", "b-1", (x) => JSON.stringify(endpointsIn(x).map((e) => e.addresses[0])) === `["10.3.0.2"]`);
  // Slices in line with their pods are not written again.
  const versions = async () => (await slicesOf("mover")).map((x) => x.metadata.resourceVersion);
  const before = await versions();
  await Bun.sleep(500);
  expect(await versions()).toEqual(before);
  expect(await slicesOf("external")).toEqual([]);
});

test("--max-endpoints-per-slice outside 1..1000 exits 2 with one line", () => {
  for (const v of ["0", "1001", "many"]) {
    const r = Bun.spawnSync([...KITE, "controller-manager", `--kubeconfig=${s.kubeconfig}`, `--max-endpoints-per-slice=${v}`]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString().trim()).toBe(`Error: invalid argument "${v}" for "--max-endpoints-per-slice" flag: max-endpoints-per-slice must be between 1 and 1000, inclusive`);
  }
});
