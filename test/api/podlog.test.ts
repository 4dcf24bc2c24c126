// pods/NAME/log on the API server's side (no agent needed): the options checked and the container chosen
// as upstream's LogREST does, the node's address by --kubelet-preferred-address-types, and an agent that
// cannot be reached; discovery names the subresource.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, deadPort: number;

async function ok(method: string, path: string, body?: unknown) {
  const r = await s.call(method, path, body, method === "PATCH" ? { "Content-Type": "application/merge-patch+json" } : undefined);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
const c = (name: string) => ({ name, image: "busybox", command: ["sleep", "1"] });
const pod = (name: string, spec: Record<string, unknown>) => ok("POST", "/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name }, spec });
async function node(name: string, addresses: { type: string; address: string }[], port: number) {
  await ok("POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name } });
  await ok("PATCH", `/api/v1/nodes/${name}/status`, { status: { addresses, daemonEndpoints: { kubeletEndpoint: { Port: port } } } });
}
const log = (name: string, query = "") => s.call("GET", `/api/v1/namespaces/default/pods/${name}/log${query}`);

beforeAll(async () => {
  s = await startServer(["--kubelet-preferred-address-types=InternalIP,ExternalIP", "--kubelet-timeout=2s"]);
  deadPort = await freePort();
  await node("hostname-only", [{ type: "Hostname", address: "h1" }], 10250);
  await node("dead", [{ type: "Hostname", address: "dead" }, { type: "InternalIP", address: "127.0.0.1" }], deadPort);
  await pod("two", { containers: [c("a"), c("b")] });
  await pod("init", { initContainers: [c("i")], containers: [c("a"), c("b")] });
  await pod("pending", { containers: [c("a")] });
  await pod("nowhere", { nodeName: "hostname-only", containers: [c("a")] });
  await pod("ghostly", { nodeName: "ghost", containers: [c("a")] });
  await pod("unreachable", { nodeName: "dead", containers: [c("a")] });
});
afterAll(async () => { await s?.stop(); });

test("the container: named, or the pod's only one; else upstream's 400 naming the choices", async () => {
  expect((await log("two")).body).toMatchObject({ code: 400, reason: "BadRequest", message: "a container name must be specified for pod two, choose one of: [a b]" });
  expect((await log("init")).body.message).toBe("a container name must be specified for pod init, choose one of: [a b] or one of the init containers: [i]");
  expect((await log("two", "?container=x")).body).toMatchObject({ code: 400, message: "container x is not valid for pod two" });
  expect((await log("missing")).body).toMatchObject({ code: 404, reason: "NotFound", message: `pods "missing" not found` });
});

test("PodLogOptions validation: 422 Invalid in upstream's words; an unreadable value is a 400", async () => {
  const invalid = async (q: string) => { const r = await log("two", `?container=a&${q}`); expect(r.status).toBe(422); return r.body.message; };
  expect(await invalid("tailLines=-1")).toBe(`PodLogOptions "two" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`);
  expect(await invalid("limitBytes=0")).toBe(`PodLogOptions "two" is invalid: limitBytes: Invalid value: 0: must be greater than 0`);
  expect(await invalid("sinceSeconds=0")).toBe(`PodLogOptions "two" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0`);
  expect(await invalid("sinceSeconds=5&sinceTime=2021-01-01T00:00:00Z")).toBe("PodLogOptions \"two\" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified");
  expect((await log("two", "?container=a&tailLines=ten")).body).toMatchObject({ code: 400, message: `strconv.ParseInt: parsing "ten": invalid syntax` });
  expect((await log("two", "?container=a&follow=yes")).body).toMatchObject({ code: 400, message: `strconv.ParseBool: parsing "yes": invalid syntax` });
});

test("a pod on no node answers an empty log; the node's address and agent as upstream finds them", async () => {
  const pending = await s.req("/api/v1/namespaces/default/pods/pending/log");
  expect([pending.status, await pending.text()]).toEqual([200, ""]);
  expect((await log("nowhere")).body).toMatchObject({ code: 500, message: "no preferred addresses found; known addresses: [{Hostname h1}]" });
  expect((await log("ghostly")).body).toMatchObject({ code: 404, message: `nodes "ghost" not found` });
  expect((await log("unreachable")).body).toMatchObject({
    code: 500, message: `Get "https://127.0.0.1:${deadPort}/containerLogs/default/unreachable/a": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`,
  });
});

test("pods/log is in discovery (get only) and takes no other verb", async () => {
  const v1 = await ok("GET", "/api/v1");
  expect(v1.resources.find((r: any) => r.name === "pods/log")).toEqual({ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] });
  expect((await s.call("POST", "/api/v1/namespaces/default/pods/two/log", {})).status).toBe(405);
});
