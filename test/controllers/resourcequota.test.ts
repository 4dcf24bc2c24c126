// The resourcequota controller against a real server and `kite controller-manager`: a quota's status
// shows its hard limits and the namespace's usage, which rises as objects come and falls as they go (the
// admission plugin alone only counts creates); creates past the limits are refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { setPodPhase } from "../helpers/playnode.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, cm: TestComponent;
const NS = "quota-test";
const BASE = `/api/v1/namespaces/${NS}`;

beforeAll(async () => {
  s = await startServer();
  expect((await s.call("POST", "/api/v1/namespaces", { metadata: { name: NS } })).status).toBe(201);
  cm = await startControllerManager(s, "resourcequota", ["--use-service-account-credentials"]);
});
afterAll(async () => {
  await cm?.stop();
  await s?.stop();
});

const pod = (name: string, cpu: string) => ({
  metadata: { name }, spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu, memory: "10Mi" }, limits: { cpu, memory: "10Mi" } } }] },
});
const usedOf = async () => (await s.call("GET", `${BASE}/resourcequotas/compute`)).body.status?.used ?? {};
const untilUsed = (want: Record<string, string>) =>
  until(async () => { const u = await usedOf(); return Object.entries(want).every(([k, v]) => u[k] === v) ? u : undefined; }, `usage ${JSON.stringify(want)}`);

test("a new quota's status shows its limits and what the namespace already uses", async () => {
  expect((await s.call("POST", `${BASE}/pods`, pod("a", "300m"))).status).toBe(201);
  const q = { metadata: { name: "compute" }, spec: { hard: { pods: "2", "requests.cpu": "1", services: "3" } } };
  expect((await s.call("POST", `${BASE}/resourcequotas`, q)).status).toBe(201);
  await untilUsed({ pods: "1", "requests.cpu": "300m", services: "0" });
  expect((await s.call("GET", `${BASE}/resourcequotas/compute`)).body.status.hard).toEqual({ pods: "2", "requests.cpu": "1", services: "3" });
});

test("usage rises with creates, a create past a limit is refused, and usage falls when objects go or pods finish", async () => {
  expect((await s.call("POST", `${BASE}/pods`, pod("b", "500m"))).status).toBe(201);
  await untilUsed({ pods: "2", "requests.cpu": "800m" });
  const refused = await s.call("POST", `${BASE}/pods`, pod("c", "100m"));
  expect(refused.status).toBe(403);
  expect(refused.body.message).toBe('pods "c" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2');
  expect((await s.call("DELETE", `${BASE}/pods/a?gracePeriodSeconds=0`)).status).toBe(200);
  await untilUsed({ pods: "1", "requests.cpu": "500m" });
  await setPodPhase(s, (await s.call("GET", `${BASE}/pods/b`)).body, "Succeeded");
  await untilUsed({ pods: "0", "requests.cpu": "0" });
  expect((await s.call("POST", `${BASE}/pods`, pod("c", "100m"))).status).toBe(201);
  await untilUsed({ pods: "1", "requests.cpu": "100m" });
});
