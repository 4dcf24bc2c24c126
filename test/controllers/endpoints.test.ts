// The endpoint controller in `kite controller-manager`: a Service's Endpoints follow the pods it selects —
// ready and not-ready addresses, ports by number and by container port name, a pod deleted or finished, a
// selector changed, publishNotReadyAddresses, hostnames under a subdomain, the last-change-trigger-time —
// Services without a selector keep their hand-made Endpoints, and Endpoints go with their Service.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { podManifest, setPodStatus } from "../helpers/playnode.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const KUBECTL_120 = "/opt/kubernetes-client-1.20/usr/bin/kubectl";
const NS = "default";

let s: TestServer;
let manager: TestComponent;
beforeAll(async () => {
  s = await startServer();
  manager = await startControllerManager(s, "endpoint");
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
const createPod = (...a: Parameters<typeof podManifest>) => create(`/api/v1/namespaces/${NS}/pods`, podManifest(...a));
const endpoints = async (name: string) => {
  const r = await s.call("GET", `/api/v1/namespaces/${NS}/endpoints/${name}`);
  return r.status === 200 ? r.body : undefined;
};
/** A compact view of subsets: ready / not-ready IPs and "name:port" per subset. */
const view = (ep: any) => (ep?.subsets ?? []).map((ss: any) => ({
  ready: (ss.addresses ?? []).map((a: any) => a.ip),
  notReady: (ss.notReadyAddresses ?? []).map((a: any) => a.ip),
  ports: (ss.ports ?? []).map((p: any) => `${p.name ?? ""}:${p.port}`).sort(),
}));
/** Waits until the Endpoints' view is `want`. */
async function expectView(name: string, want: unknown[]) {
  let last: unknown;
  await until(async () => {
    last = view(await endpoints(name));
    return JSON.stringify(last) === JSON.stringify(want) || undefined;
  }, `endpoints ${name} to be ${JSON.stringify(want)}`, 10_000).catch((e) => { throw new Error(`${e.message}; last ${JSON.stringify(last)}`); });
  return (await endpoints(name))!;
}

test("addresses follow readiness; ports resolve by number and by name; pods deleted or finished leave", async () => {
  await create(`/api/v1/namespaces/${NS}/services`, {
    metadata: { name: "web", labels: { tier: "front" } },
    spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }, { name: "metrics", port: 9000, targetPort: 9090 }] },
  });
  await createPod("web-1", { app: "web" }, { http: 8080 });
  await createPod("web-2", { app: "web" }, { http: 8080 });
  await createPod("other", { app: "other" }, { http: 8080 });
  // No IP yet: no address at all, but the Endpoints exist, with the Service's labels.
  const empty = await until(() => endpoints("web"), "the endpoints of web");
  expect(empty.metadata.labels).toEqual({ tier: "front" });
  expect(empty.subsets ?? []).toEqual([]);

  await setPodStatus(s, NS, "web-1", { ip: "10.1.0.1", ready: true });
  await setPodStatus(s, NS, "web-2", { ip: "10.1.0.2", ready: false });
  await setPodStatus(s, NS, "other", { ip: "10.1.0.9", ready: true });
  const ep = await expectView("web", [{ ready: ["10.1.0.1"], notReady: ["10.1.0.2"], ports: ["http:8080", "metrics:9090"] }]);
  const a = ep.subsets[0].addresses[0];
  expect(a.nodeName).toBe("node-1");
  expect(a.targetRef).toMatchObject({ kind: "Pod", namespace: NS, name: "web-1" });
  expect(ep.subsets[0].ports.find((p: any) => p.name === "http").protocol).toBe("TCP");

  // Readiness moves addresses; the change's time is the annotation's (transition times are in seconds:
  // the second one falls in a later second than the first).
  await Bun.sleep(1000);
  const at = await setPodStatus(s, NS, "web-2", { ip: "10.1.0.2", ready: true });
  const both = await expectView("web", [{ ready: ["10.1.0.1", "10.1.0.2"], notReady: [], ports: ["http:8080", "metrics:9090"] }]);
  expect(both.metadata.annotations["endpoints.kubernetes.io/last-change-trigger-time"]).toBe(at);
  await setPodStatus(s, NS, "web-1", { ip: "10.1.0.1", ready: false });
  await expectView("web", [{ ready: ["10.1.0.2"], notReady: ["10.1.0.1"], ports: ["http:8080", "metrics:9090"] }]);

  // A pod whose "http" is another port gets a subset of its own for it; "metrics" is shared.
  await createPod("web-3", { app: "web" }, { http: 8081 });
  await setPodStatus(s, NS, "web-3", { ip: "10.1.0.3", ready: true });
  const three = view(await until(async () => { const e = await endpoints("web"); return view(e).length === 3 ? e : undefined; }, "three subsets"));
  expect(three).toContainEqual({ ready: ["10.1.0.2", "10.1.0.3"], notReady: ["10.1.0.1"], ports: ["metrics:9090"] });
  expect(three).toContainEqual({ ready: ["10.1.0.2"], notReady: ["10.1.0.1"], ports: ["http:8080"] });
  expect(three).toContainEqual({ ready: ["10.1.0.3"], notReady: [], ports: ["http:8081"] });

  // A deleted pod leaves; so does one that finished.
  expect((await s.call("DELETE", `/api/v1/namespaces/${NS}/pods/web-3`, { gracePeriodSeconds: 0 })).status).toBe(200);
  await expectView("web", [{ ready: ["10.1.0.2"], notReady: ["10.1.0.1"], ports: ["http:8080", "metrics:9090"] }]);
  await setPodStatus(s, NS, "web-1", { ip: "10.1.0.1", ready: false, phase: "Failed" });
  await expectView("web", [{ ready: ["10.1.0.2"], notReady: [], ports: ["http:8080", "metrics:9090"] }]);

  // kubectl 1.20 shows the addresses.
  const p = Bun.spawnSync([KUBECTL_120, `--kubeconfig=${s.kubeconfig}`, "get", "endpoints", "web"]);
  expect(p.exitCode).toBe(0);
  expect(p.stdout.toString()).toMatch(/^web\s+10\.1\.0\.2:8080,10\.1\.0\.2:9090\s+\S+$/m);
});

test("a selector change moves the Endpoints to the newly selected pods", async () => {
  await create(`/api/v1/namespaces/${NS}/services`, { metadata: { name: "mover" }, spec: { selector: { app: "a" }, ports: [{ port: 80, targetPort: 8080 }] } });
  await createPod("a-1", { app: "a" }, {});
  await createPod("b-1", { app: "b" }, {});
  await setPodStatus(s, NS, "a-1", { ip: "10.2.0.1", ready: true });
  await setPodStatus(s, NS, "b-1", { ip: "10.2.0.2", ready: true });
  await expectView("mover", [{ ready: ["10.2.0.1"], notReady: [], ports: [":8080"] }]);
  const r = await s.call("PATCH", `/api/v1/namespaces/${NS}/services/mover`, { spec: { selector: { app: "b" } } }, { "content-type": "application/merge-patch+json" });
  expect(r.status).toBe(200);
  await expectView("mover", [{ ready: ["10.2.0.2"], notReady: [], ports: [":8080"] }]);
  // A pod relabelled into the selection joins.
  await s.call("PATCH", `/api/v1/namespaces/${NS}/pods/a-1`, { metadata: { labels: { app: "b" } } }, { "content-type": "application/merge-patch+json" });
  await expectView("mover", [{ ready: ["10.2.0.1", "10.2.0.2"], notReady: [], ports: [":8080"] }]);
});

test("publishNotReadyAddresses lists not-ready pods as ready; a headless Service publishes hostnames of its subdomain", async () => {
  await create(`/api/v1/namespaces/${NS}/services`, {
    metadata: { name: "peers" },
    spec: { clusterIP: "None", publishNotReadyAddresses: true, selector: { app: "peer" }, ports: [{ name: "p", port: 7000 }] },
  });
  await createPod("peer-0", { app: "peer" }, {}, "node-1", { hostname: "peer-0", subdomain: "peers" });
  await setPodStatus(s, NS, "peer-0", { ip: "10.3.0.1", ready: false });
  const ep = await expectView("peers", [{ ready: ["10.3.0.1"], notReady: [], ports: ["p:7000"] }]);
  expect(ep.subsets[0].addresses[0].hostname).toBe("peer-0");
  expect(ep.metadata.labels).toEqual({ "service.kubernetes.io/headless": "" });
});

test("a Service without a selector keeps its own Endpoints; a deleted Service's Endpoints go", async () => {
  await create(`/api/v1/namespaces/${NS}/services`, { metadata: { name: "external" }, spec: { ports: [{ port: 5432 }] } });
  const subsets = [{ addresses: [{ ip: "192.0.2.10" }], ports: [{ port: 5432, protocol: "TCP" }] }];
  await create(`/api/v1/namespaces/${NS}/endpoints`, { metadata: { name: "external" }, subsets });
  // Endpoints in line with their pods are not written again.
  const peers = (await endpoints("peers")).metadata.resourceVersion;
  await Bun.sleep(1000);
  expect((await endpoints("external")).subsets).toEqual(subsets);
  expect((await endpoints("peers")).metadata.resourceVersion).toBe(peers);

  expect((await s.call("DELETE", `/api/v1/namespaces/${NS}/services/web`)).status).toBe(200);
  await until(async () => ((await endpoints("web")) ? undefined : true), "the endpoints of web to go");
  // A Service's Endpoints deleted by hand come back.
  expect((await s.call("DELETE", `/api/v1/namespaces/${NS}/endpoints/mover`)).status).toBe(200);
  await expectView("mover", [{ ready: ["10.2.0.1", "10.2.0.2"], notReady: [], ports: [":8080"] }]);
});
