// The service controller against a real server and `kite controller-manager`: a LoadBalancer Service's
// status lists the InternalIP of every Ready, schedulable node (the node agents route its node ports), and
// follows the nodes; a Service that stops being a LoadBalancer loses it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { node } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const SVC = "/api/v1/namespaces/default/services/lb";
const MERGE = { "Content-Type": "application/merge-patch+json" };

async function addNode(name: string, ip: string) {
  const n = node(name);
  expect((await s.call("POST", "/api/v1/nodes", { ...n, status: { ...n.status, addresses: [{ type: "InternalIP", address: ip }, { type: "Hostname", address: name }] } })).status).toBe(201);
}
const ingressOf = async () => ((await s.call("GET", SVC)).body.status?.loadBalancer?.ingress ?? []).map((i: any) => i.ip);
const untilIngress = (want: string[]) => until(async () => (JSON.stringify(await ingressOf()) === JSON.stringify(want) ? true : undefined), `ingress ${want.join(",") || "none"}`);

beforeAll(async () => {
  s = await startServer();
  await addNode("lb-a", "10.0.0.2");
  await addNode("lb-b", "10.0.0.1");
  cm = await startControllerManager(s, "service", ["--use-service-account-credentials"]);
});
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

test("a LoadBalancer Service lists every Ready, schedulable node's address, and follows the nodes", async () => {
  const r = await s.call("POST", "/api/v1/namespaces/default/services", { metadata: { name: "lb" }, spec: { type: "LoadBalancer", selector: { app: "x" }, ports: [{ port: 80 }] } });
  expect(r.status).toBe(201);
  await untilIngress(["10.0.0.1", "10.0.0.2"]);
  expect((await s.call("PATCH", "/api/v1/nodes/lb-a", { spec: { unschedulable: true } }, MERGE)).status).toBe(200);
  await untilIngress(["10.0.0.1"]);
  await addNode("lb-c", "10.0.0.3");
  await untilIngress(["10.0.0.1", "10.0.0.3"]);
});

test("a Service changed to ClusterIP loses its load balancer status", async () => {
  const svc = (await s.call("GET", SVC)).body;
  svc.spec.type = "ClusterIP";
  for (const p of svc.spec.ports) delete p.nodePort;
  expect((await s.call("PUT", SVC, svc)).status).toBe(200);
  await untilIngress([]);
  expect((await s.call("GET", SVC)).body.status.loadBalancer).toEqual({});
});
