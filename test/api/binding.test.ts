// Binding pods to nodes, the API server's side of scheduling (upstream's BindingREST): pods/NAME/binding and
// the legacy bindings collection, the PodScheduled condition, one binding per pod under races, dry runs,
// protobuf, discovery, RBAC's attributes, spec.nodeName fixed once set, and the scheduler's status patches.
import { beforeAll, afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeObject, encodeObject } from "../../pkg/protobuf/index.ts";
import { tempDir } from "../helpers/processes.ts";
import { TEST_TOKEN, kubectl, startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "binding";
const PROTOBUF = "application/vnd.kubernetes.protobuf";
const ADMIN = { Authorization: `Bearer ${TEST_TOKEN}` };
// system:kube-scheduler is granted bindings and pods/binding by the bootstrap role of that name
const SCHEDULER = { Authorization: "Bearer sched" };
const NOBODY = { Authorization: "Bearer nobody" };
let s: TestServer;

beforeAll(async () => {
  const tokens = join(tempDir("kite-binding-tokens-"), "tokens.csv");
  writeFileSync(tokens, `${TEST_TOKEN},kite-test,kite-test,system:masters\nsched,system:kube-scheduler,sched-uid\nnobody,nobody,nobody-uid\n`);
  s = await startServer(["--authorization-mode=Node,RBAC", `--token-auth-file=${tokens}`]);
  const call = s.call;
  // every request of this file is the admin's unless it says who it is
  s.call = (method, path, body, headers) => call(method, path, body, { ...ADMIN, ...headers });
  await createNamespace(s, NS);
}, 60_000);
afterAll(async () => { await s?.stop(); }, 30_000);

const pods = `/api/v1/namespaces/${NS}/pods`;
const binding = (pod: string, node: string, extra: Record<string, unknown> = {}) =>
  ({ apiVersion: "v1", kind: "Binding", metadata: { name: pod }, target: { apiVersion: "v1", kind: "Node", name: node }, ...extra });

async function makePod(name: string, meta: Record<string, unknown> = {}): Promise<any> {
  const r = await s.call("POST", pods, { metadata: { name, ...meta }, spec: { containers: [{ name: "c", image: "nginx:1.21" }] } });
  expectCode(r, 201, `create pod ${name}`);
  return r.body;
}
const getPod = async (name: string) => (await s.call("GET", `${pods}/${name}`)).body;
const bind = (pod: string, node: string, headers?: Record<string, string>, query = "") => s.call("POST", `${pods}/${pod}/binding${query}`, binding(pod, node), headers);
const SUCCESS = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

describe("pods/binding", () => {
  test("binds: spec.nodeName, the Binding's annotations, PodScheduled True; the answer is a Success Status", async () => {
    await makePod("web", { annotations: { keep: "me" } });
    const r = await s.call("POST", `${pods}/web/binding`, binding("web", "node-a", { metadata: { name: "web", annotations: { "scheduler.example.com/why": "fits" } } }));
    expectCode(r, 201, "bind");
    expect(r.body).toEqual(SUCCESS);
    const pod = await getPod("web");
    expect(pod.spec.nodeName).toBe("node-a");
    expect(pod.metadata.annotations).toEqual({ keep: "me", "scheduler.example.com/why": "fits" });
    const scheduled = pod.status.conditions.filter((c: any) => c.type === "PodScheduled");
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0].status).toBe("True");
    expect(Math.abs(Date.parse(scheduled[0].lastTransitionTime) - Date.now())).toBeLessThan(60_000);
  });

  test("a second binding is 409 Conflict in upstream's words, and changes nothing", async () => {
    await makePod("twice");
    expectCode(await bind("twice", "node-a"), 201, "first binding");
    const before = await getPod("twice");
    const st = expectStatus(await bind("twice", "node-b"), 409, "Conflict", "second binding");
    expect(st.message).toBe(`Operation cannot be fulfilled on pods/binding "twice": pod twice is already assigned to node "node-a"`);
    expect(st.details).toEqual({ name: "twice", kind: "pods/binding" });
    expect((await getPod("twice")).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  test("a pod created with spec.nodeName cannot be bound", async () => {
    const r = await s.call("POST", pods, { metadata: { name: "preset" }, spec: { nodeName: "node-z", containers: [{ name: "c", image: "nginx:1.21" }] } });
    expectCode(r, 201, "create pod with nodeName");
    const st = expectStatus(await bind("preset", "node-a"), 409, "Conflict", "binding a preset pod");
    expect(st.message).toBe(`Operation cannot be fulfilled on pods/binding "preset": pod preset is already assigned to node "node-z"`);
  });

  test("a missing pod is 404", async () => {
    const st = expectStatus(await bind("ghost", "node-a"), 404, "NotFound", "binding a missing pod");
    expect(st.message).toBe(`pods "ghost" not found`);
  });

  test("a pod being deleted is refused as upstream refuses it", async () => {
    await makePod("leaving", { finalizers: ["example.com/hold"] });
    expectCode(await s.call("DELETE", `${pods}/leaving`), 200, "delete held pod");
    const st = expectStatus(await bind("leaving", "node-a"), 409, "Conflict", "binding a pod being deleted");
    expect(st.message).toBe(`Operation cannot be fulfilled on pods/binding "leaving": pod leaving is being deleted, cannot be assigned to a host`);
    expect((await getPod("leaving")).spec.nodeName).toBeUndefined();
    expectCode(await s.call("PATCH", `${pods}/leaving`, { metadata: { finalizers: null } }, { "Content-Type": "application/merge-patch+json" }), 200, "release");
  });

  test("an invalid target: upstream's ValidatePodBinding causes, as a 422 (upstream answers an untyped 500)", async () => {
    await makePod("bad");
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: "Node" }, `Binding "bad" is invalid: target.name: Required value`],
      [{ kind: "Pod", name: "x" }, `Binding "bad" is invalid: target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`],
      [{ kind: "Pod" }, `Binding "bad" is invalid: [target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]`],
    ];
    for (const [target, message] of cases) {
      const r = await s.call("POST", `${pods}/bad/binding`, { ...binding("bad", ""), target });
      expectCode(r, 422, `target ${JSON.stringify(target)}`);
      expect(r.body).toMatchObject({ kind: "Status", status: "Failure", reason: "Invalid", message, code: 422, details: { name: "bad", kind: "Binding" } });
    }
    // an empty kind is a Node
    expectCode(await s.call("POST", `${pods}/bad/binding`, { ...binding("bad", ""), target: { name: "node-a" } }), 201, "target without kind");
  });

  test("the Binding must name the pod of the URL, in the URL's namespace", async () => {
    await makePod("named");
    const st = expectStatus(await s.call("POST", `${pods}/named/binding`, binding("other", "node-a")), 400, "BadRequest", "name mismatch");
    expect(st.message).toBe("name in URL does not match name in Binding object");
    const nsMismatch = await s.call("POST", `${pods}/named/binding`, binding("named", "node-a", { metadata: { name: "named", namespace: "elsewhere" } }));
    expectStatus(nsMismatch, 400, "BadRequest", "namespace mismatch");
    const wrongKind = await s.call("POST", `${pods}/named/binding`, { ...binding("named", "node-a"), kind: "Pod" });
    expectStatus(wrongKind, 400, "BadRequest", "a Pod body");
    expect((await getPod("named")).spec.nodeName).toBeUndefined();
  });

  test("dryRun=All answers as the real request and writes nothing", async () => {
    const before = await makePod("dry");
    const r = await bind("dry", "node-a", undefined, "?dryRun=All");
    expectCode(r, 201, "dry-run binding");
    expect(r.body).toEqual(SUCCESS);
    const after = await getPod("dry");
    expect(after.spec.nodeName).toBeUndefined();
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expectStatus(await bind("ghost", "node-a", undefined, "?dryRun=All"), 404, "NotFound", "dry-run binding of a missing pod");
  });

  test("concurrent bindings of one pod: exactly one wins, the others are 409", async () => {
    for (let round = 0; round < 3; round++) {
      const name = `race-${round}`;
      await makePod(name);
      const nodes = Array.from({ length: 8 }, (_, i) => `node-${i}`);
      const answers = await Promise.all(nodes.map((n) => bind(name, n)));
      const won = answers.flatMap((a, i) => (a.status === 201 ? [nodes[i]] : []));
      expect(won).toHaveLength(1);
      for (const a of answers) if (a.status !== 201) expectStatus(a, 409, "Conflict", "a losing binding");
      expect((await getPod(name)).spec.nodeName).toBe(won[0]);
    }
  });

  test("protobuf in and out", async () => {
    await makePod("proto");
    const r = await s.req(`${pods}/proto/binding`, {
      method: "POST", body: encodeObject(binding("proto", "node-p")), headers: { ...ADMIN, "Content-Type": PROTOBUF, Accept: PROTOBUF },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toBe(PROTOBUF);
    expect(decodeObject(new Uint8Array(await r.arrayBuffer()))).toMatchObject({ kind: "Status", status: "Success", code: 201 });
    expect((await getPod("proto")).spec.nodeName).toBe("node-p");
  });

  test("other verbs are not served", async () => {
    await makePod("verbs");
    expectStatus(await s.call("GET", `${pods}/verbs/binding`), 405, "MethodNotAllowed", "GET pods/binding");
    expectStatus(await s.call("PUT", `${pods}/verbs/binding`, binding("verbs", "n")), 405, "MethodNotAllowed", "PUT pods/binding");
  });
});

describe("the legacy bindings collection", () => {
  test("POST binds the pod the Binding names", async () => {
    await makePod("legacy");
    const r = await s.call("POST", `/api/v1/namespaces/${NS}/bindings`, binding("legacy", "node-l"));
    expectCode(r, 201, "POST bindings");
    expect(r.body).toEqual(SUCCESS);
    expect((await getPod("legacy")).spec.nodeName).toBe("node-l");
    const again = expectStatus(await s.call("POST", `/api/v1/namespaces/${NS}/bindings`, binding("legacy", "node-m")), 409, "Conflict", "second legacy binding");
    expect(again.message).toBe(`Operation cannot be fulfilled on pods/binding "legacy": pod legacy is already assigned to node "node-l"`);
  });

  test("the Binding must name a pod", async () => {
    const path = `/api/v1/namespaces/${NS}/bindings`;
    expect(expectStatus(await s.call("POST", path, { ...binding("", "node-a"), metadata: {} }), 400, "BadRequest", "no name").message).toBe("Name parameter required.");
    expect(expectStatus(await s.call("POST", path, binding("a/b", "node-a")), 400, "BadRequest", "a name with /").message).toBe(`Name parameter invalid: "a/b": may not contain '/'`);
  });

  test("it is create-only and stores nothing", async () => {
    expectStatus(await s.call("GET", `/api/v1/namespaces/${NS}/bindings`), 405, "MethodNotAllowed", "list bindings");
    expectStatus(await s.call("GET", `/api/v1/namespaces/${NS}/bindings/legacy`), 405, "MethodNotAllowed", "get a binding");
  });

  test("kubectl create -f binding.yaml binds the pod", async () => {
    await makePod("kubectl");
    const yaml = `apiVersion: v1\nkind: Binding\nmetadata:\n  name: kubectl\ntarget:\n  apiVersion: v1\n  kind: Node\n  name: node-k\n`;
    const r = await kubectl(s, ["-n", NS, "create", "-f", "-"], yaml);
    expect(r.code, r.err).toBe(0);
    // kubectl names the object the server answered with: upstream's Status of Success, which has no name
    expect(r.out.trim()).toBe("status/<unknown> created");
    expect((await getPod("kubectl")).spec.nodeName).toBe("node-k");
  });
});

test("discovery lists bindings and pods/binding, create only, as v1.21 does", async () => {
  const list = (await s.call("GET", "/api/v1")).body.resources;
  expect(list.find((r: any) => r.name === "bindings")).toEqual({ name: "bindings", singularName: "", namespaced: true, kind: "Binding", verbs: ["create"] });
  expect(list.find((r: any) => r.name === "pods/binding")).toEqual({ name: "pods/binding", singularName: "", namespaced: true, kind: "Binding", verbs: ["create"] });
});

test("authorization: create on pods/binding, which system:kube-scheduler has and others do not", async () => {
  await makePod("authz");
  const denied = expectStatus(await bind("authz", "node-a", NOBODY), 403, "Forbidden", "nobody binds");
  expect(denied.message).toBe(`pods "authz" is forbidden: User "nobody" cannot create resource "pods/binding" in API group "" in the namespace "${NS}"`);
  expectCode(await bind("authz", "node-a", SCHEDULER), 201, "the scheduler binds");
  expectCode(await s.call("POST", pods, { metadata: { name: "authz-legacy" }, spec: { containers: [{ name: "c", image: "nginx:1.21" }] } }), 201, "create pod");
  const legacy = await s.call("POST", `/api/v1/namespaces/${NS}/bindings`, binding("authz-legacy", "node-a"), SCHEDULER);
  expectCode(legacy, 201, "the scheduler binds through bindings");
});

describe("spec.nodeName is fixed once set", () => {
  const NOT_UPDATABLE = "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)";

  test("an update may not change it, nor set it on an unbound pod (422)", async () => {
    await makePod("fixed");
    expectCode(await bind("fixed", "node-a"), 201, "bind");
    const cases: [string, any][] = [["fixed", "node-b"], ["fixed", ""]];
    await makePod("unbound");
    cases.push(["unbound", "node-a"]);
    for (const [name, node] of cases) {
      const pod = await getPod(name);
      pod.spec.nodeName = node;
      const st = expectStatus(await s.call("PUT", `${pods}/${name}`, pod), 422, "Invalid", `PUT nodeName ${JSON.stringify(node)} on ${name}`);
      expect(st.details.causes).toContainEqual({ reason: "FieldValueForbidden", message: `Forbidden: ${NOT_UPDATABLE}`, field: "spec" });
    }
    const patched = await s.call("PATCH", `${pods}/unbound`, { spec: { nodeName: "node-a" } }, { "Content-Type": "application/strategic-merge-patch+json" });
    expectStatus(patched, 422, "Invalid", "patch nodeName");
    expect((await getPod("unbound")).spec.nodeName).toBeUndefined();
    expect((await getPod("fixed")).spec.nodeName).toBe("node-a");
  });

  test("an update of other fields keeps it", async () => {
    const pod = await getPod("fixed");
    pod.metadata.labels = { tier: "web" };
    const r = await s.call("PUT", `${pods}/fixed`, pod);
    expectCode(r, 200, "relabel a bound pod");
    expect(r.body.spec.nodeName).toBe("node-a");
  });
});

test("the scheduler's status patch: PodScheduled False (Unschedulable) and nominatedNodeName are kept, a binding then turns the condition True", async () => {
  await makePod("pending");
  const message = "0/3 nodes are available: 3 Insufficient cpu.";
  const patch = { status: { conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastProbeTime: null, lastTransitionTime: "2026-01-01T00:00:00Z" }], nominatedNodeName: "node-n" } };
  const r = await s.call("PATCH", `${pods}/pending/status`, patch, { "Content-Type": "application/strategic-merge-patch+json" });
  expectCode(r, 200, "status patch");
  const pod = await getPod("pending");
  expect(pod.status.nominatedNodeName).toBe("node-n");
  expect(pod.status.phase).toBe("Pending");
  expect(pod.status.conditions).toHaveLength(1);
  expect(pod.status.conditions[0]).toMatchObject({ type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastTransitionTime: "2026-01-01T00:00:00Z" });
  expect(pod.spec.nodeName).toBeUndefined();
  // a later patch of the same condition type merges on type, as upstream's strategic merge does
  const again = await s.call("PATCH", `${pods}/pending/status`, { status: { conditions: [{ type: "PodScheduled", message: "0/4 nodes are available: 4 Insufficient cpu." }] } }, { "Content-Type": "application/strategic-merge-patch+json" });
  expectCode(again, 200, "second status patch");
  expect(again.body.status.conditions).toHaveLength(1);
  expect(again.body.status.conditions[0]).toMatchObject({ status: "False", reason: "Unschedulable", message: "0/4 nodes are available: 4 Insufficient cpu." });

  expectCode(await bind("pending", "node-n"), 201, "bind");
  const bound = await getPod("pending");
  const [cond] = bound.status.conditions;
  expect(bound.status.conditions).toHaveLength(1);
  expect(cond.type).toBe("PodScheduled");
  expect(cond.status).toBe("True");
  expect(cond.reason).toBeUndefined();
  expect(cond.lastTransitionTime).not.toBe("2026-01-01T00:00:00Z");
});

test("OpenAPI describes both ways in, with upstream's operation ids, and the Binding kind", async () => {
  const doc = (await s.call("GET", "/openapi/v3/api/v1")).body;
  const sub = doc.paths["/api/v1/namespaces/{namespace}/pods/{name}/binding"];
  expect(Object.keys(sub).filter((k) => k !== "parameters")).toEqual(["post"]);
  expect(sub.post.operationId).toBe("createCoreV1NamespacedPodBinding");
  expect(sub.post["x-kubernetes-group-version-kind"]).toEqual({ group: "", kind: "Binding", version: "v1" });
  const legacy = doc.paths["/api/v1/namespaces/{namespace}/bindings"];
  expect(Object.keys(legacy).filter((k) => k !== "parameters")).toEqual(["post"]);
  expect(legacy.post.operationId).toBe("createCoreV1NamespacedBinding");
  const schema = doc.components.schemas["io.k8s.api.core.v1.Binding"];
  expect(schema.required).toEqual(["target"]);
  expect(schema.properties.target.allOf[0].$ref).toBe("#/components/schemas/io.k8s.api.core.v1.ObjectReference");
});

test("a PodScheduled condition already True keeps its transition time through the binding, as upstream's UpdatePodCondition does", async () => {
  await makePod("already");
  const since = "2026-02-02T00:00:00Z";
  const patch = { status: { conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: since }] } };
  expectCode(await s.call("PATCH", `${pods}/already/status`, patch, { "Content-Type": "application/strategic-merge-patch+json" }), 200, "status patch");
  expectCode(await bind("already", "node-a"), 201, "bind");
  const pod = await getPod("already");
  expect(pod.status.conditions).toHaveLength(1);
  expect(pod.status.conditions[0]).toMatchObject({ type: "PodScheduled", status: "True", lastTransitionTime: since });
});
