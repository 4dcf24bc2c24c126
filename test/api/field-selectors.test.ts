// Issue 13 item 5: field selectors per kind as upstream v1.21 supports them (its field label conversions
// and each kind's selectable fields), in lists and in watches served by the watch cache and by the store,
// with upstream's 400 for a label a kind does not support.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type TestServer, startServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus, openWatch } from "./fixtures.ts";

setDefaultTimeout(60_000);

const NS = "fs";
const EVENTS = `/api/v1/namespaces/${NS}/events`;
const EVENTS_V1 = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;
const PODS = `/api/v1/namespaces/${NS}/pods`;

let s: TestServer;
let noCache: TestServer;

const names = (r: { body: any }) => (r.body.items as any[]).map((i) => i.metadata.name).sort();
const sel = (path: string, fieldSelector: string) => `${path}${path.includes("?") ? "&" : "?"}fieldSelector=${encodeURIComponent(fieldSelector)}`;

async function listed(srv: TestServer, path: string, fieldSelector: string): Promise<string[]> {
  const r = await srv.call("GET", sel(path, fieldSelector));
  expectCode(r, 200, `GET ${path} fieldSelector=${fieldSelector}`);
  return names(r);
}

async function refused(srv: TestServer, path: string, fieldSelector: string, message: string) {
  const st = expectStatus(await srv.call("GET", sel(path, fieldSelector)), 400, "BadRequest", `GET ${path} fieldSelector=${fieldSelector}`);
  expect(st.message).toBe(message);
}

const pod = (name: string, spec: object = {}) => ({ metadata: { name }, spec: { containers: [{ name: "c", image: "nginx:1.21" }], ...spec } });
const coreEvent = (name: string, o: Record<string, any>) => ({
  metadata: { name },
  involvedObject: { kind: "Pod", namespace: NS, name: "web", uid: "uid-web", apiVersion: "v1", resourceVersion: "7", ...o.involvedObject },
  reason: o.reason ?? "Started", message: "m", type: o.type ?? "Normal", source: o.source ?? { component: "kubelet" },
  firstTimestamp: "2021-04-08T12:00:00Z", lastTimestamp: "2021-04-08T12:00:00Z", count: 1,
});

async function seed(srv: TestServer) {
  await createNamespace(srv, NS);
  const create = async (path: string, body: object) => expectCode(await srv.call("POST", path, body), 201, `POST ${path}`);
  await create(EVENTS, coreEvent("e-web-started", {}));
  await create(EVENTS, coreEvent("e-web-pulled", { reason: "Pulled", involvedObject: { fieldPath: "spec.containers{c}" } }));
  await create(EVENTS, coreEvent("e-db-failed", { reason: "Failed", type: "Warning", involvedObject: { name: "db", uid: "uid-db" } }));
  await create(EVENTS, coreEvent("e-deploy", { reason: "ScalingReplicaSet", source: { component: "deployment-controller" }, involvedObject: { kind: "Deployment", apiVersion: "apps/v1", name: "web", uid: "uid-deploy" } }));
  await create(EVENTS, coreEvent("e-comma", { reason: "a,b=c" }));
  await create(EVENTS_V1, {
    metadata: { name: "e-v1" }, eventTime: "2021-04-08T12:00:00.000000Z", reportingController: "example.com/ctl", reportingInstance: "ctl-1",
    action: "Scheduling", reason: "Scheduled", type: "Normal", note: "n", regarding: { kind: "Pod", namespace: NS, name: "web", uid: "uid-web", apiVersion: "v1" },
  });
  // a pod runs as an account that exists (the ServiceAccount admission plugin)
  await create(`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: "robot" } });
  await create(PODS, pod("p-node", { nodeName: "node-1", restartPolicy: "Never", serviceAccountName: "robot", schedulerName: "other" }));
  await create(PODS, pod("p-free"));
}

beforeAll(async () => {
  [s, noCache] = await Promise.all([startServer(), startServer(["--watch-cache=false"])]);
  await Promise.all([seed(s), seed(noCache)]);
}, 60_000);
afterAll(async () => { await Promise.all([s?.stop(), noCache?.stop()]); });

describe("core Events", () => {
  test("select on every involvedObject field, reason, type, source and reportingComponent", async () => {
    const cases: [string, string[]][] = [
      ["involvedObject.kind=Pod", ["e-comma", "e-db-failed", "e-v1", "e-web-pulled", "e-web-started"]],
      ["involvedObject.kind=Deployment", ["e-deploy"]],
      ["involvedObject.name=db", ["e-db-failed"]],
      ["involvedObject.namespace=" + NS + ",involvedObject.uid=uid-db", ["e-db-failed"]],
      ["involvedObject.apiVersion=apps/v1", ["e-deploy"]],
      ["involvedObject.resourceVersion=7", ["e-comma", "e-db-failed", "e-deploy", "e-web-pulled", "e-web-started"]],
      ["involvedObject.fieldPath=spec.containers{c}", ["e-web-pulled"]],
      ["reason=Pulled", ["e-web-pulled"]],
      ["reason!=Started,involvedObject.name=web,involvedObject.kind=Pod", ["e-comma", "e-v1", "e-web-pulled"]],
      ["type=Warning", ["e-db-failed"]],
      ["source=deployment-controller", ["e-deploy"]],
      // written through events.k8s.io: the reporting controller stands in for the source
      ["source=example.com/ctl", ["e-v1"]],
      ["reportingComponent=example.com/ctl", ["e-v1"]],
      ["reportingComponent=", ["e-comma", "e-db-failed", "e-deploy", "e-web-pulled", "e-web-started"]],
      ["metadata.name=e-deploy", ["e-deploy"]],
      [String.raw`reason=a\,b\=c`, ["e-comma"]],
    ];
    for (const srv of [s, noCache]) {
      for (const [fs, want] of cases) expect({ fs, got: await listed(srv, EVENTS, fs) }).toEqual({ fs, got: want });
    }
  });

  test("kubectl describe's selector (name, namespace, uid) across all namespaces", async () => {
    const got = await listed(s, "/api/v1/events", `involvedObject.name=web,involvedObject.namespace=${NS},involvedObject.uid=uid-web`);
    expect(got).toEqual(["e-comma", "e-v1", "e-web-pulled", "e-web-started"]);
  });

  test("unsupported labels and malformed selectors → upstream's 400", async () => {
    await refused(s, EVENTS, "involvedObject.color=red", "field label not supported: involvedObject.color");
    await refused(s, EVENTS, "regarding.name=web", "field label not supported: regarding.name");
    // terms are checked in sorted order, as upstream sorts them
    await refused(s, EVENTS, "zzz=1,aaa=1", "field label not supported: aaa");
    await refused(s, EVENTS, "reason=a=b", "invalid field selector: unescaped character in value: 61");
    await refused(s, EVENTS, String.raw`reason=a\x`, String.raw`invalid field selector: invalid escape sequence: \x`);
    await refused(s, EVENTS, "reason", "invalid selector: 'reason'; can't understand 'reason'");
    await refused(s, EVENTS, "reason =x", "field label not supported: reason ");
  });
});

describe("an event's reporter, core's reportingComponent and events.k8s.io's reportingController", () => {
  test("is one field, written and selected under either name", async () => {
    const body = {
      metadata: { name: "e-core-new" }, eventTime: "2021-04-08T12:00:00.000000Z", reportingComponent: "core.example.com/ctl", reportingInstance: "i-1",
      action: "Acting", reason: "Acted", type: "Normal", message: "m", involvedObject: { kind: "Pod", namespace: NS, name: "other" },
    };
    expectCode(await s.call("POST", EVENTS, body), 201, "POST a core event with eventTime and reportingComponent");
    try {
      expect(await listed(s, EVENTS, "reportingComponent=core.example.com/ctl")).toEqual(["e-core-new"]);
      expect(await listed(s, EVENTS_V1, "reportingController=core.example.com/ctl")).toEqual(["e-core-new"]);
      expect((await s.call("GET", `${EVENTS_V1}/e-core-new`)).body.reportingController).toBe("core.example.com/ctl");
      expect((await s.call("GET", `${EVENTS}/e-v1`)).body.reportingComponent).toBe("example.com/ctl");
    } finally {
      expectCode(await s.call("DELETE", `${EVENTS}/e-core-new`), 200, "DELETE e-core-new");
    }
  });
});

describe("events.k8s.io Events", () => {
  test("select on regarding.*, reason, type and reportingController", async () => {
    const cases: [string, string[]][] = [
      ["regarding.kind=Deployment", ["e-deploy"]],
      ["regarding.name=web,regarding.kind=Pod", ["e-comma", "e-v1", "e-web-pulled", "e-web-started"]],
      ["regarding.uid=uid-db", ["e-db-failed"]],
      ["regarding.apiVersion=apps/v1", ["e-deploy"]],
      ["regarding.fieldPath=spec.containers{c}", ["e-web-pulled"]],
      ["regarding.namespace=" + NS + ",regarding.resourceVersion=7,reason=Failed", ["e-db-failed"]],
      ["reportingController=example.com/ctl", ["e-v1"]],
      ["type=Warning", ["e-db-failed"]],
    ];
    for (const srv of [s, noCache]) {
      for (const [fs, want] of cases) expect({ fs, got: await listed(srv, EVENTS_V1, fs) }).toEqual({ fs, got: want });
    }
  });

  test("core's names are not events.k8s.io's", async () => {
    await refused(s, EVENTS_V1, "involvedObject.name=web", "field label not supported: involvedObject.name");
    await refused(s, EVENTS_V1, "source=kubelet", "field label not supported: source");
  });
});

describe("other kinds", () => {
  test("pods: spec and status fields, and spec.host for old clients", async () => {
    const cases: [string, string[]][] = [
      ["spec.nodeName=node-1", ["p-node"]],
      ["spec.host=node-1", ["p-node"]],
      ["spec.restartPolicy=Always", ["p-free"]],
      ["spec.schedulerName=default-scheduler", ["p-free"]],
      ["spec.serviceAccountName=robot", ["p-node"]],
      ["status.phase=Pending", ["p-free", "p-node"]],
      ["status.podIP=", ["p-free", "p-node"]],
      ["status.nominatedNodeName=", ["p-free", "p-node"]],
    ];
    for (const [fs, want] of cases) expect({ fs, got: await listed(s, PODS, fs) }).toEqual({ fs, got: want });
    await refused(s, PODS, "spec.hostNetwork=true", "field label not supported: spec.hostNetwork");
  });

  test("status.podIP reads the pod's first IP", async () => {
    const p = await s.call("GET", `${PODS}/p-free`);
    const st = await s.call("PUT", `${PODS}/p-free/status`, { ...p.body, status: { ...p.body.status, podIP: "10.1.2.3", podIPs: [{ ip: "10.1.2.3" }] } });
    expectCode(st, 200, "PUT p-free/status");
    expect(await listed(s, PODS, "status.podIP=10.1.2.3")).toEqual(["p-free"]);
  });

  test("secrets, namespaces, nodes, jobs, replication controllers and CSRs", async () => {
    const create = async (path: string, body: object) => expectCode(await s.call("POST", path, body), 201, `POST ${path}`);
    await create(`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: "tls" }, type: "example.com/custom", data: {} });
    await create(`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: "plain" }, data: {} });
    expect(await listed(s, `/api/v1/namespaces/${NS}/secrets`, "type=example.com/custom")).toEqual(["tls"]);
    expect(await listed(s, "/api/v1/namespaces", `status.phase=Active,metadata.name=${NS}`)).toEqual([NS]);
    await create("/api/v1/nodes", { metadata: { name: "n-cordoned" }, spec: { unschedulable: true } });
    await create("/api/v1/nodes", { metadata: { name: "n-open" }, spec: {} });
    expect(await listed(s, "/api/v1/nodes", "spec.unschedulable=true")).toEqual(["n-cordoned"]);
    expect(await listed(s, "/api/v1/nodes", "spec.unschedulable=false")).toEqual(["n-open"]);
    await create(`/apis/batch/v1/namespaces/${NS}/jobs`, { metadata: { name: "job" }, spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } } });
    expect(await listed(s, `/apis/batch/v1/namespaces/${NS}/jobs`, "status.successful=0")).toEqual(["job"]);
    await create(`/api/v1/namespaces/${NS}/replicationcontrollers`, {
      metadata: { name: "rc" }, spec: { replicas: 1, selector: { app: "rc" }, template: { metadata: { labels: { app: "rc" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    });
    expect(await listed(s, `/api/v1/namespaces/${NS}/replicationcontrollers`, "status.replicas=0")).toEqual(["rc"]);
    expect(await listed(s, "/apis/certificates.k8s.io/v1/certificatesigningrequests", "spec.signerName=example.com/none")).toEqual([]);

    // each kind's own words for a label it lacks
    await refused(s, "/api/v1/namespaces", "metadata.namespace=x", "field label not supported: metadata.namespace");
    await refused(s, "/api/v1/nodes", "spec.podCIDR=x", "field label not supported: spec.podCIDR");
    await refused(s, `/apis/batch/v1/namespaces/${NS}/jobs`, "status.failed=0", `field label "status.failed" not supported for batchv1.Job`);
    await refused(s, "/apis/certificates.k8s.io/v1/certificatesigningrequests", "spec.username=x", "field label not supported: spec.username");
    // kinds with no conversion of their own (apps/v1 registers none, not even for status.replicas)
    const known = (l: string) => `"${l}" is not a known field selector: only "metadata.name", "metadata.namespace"`;
    await refused(s, `/apis/apps/v1/namespaces/${NS}/replicasets`, "status.replicas=0", known("status.replicas"));
    await refused(s, `/api/v1/namespaces/${NS}/configmaps`, "spec.nodeName=x", known("spec.nodeName"));
    await refused(s, `/apis/batch/v1/namespaces/${NS}/cronjobs`, "status.successful=0", known("status.successful"));
  });
});

describe("watches", () => {
  for (const [label, srv] of [["watch cache", () => s], ["store", () => noCache]] as const) {
    test(`${label}: a field selector picks events, and an object leaving it is DELETED`, async () => {
      const server = srv();
      const l = await server.call("GET", EVENTS);
      const w = await openWatch(server, `${sel(EVENTS, "involvedObject.name=api,type=Warning")}&watch=true&resourceVersion=${l.body.metadata.resourceVersion}&timeoutSeconds=20`);
      try {
        const e = coreEvent("w-api", { type: "Warning", involvedObject: { name: "api", uid: "uid-api" } });
        const c = await server.call("POST", EVENTS, e);
        expectCode(c, 201, "POST w-api");
        expectCode(await server.call("POST", EVENTS, coreEvent("w-other", { type: "Warning" })), 201, "POST w-other");
        expectCode(await server.call("PUT", `${EVENTS}/w-api`, { ...c.body, type: "Normal" }), 200, "PUT w-api Normal");
        const got = await w.take(2);
        expect(got.map((x) => [x.type, x.object.metadata.name])).toEqual([["ADDED", "w-api"], ["DELETED", "w-api"]]);
      } finally { w.close(); }
      // from "now" (no resourceVersion): the current state first
      const w2 = await openWatch(server, `${sel(EVENTS_V1, "regarding.uid=uid-db")}&watch=true&timeoutSeconds=20`);
      try {
        expect((await w2.take(1)).map((x) => [x.type, x.object.metadata.name, x.object.apiVersion])).toEqual([["ADDED", "e-db-failed", "events.k8s.io/v1"]]);
      } finally { w2.close(); }
    });
  }

  test("a watch of one object whose name holds a comma and an equals sign", async () => {
    const roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    for (const name of ["a=b,c", "a"]) expectCode(await s.call("POST", roles, { metadata: { name }, rules: [] }), 201, `POST clusterrole ${name}`);
    const w = await openWatch(s, `/apis/rbac.authorization.k8s.io/v1/watch/clusterroles/${encodeURIComponent("a=b,c")}?timeoutSeconds=20`);
    try {
      expect((await w.take(1)).map((x) => [x.type, x.object.metadata.name])).toEqual([["ADDED", "a=b,c"]]);
    } finally { w.close(); }
  });

  test("an unsupported label on a watch → 400", async () => {
    await refused(s, `${EVENTS}?watch=true`, "involvedObject.color=red", "field label not supported: involvedObject.color");
  });
});
