// Table representation: columns and cells follow upstream's printers (pkg/printers/internalversion, v1.21).
import { describe, expect, test } from "bun:test";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import type { Obj, ResourceDef } from "../../pkg/registry/types.ts";
import { humanDuration, partialObjectMetadata, partialObjectMetadataList, supportsTable, tableFor } from "../../pkg/table/index.ts";

type Any = any;
const NOW = Date.parse("2024-05-01T12:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString().replace(/\.\d+Z$/, "Z");
const S = 1000, M = 60 * S, H = 60 * M, D = 24 * H, Y = 365 * D;

const def = (group: string, kind: string): ResourceDef => {
  const d = BUILTIN.find((r) => r.group === group && r.kind === kind);
  if (!d) throw new Error(`no ${group}/${kind}`);
  return d;
};
const opts = { group: "meta.k8s.io", version: "v1", now: NOW };
const table = (group: string, kind: string, objs: Obj[], extra: Obj = {}): Any => tableFor(def(group, kind), objs, { ...opts, ...extra });
const names = (t: Any) => t.columnDefinitions.map((c: Any) => c.name);
/** Cells of the first row by column name. */
const row = (t: Any, i = 0): Record<string, unknown> => Object.fromEntries(t.columnDefinitions.map((c: Any, j: number) => [c.name, t.rows[i].cells[j]]));
const meta = (name: string, extra: Obj = {}) => ({ name, namespace: "default", uid: `uid-${name}`, resourceVersion: "7", creationTimestamp: ago(5 * M), ...extra });

describe("humanDuration", () => {
  const cases: [number, string][] = [
    [-2 * S, "<invalid>"], [-1.5 * S, "0s"], [-1 * S, "0s"], [0, "0s"], [999, "0s"], [1 * S, "1s"], [59 * S, "59s"],
    [119 * S, "119s"], [120 * S, "2m"], [121 * S, "2m1s"], [9 * M + 59 * S, "9m59s"], [10 * M, "10m"], [10 * M + 30 * S, "10m"],
    [179 * M, "179m"], [180 * M, "3h"], [3 * H + 5 * M, "3h5m"], [7 * H + 59 * M, "7h59m"], [8 * H, "8h"], [8 * H + 30 * M, "8h"],
    [47 * H, "47h"], [48 * H, "2d"], [49 * H, "2d1h"], [8 * D - H, "7d23h"], [8 * D, "8d"], [2 * Y - D, "729d"],
    [2 * Y, "2y"], [2 * Y + 10 * D, "2y10d"], [8 * Y - D, "7y364d"], [8 * Y, "8y"], [10 * Y + 100 * D, "10y"],
  ];
  for (const [ms, want] of cases) test(`${ms}ms → ${want}`, () => expect(humanDuration(ms)).toBe(want));
});

describe("envelope", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: meta("c"), data: { a: "1", b: "2" }, binaryData: { c: "AA==" } };

  test("supportsTable accepts both groups and versions only", () => {
    for (const g of ["meta.k8s.io", "meta.platform.io"]) for (const v of ["v1", "v1beta1"]) expect(supportsTable(g, v)).toBe(true);
    expect(supportsTable("meta.k8s.io", "v2")).toBe(false);
    expect(supportsTable("apps", "v1")).toBe(false);
  });

  test("apiVersion and row objects follow the asked group version", () => {
    for (const [group, version] of [["meta.k8s.io", "v1"], ["meta.platform.io", "v1beta1"]]) {
      const t = tableFor(def("", "ConfigMap"), [cm], { group, version, now: NOW });
      expect(t.kind).toBe("Table");
      expect(t.apiVersion).toBe(`${group}/${version}`);
      expect(t.rows[0].object).toEqual({ kind: "PartialObjectMetadata", apiVersion: `${group}/${version}`, metadata: cm.metadata });
    }
  });

  test("includeObject: Metadata (default), Object, None", () => {
    expect(table("", "ConfigMap", [cm], { includeObject: "Metadata" }).rows[0].object.kind).toBe("PartialObjectMetadata");
    expect(table("", "ConfigMap", [cm], { includeObject: "Object" }).rows[0].object).toEqual(cm);
    expect("object" in table("", "ConfigMap", [cm], { includeObject: "None" }).rows[0]).toBe(false);
  });

  test("list metadata is carried over; a single object gets empty metadata", () => {
    const listMeta = { resourceVersion: "42", continue: "tok", remainingItemCount: 3 };
    expect(table("", "ConfigMap", [cm], { listMeta }).metadata).toEqual(listMeta);
    expect(table("", "ConfigMap", [cm], { listMeta: { resourceVersion: "9", continue: "" } }).metadata).toEqual({ resourceVersion: "9" });
    expect(table("", "ConfigMap", [cm]).metadata).toEqual({});
  });

  test("column definitions carry name, type, format, description, priority; noHeaders drops them", () => {
    const t = table("", "ConfigMap", [cm]);
    expect(t.columnDefinitions[0]).toMatchObject({ name: "Name", type: "string", format: "name", priority: 0 });
    expect(Object.keys(t.columnDefinitions[1]).sort()).toEqual(["description", "format", "name", "priority", "type"]);
    expect(row(t)).toEqual({ Name: "c", Data: 3, Age: "5m" });
    expect(table("", "ConfigMap", [cm], { noHeaders: true }).columnDefinitions).toEqual([]);
  });

  test("an empty list has no rows", () => {
    expect(table("apps", "Deployment", []).rows).toEqual([]);
  });

  test("PartialObjectMetadata helpers", () => {
    expect(partialObjectMetadata(cm, "meta.k8s.io", "v1")).toEqual({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: cm.metadata });
    const list = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "5", continue: "x" }, items: [cm, cm] };
    const pl = partialObjectMetadataList(list, "meta.platform.io", "v1beta1");
    expect(pl.kind).toBe("PartialObjectMetadataList");
    expect(pl.apiVersion).toBe("meta.platform.io/v1beta1");
    expect(pl.metadata).toEqual(list.metadata);
    expect(pl.items).toHaveLength(2);
    expect(pl.items[0]).toEqual({ kind: "PartialObjectMetadata", apiVersion: "meta.platform.io/v1beta1", metadata: cm.metadata });
  });
});

describe("default columns", () => {
  test("types without a printer get Name and Created At (RFC 3339)", () => {
    for (const [group, kind] of [["rbac.authorization.k8s.io", "Role"], ["rbac.authorization.k8s.io", "ClusterRole"], ["apiextensions.k8s.io", "CustomResourceDefinition"], ["", "LimitRange"]]) {
      const t = table(group, kind, [{ metadata: { name: "x", creationTimestamp: "2024-01-02T03:04:05Z" } }]);
      expect(t.columnDefinitions.map((c: Any) => [c.name, c.type, c.format])).toEqual([["Name", "string", "name"], ["Created At", "date", ""]]);
      expect(t.rows[0].cells).toEqual(["x", "2024-01-02T03:04:05Z"]);
    }
  });

  test("fractional seconds and offsets are normalised; a missing timestamp is Go's zero time", () => {
    expect(table("rbac.authorization.k8s.io", "Role", [{ metadata: { name: "a", creationTimestamp: "2024-01-02T05:04:05.123+02:00" } }]).rows[0].cells[1]).toBe("2024-01-02T03:04:05Z");
    expect(table("rbac.authorization.k8s.io", "Role", [{ metadata: { name: "a" } }]).rows[0].cells[1]).toBe("0001-01-01T00:00:00Z");
  });

  test("a custom resource type gets the default table", () => {
    const crd = { group: "example.com", version: "v1", kind: "Widget", plural: "widgets", singular: "widget", namespaced: true };
    expect(names(tableFor(crd, [{ metadata: { name: "w" } }], opts))).toEqual(["Name", "Created At"]);
  });
});

describe("pods", () => {
  const pod = (status: Obj, spec: Obj = { containers: [{ name: "a", image: "nginx" }] }, extra: Obj = {}) => ({
    apiVersion: "v1", kind: "Pod", metadata: meta("p", extra), spec, status,
  });
  const cells = (p: Obj) => { const r = row(table("", "Pod", [p])); return [r.Ready, r.Status, r.Restarts]; };
  const running = (name: string, restartCount = 0, ready = true) => ({ name, ready, restartCount, state: { running: { startedAt: ago(M) } } });
  const two = { containers: [{ name: "a", image: "nginx" }, { name: "b", image: "redis" }] };

  test("columns, wide ones with priority 1", () => {
    const t = table("", "Pod", []);
    expect(names(t)).toEqual(["Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"]);
    expect(t.columnDefinitions.map((c: Any) => c.priority)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(t.columnDefinitions[3].type).toBe("integer");
  });

  test("running, all ready; restarts summed", () => {
    expect(cells(pod({ phase: "Running", containerStatuses: [running("a", 1), running("b", 2)] }, two))).toEqual(["2/2", "Running", 3]);
  });

  test("one of two ready", () => {
    expect(cells(pod({ phase: "Running", containerStatuses: [running("a"), running("b", 0, false)] }, two))).toEqual(["1/2", "Running", 0]);
  });

  test("pending without statuses shows the phase", () => {
    expect(cells(pod({ phase: "Pending" }))).toEqual(["0/1", "Pending", 0]);
  });

  test("waiting reason wins (ContainerCreating, CrashLoopBackOff)", () => {
    expect(cells(pod({ phase: "Pending", containerStatuses: [{ name: "a", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }] }))).toEqual(["0/1", "ContainerCreating", 0]);
    expect(cells(pod({ phase: "Running", containerStatuses: [{ name: "a", ready: false, restartCount: 5, state: { waiting: { reason: "CrashLoopBackOff" } } }] }))).toEqual(["0/1", "CrashLoopBackOff", 5]);
  });

  test("terminated: reason, else signal, else exit code", () => {
    const term = (t: Obj) => pod({ phase: "Running", containerStatuses: [{ name: "a", ready: false, restartCount: 0, state: { terminated: t } }] });
    expect(cells(term({ exitCode: 0, reason: "Completed" }))[1]).toBe("Completed");
    expect(cells(term({ exitCode: 137, signal: 9 }))[1]).toBe("Signal:9");
    expect(cells(term({ exitCode: 2 }))[1]).toBe("ExitCode:2");
  });

  test("succeeded pod is Completed and carries the row condition", () => {
    const p = pod({ phase: "Succeeded", containerStatuses: [{ name: "a", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }] });
    const t = table("", "Pod", [p]);
    expect(row(t).Status).toBe("Completed");
    expect(t.rows[0].conditions).toEqual([{ type: "Completed", status: "True", reason: "Succeeded", message: expect.any(String) }]);
    expect(table("", "Pod", [pod({ phase: "Running" })]).rows[0].conditions).toBeUndefined();
  });

  test("a completed container beside a running one: Running when the pod is Ready, else NotReady", () => {
    const statuses = [running("a"), { name: "b", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }];
    expect(cells(pod({ phase: "Running", containerStatuses: statuses, conditions: [{ type: "Ready", status: "True" }] }, two))).toEqual(["1/2", "Running", 0]);
    expect(cells(pod({ phase: "Running", containerStatuses: statuses, conditions: [{ type: "Ready", status: "False" }] }, two))).toEqual(["1/2", "NotReady", 0]);
  });

  test("status.reason overrides the phase (Evicted)", () => {
    expect(cells(pod({ phase: "Failed", reason: "Evicted" }))[1]).toBe("Evicted");
  });

  test("init containers: Init:n/m, Init:<waiting reason>, Init:ExitCode", () => {
    const spec = { initContainers: [{ name: "i1" }, { name: "i2" }], containers: [{ name: "a" }] };
    const done = { name: "i1", restartCount: 1, state: { terminated: { exitCode: 0, reason: "Completed" } } };
    expect(cells(pod({ phase: "Pending", initContainerStatuses: [done, { name: "i2", restartCount: 0, state: { running: {} } }] }, spec))).toEqual(["0/1", "Init:1/2", 1]);
    expect(cells(pod({ phase: "Pending", initContainerStatuses: [{ name: "i1", restartCount: 2, state: { waiting: { reason: "ImagePullBackOff" } } }] }, spec))).toEqual(["0/1", "Init:ImagePullBackOff", 2]);
    expect(cells(pod({ phase: "Pending", initContainerStatuses: [{ name: "i1", restartCount: 0, state: { terminated: { exitCode: 1 } } }] }, spec))[1]).toBe("Init:ExitCode:1");
    expect(cells(pod({ phase: "Pending", initContainerStatuses: [{ name: "i1", restartCount: 0, state: { terminated: { exitCode: 1, reason: "Error" } } }] }, spec))[1]).toBe("Init:Error");
    expect(cells(pod({ phase: "Pending", initContainerStatuses: [{ name: "i1", restartCount: 0, state: { waiting: { reason: "PodInitializing" } } }] }, spec))[1]).toBe("Init:0/2");
    // Once the init containers are done, restarts count the app containers only.
    expect(cells(pod({ phase: "Running", initContainerStatuses: [done, { ...done, name: "i2" }], containerStatuses: [running("a", 4)] }, spec))).toEqual(["1/1", "Running", 4]);
  });

  test("deleting: Terminating, or Unknown on a lost node", () => {
    const deleting = { deletionTimestamp: ago(S) };
    expect(cells(pod({ phase: "Running", containerStatuses: [running("a")] }, undefined, deleting))[1]).toBe("Terminating");
    expect(cells(pod({ phase: "Running", reason: "NodeLost" }, undefined, deleting))[1]).toBe("Unknown");
  });

  test("wide cells: IP, node, nominated node, readiness gates", () => {
    const p = pod(
      { phase: "Running", podIP: "10.0.0.5", podIPs: [{ ip: "10.0.0.5" }, { ip: "fd00::5" }], conditions: [{ type: "g1", status: "True" }, { type: "g2", status: "False" }] },
      { nodeName: "n1", containers: [{ name: "a" }], readinessGates: [{ conditionType: "g1" }, { conditionType: "g2" }] },
    );
    expect(row(table("", "Pod", [p]))).toMatchObject({ Name: "p", Age: "5m", IP: "10.0.0.5", Node: "n1", "Nominated Node": "<none>", "Readiness Gates": "1/2" });
    expect(row(table("", "Pod", [pod({ phase: "Pending" })]))).toMatchObject({ IP: "<none>", Node: "<none>", "Readiness Gates": "<none>" });
    expect(row(table("", "Pod", [pod({ podIP: "10.1.1.1" })])).IP).toBe("10.1.1.1");
  });

  test("age of a pod without creationTimestamp is <unknown>", () => {
    expect(row(table("", "Pod", [{ metadata: { name: "x" } }])).Age).toBe("<unknown>");
  });
});

describe("workloads", () => {
  const template = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1" }, { name: "side", image: "envoy" }] } };

  test("deployment READY n/m, UP-TO-DATE, AVAILABLE, wide CONTAINERS, IMAGES, SELECTOR", () => {
    const d = { metadata: meta("web"), spec: { replicas: 3, selector: { matchLabels: { app: "web", tier: "fe" } }, template }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } };
    const t = table("apps", "Deployment", [d]);
    expect(names(t)).toEqual(["Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"]);
    expect(t.rows[0].cells).toEqual(["web", "2/3", 3, 2, "5m", "web,side", "nginx:1,envoy", "app=web,tier=fe"]);
    expect(row(table("apps", "Deployment", [{ metadata: meta("x"), spec: { replicas: 1, template } }])).Ready).toBe("0/1");
  });

  test("replica set, stateful set, daemon set", () => {
    const sel = { matchLabels: { app: "web" }, matchExpressions: [{ key: "env", operator: "In", values: ["prod", "dev"] }, { key: "beta", operator: "DoesNotExist" }] };
    const rs = row(table("apps", "ReplicaSet", [{ metadata: meta("rs"), spec: { replicas: 2, selector: sel, template }, status: { replicas: 2, readyReplicas: 1 } }]));
    expect(rs).toEqual({ Name: "rs", Desired: 2, Current: 2, Ready: 1, Age: "5m", Containers: "web,side", Images: "nginx:1,envoy", Selector: "app=web,!beta,env in (dev,prod)" });
    const sts = table("apps", "StatefulSet", [{ metadata: meta("db"), spec: { replicas: 3, template }, status: { readyReplicas: 3 } }]);
    expect(names(sts)).toEqual(["Name", "Ready", "Age", "Containers", "Images"]);
    expect(row(sts).Ready).toBe("3/3");
    const ds = table("apps", "DaemonSet", [{ metadata: meta("ds"), spec: { selector: { matchLabels: { a: "b" } }, template: { spec: { ...template.spec, nodeSelector: { "kubernetes.io/os": "linux" } } } }, status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 } }]);
    expect(row(ds)).toEqual({ Name: "ds", Desired: 3, Current: 3, Ready: 2, "Up-to-date": 3, Available: 2, "Node Selector": "kubernetes.io/os=linux", Age: "5m", Containers: "web,side", Images: "nginx:1,envoy", Selector: "a=b" });
  });

  test("replication controller uses a map selector", () => {
    expect(row(table("", "ReplicationController", [{ metadata: meta("rc"), spec: { replicas: 2, selector: { b: "2", a: "1" }, template }, status: { replicas: 2, readyReplicas: 2 } }])).Selector).toBe("a=1,b=2");
  });

  test("controller revision names its controller", () => {
    const cr = { metadata: meta("web-5d8f", { ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", controller: true }] }), revision: 2 };
    expect(row(table("apps", "ControllerRevision", [cr]))).toEqual({ Name: "web-5d8f", Controller: "statefulset.apps/web", Revision: 2, Age: "5m" });
  });

  test("jobs: completions and duration", () => {
    const job = (spec: Obj, status: Obj) => row(table("batch", "Job", [{ metadata: meta("j"), spec: { template, ...spec }, status }]));
    expect(names(table("batch", "Job", []))).toEqual(["Name", "Completions", "Duration", "Age", "Containers", "Images", "Selector"]);
    expect(job({ completions: 3 }, { succeeded: 1, startTime: ago(90 * S) })).toMatchObject({ Completions: "1/3", Duration: "90s" });
    expect(job({ parallelism: 4 }, {})).toMatchObject({ Completions: "0/1 of 4", Duration: "" });
    expect(job({}, { succeeded: 1, startTime: ago(10 * M), completionTime: ago(10 * M - 125 * S) })).toMatchObject({ Completions: "1/1", Duration: "2m5s" });
  });

  test("cron jobs", () => {
    const cj = { metadata: meta("cj"), spec: { schedule: "*/5 * * * *", suspend: false, jobTemplate: { spec: { template } } }, status: { active: [{ name: "x" }], lastScheduleTime: ago(3 * M) } };
    const t = table("batch", "CronJob", [cj]);
    expect(names(t).slice(0, 6)).toEqual(["Name", "Schedule", "Suspend", "Active", "Last Schedule", "Age"]);
    expect(row(t)).toMatchObject({ Schedule: "*/5 * * * *", Suspend: "False", Active: 1, "Last Schedule": "3m" });
    expect(row(table("batch", "CronJob", [{ metadata: meta("c"), spec: { schedule: "@daily" } }]))).toMatchObject({ Suspend: "<unset>", Active: 0, "Last Schedule": "<none>" });
  });
});

describe("services, nodes and other core kinds", () => {
  test("service PORT(S), CLUSTER-IP, EXTERNAL-IP, SELECTOR", () => {
    const svc = { metadata: meta("web"), spec: { type: "NodePort", clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10"], selector: { app: "web" }, ports: [{ port: 80, protocol: "TCP" }, { port: 443, nodePort: 30443, protocol: "TCP" }] } };
    const t = table("", "Service", [svc]);
    expect(names(t)).toEqual(["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"]);
    expect(t.rows[0].cells).toEqual(["web", "NodePort", "10.96.0.10", "<none>", "80/TCP,443:30443/TCP", "5m", "app=web"]);
  });

  test("service external IPs by type", () => {
    const ext = (spec: Obj, status: Obj = {}) => row(table("", "Service", [{ metadata: meta("s"), spec, status }]))["External-IP"];
    expect(ext({ type: "ClusterIP", externalIPs: ["1.2.3.4"] })).toBe("1.2.3.4");
    expect(ext({ type: "LoadBalancer" })).toBe("<pending>");
    expect(ext({ type: "LoadBalancer" }, { loadBalancer: { ingress: [{ ip: "5.6.7.8" }, { hostname: "lb.example.com" }] } })).toBe("5.6.7.8,lb.example.com");
    expect(ext({ type: "ExternalName", externalName: "db.example.com" })).toBe("db.example.com");
    expect(row(table("", "Service", [{ metadata: meta("h"), spec: { clusterIP: "None" } }]))).toMatchObject({ Type: "ClusterIP", "Cluster-IP": "None", "Port(s)": "<none>", Selector: "<none>" });
  });

  test("nodes: status, roles, version, wide addresses and system info", () => {
    const node = {
      metadata: meta("n1", { labels: { "node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": "", "kubernetes.io/role": "edge" } }),
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: "MemoryPressure", status: "False" }, { type: "Ready", status: "True" }],
        addresses: [{ type: "InternalIP", address: "192.168.1.10" }, { type: "Hostname", address: "n1" }],
        nodeInfo: { kubeletVersion: "v1.21.0", osImage: "Debian", kernelVersion: "6.1", containerRuntimeVersion: "" },
      },
    };
    const t = table("", "Node", [node]);
    expect(names(t)).toEqual(["Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"]);
    expect(t.rows[0].cells).toEqual(["n1", "Ready,SchedulingDisabled", "control-plane,edge,master", "5m", "v1.21.0", "192.168.1.10", "<none>", "Debian", "6.1", "<unknown>"]);
    expect(row(table("", "Node", [{ metadata: meta("n2"), status: { conditions: [{ type: "Ready", status: "Unknown" }] } }]))).toMatchObject({ Status: "NotReady", Roles: "<none>" });
    expect(row(table("", "Node", [{ metadata: meta("n3") }])).Status).toBe("Unknown");
  });

  test("namespaces, secrets, service accounts, endpoints", () => {
    expect(row(table("", "Namespace", [{ metadata: meta("ns"), status: { phase: "Terminating" } }]))).toEqual({ Name: "ns", Status: "Terminating", Age: "5m" });
    expect(row(table("", "Secret", [{ metadata: meta("s"), type: "Opaque", data: { a: "", b: "" } }]))).toEqual({ Name: "s", Type: "Opaque", Data: 2, Age: "5m" });
    expect(row(table("", "ServiceAccount", [{ metadata: meta("sa"), secrets: [{ name: "t" }] }]))).toEqual({ Name: "sa", Secrets: 1, Age: "5m" });
    const ep = { metadata: meta("e"), subsets: [{ addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }], ports: [{ port: 80 }, { port: 443 }] }] };
    expect(row(table("", "Endpoints", [ep])).Endpoints).toBe("10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...");
    expect(row(table("", "Endpoints", [{ metadata: meta("e"), subsets: [{ addresses: [{ ip: "fd00::1" }], ports: [{ port: 53 }] }] }])).Endpoints).toBe("[fd00::1]:53");
    expect(row(table("", "Endpoints", [{ metadata: meta("e") }])).Endpoints).toBe("<none>");
  });

  test("events: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, then wide columns with Name last", () => {
    const ev = { metadata: meta("p.17"), involvedObject: { kind: "Pod", name: "p", fieldPath: "spec.containers{a}" }, reason: "Pulled", message: " pulled \n", type: "Normal", source: { component: "kubelet", host: "n1" }, count: 4, firstTimestamp: ago(H), lastTimestamp: ago(2 * M) };
    const t = table("", "Event", [ev]);
    expect(names(t)).toEqual(["Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"]);
    expect(t.columnDefinitions.filter((c: Any) => c.priority === 0).map((c: Any) => c.name)).toEqual(["Last Seen", "Type", "Reason", "Object", "Message"]);
    expect(t.columnDefinitions[9].format).toBe("name");
    expect(t.rows[0].cells).toEqual(["2m", "Normal", "Pulled", "pod/p", "spec.containers{a}", "kubelet, n1", "pulled", "60m", 4, "p.17"]);
  });

  test("events.k8s.io events print with the same columns", () => {
    const ev = { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: meta("e1"), regarding: { kind: "Node", name: "n1" }, note: "hi", reason: "Started", type: "Warning", eventTime: ago(30 * S), reportingController: "ctl", reportingInstance: "ctl-1" };
    expect(table("events.k8s.io", "Event", [ev]).rows[0].cells).toEqual(["30s", "Warning", "Started", "node/n1", "", "ctl, ctl-1", "hi", "30s", 1, "e1"]);
    const series = { ...ev, series: { count: 7, lastObservedTime: ago(5 * S) } };
    expect(row(table("events.k8s.io", "Event", [series]))).toMatchObject({ "Last Seen": "5s", Count: 7 });
  });

  test("persistent volumes and claims", () => {
    const pv = { metadata: meta("pv1"), spec: { capacity: { storage: "10Gi" }, accessModes: ["ReadWriteMany", "ReadWriteOnce"], persistentVolumeReclaimPolicy: "Retain", claimRef: { namespace: "default", name: "data" }, storageClassName: "fast" }, status: { phase: "Bound" } };
    expect(row(table("", "PersistentVolume", [pv]))).toEqual({ Name: "pv1", Capacity: "10Gi", "Access Modes": "RWO,RWX", "Reclaim Policy": "Retain", Status: "Bound", Claim: "default/data", StorageClass: "fast", Reason: "", Age: "5m", VolumeMode: "<unset>" });
    const pvc = { metadata: meta("data"), spec: { volumeName: "pv1", storageClassName: "fast", volumeMode: "Filesystem" }, status: { phase: "Bound", capacity: { storage: "10Gi" }, accessModes: ["ReadWriteOnce"] } };
    expect(row(table("", "PersistentVolumeClaim", [pvc]))).toEqual({ Name: "data", Status: "Bound", Volume: "pv1", Capacity: "10Gi", "Access Modes": "RWO", StorageClass: "fast", Age: "5m", VolumeMode: "Filesystem" });
    expect(row(table("", "PersistentVolumeClaim", [{ metadata: meta("p", { deletionTimestamp: ago(S) }), spec: {}, status: { phase: "Pending" } }]))).toMatchObject({ Status: "Terminating", Capacity: "", "Access Modes": "" });
  });

  test("resource quotas split requests and limits", () => {
    const q = { metadata: meta("q"), status: { hard: { pods: "10", "limits.cpu": "2", "requests.cpu": "1" }, used: { pods: "3", "requests.cpu": "500m" } } };
    expect(row(table("", "ResourceQuota", [q]))).toEqual({ Name: "q", Age: "5m", Request: "pods: 3/10, requests.cpu: 500m/1", Limit: "limits.cpu: 0/2" });
  });
});

describe("other groups", () => {
  test("role bindings: ROLE and wide subjects", () => {
    const rb = { metadata: meta("rb"), roleRef: { kind: "ClusterRole", name: "view" }, subjects: [{ kind: "User", name: "alice" }, { kind: "User", name: "bob" }, { kind: "Group", name: "devs" }, { kind: "ServiceAccount", namespace: "kube-system", name: "default" }] };
    for (const kind of ["RoleBinding", "ClusterRoleBinding"]) {
      const t = table("rbac.authorization.k8s.io", kind, [rb]);
      expect(names(t)).toEqual(["Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"]);
      expect(t.rows[0].cells).toEqual(["rb", "ClusterRole/view", "5m", "alice, bob", "devs", "kube-system/default"]);
    }
  });

  test("priority classes, leases, pod disruption budgets", () => {
    expect(row(table("scheduling.k8s.io", "PriorityClass", [{ metadata: meta("high"), value: 1000, globalDefault: true }]))).toEqual({ Name: "high", Value: 1000, "Global-Default": true, Age: "5m" });
    expect(row(table("coordination.k8s.io", "Lease", [{ metadata: meta("l"), spec: { holderIdentity: "me" } }]))).toEqual({ Name: "l", Holder: "me", Age: "5m" });
    const pdb = table("policy", "PodDisruptionBudget", [{ metadata: meta("pdb"), spec: { minAvailable: "50%" }, status: { disruptionsAllowed: 1 } }]);
    expect(names(pdb)).toEqual(["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]);
    expect(pdb.rows[0].cells).toEqual(["pdb", "50%", "N/A", 1, "5m"]);
  });

  test("horizontal pod autoscalers (autoscaling/v1)", () => {
    const hpa = { metadata: meta("h"), spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 }, status: { currentReplicas: 2, currentCPUUtilizationPercentage: 35 } };
    expect(row(table("autoscaling", "HorizontalPodAutoscaler", [hpa]))).toEqual({ Name: "h", Reference: "Deployment/web", Targets: "35%/80%", MinPods: "1", MaxPods: 5, Replicas: 2, Age: "5m" });
    expect(row(table("autoscaling", "HorizontalPodAutoscaler", [{ metadata: meta("h"), spec: { maxReplicas: 3, targetCPUUtilizationPercentage: 50 } }]))).toMatchObject({ Targets: "<unknown>/50%", MinPods: "<unset>", Replicas: 0 });
    expect(row(table("autoscaling", "HorizontalPodAutoscaler", [{ metadata: meta("h"), spec: { maxReplicas: 3 } }])).Targets).toBe("<none>");
  });

  test("ingresses and ingress classes", () => {
    const ing = { metadata: meta("ing"), spec: { ingressClassName: "nginx", rules: [{ host: "a.example.com" }, { host: "b.example.com" }, {}], tls: [{ hosts: ["a.example.com"] }] }, status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } };
    const t = table("networking.k8s.io", "Ingress", [ing]);
    expect(names(t)).toEqual(["Name", "Class", "Hosts", "Address", "Ports", "Age"]);
    expect(t.rows[0].cells).toEqual(["ing", "nginx", "a.example.com,b.example.com", "1.2.3.4", "80, 443", "5m"]);
    expect(row(table("networking.k8s.io", "Ingress", [{ metadata: meta("i"), spec: {} }]))).toMatchObject({ Class: "<none>", Hosts: "*", Address: "", Ports: "80" });
    const many = { metadata: meta("m"), spec: { rules: ["a", "b", "c", "d", "e"].map((h) => ({ host: h })) } };
    expect(row(table("networking.k8s.io", "Ingress", [many])).Hosts).toBe("a,b,c + 2 more...");
    expect(row(table("networking.k8s.io", "IngressClass", [{ metadata: meta("ic"), spec: { controller: "k8s.io/nginx", parameters: { apiGroup: "k8s.example.com", kind: "Params", name: "p" } } }]))).toEqual({ Name: "ic", Controller: "k8s.io/nginx", Parameters: "Params.k8s.example.com/p", Age: "5m" });
  });

  test("network policies and endpoint slices", () => {
    expect(row(table("networking.k8s.io", "NetworkPolicy", [{ metadata: meta("np"), spec: { podSelector: {} } }]))["Pod-Selector"]).toBe("<none>");
    expect(row(table("networking.k8s.io", "NetworkPolicy", [{ metadata: meta("np"), spec: { podSelector: { matchLabels: { role: "db" } } } }]))["Pod-Selector"]).toBe("role=db");
    const es = { metadata: meta("es"), addressType: "IPv4", ports: [{ port: 80 }, { name: "https" }, {}, { port: 9 }], endpoints: [{ addresses: ["10.0.0.1"] }, { addresses: ["10.0.0.2"] }] };
    expect(row(table("discovery.k8s.io", "EndpointSlice", [es]))).toEqual({ Name: "es", AddressType: "IPv4", Ports: "80,https,* + 1 more...", Endpoints: "10.0.0.1,10.0.0.2", Age: "5m" });
    expect(row(table("discovery.k8s.io", "EndpointSlice", [{ metadata: meta("e"), addressType: "IPv4" }]))).toMatchObject({ Ports: "<unset>", Endpoints: "<unset>" });
  });

  test("storage kinds", () => {
    const sc = { metadata: meta("std", { annotations: { "storageclass.kubernetes.io/is-default-class": "true" } }), provisioner: "kite.io/hostpath" };
    expect(row(table("storage.k8s.io", "StorageClass", [sc]))).toEqual({ Name: "std (default)", Provisioner: "kite.io/hostpath", ReclaimPolicy: "Delete", VolumeBindingMode: "Immediate", AllowVolumeExpansion: false, Age: "5m" });
    expect(row(table("storage.k8s.io", "CSIDriver", [{ metadata: meta("d"), spec: {} }]))).toEqual({ Name: "d", AttachRequired: true, PodInfoOnMount: false, StorageCapacity: false, TokenRequests: "<unset>", RequiresRepublish: false, Modes: "<none>", Age: "5m" });
    expect(row(table("storage.k8s.io", "CSINode", [{ metadata: meta("n"), spec: { drivers: [{ name: "d" }] } }]))).toEqual({ Name: "n", Drivers: 1, Age: "5m" });
    expect(row(table("storage.k8s.io", "VolumeAttachment", [{ metadata: meta("va"), spec: { attacher: "d", nodeName: "n1", source: { persistentVolumeName: "pv1" } }, status: { attached: true } }]))).toEqual({ Name: "va", Attacher: "d", PV: "pv1", Node: "n1", Attached: true, Age: "5m" });
  });

  test("runtime classes, CSRs, webhook configurations, pod templates", () => {
    expect(row(table("node.k8s.io", "RuntimeClass", [{ metadata: meta("rc"), handler: "runc" }]))).toEqual({ Name: "rc", Handler: "runc", Age: "5m" });
    const csr = { metadata: meta("csr"), spec: { signerName: "kubernetes.io/kube-apiserver-client", username: "alice" }, status: { conditions: [{ type: "Approved", status: "True" }], certificate: "AAAA" } };
    expect(row(table("certificates.k8s.io", "CertificateSigningRequest", [csr]))).toEqual({ Name: "csr", Age: "5m", SignerName: "kubernetes.io/kube-apiserver-client", Requestor: "alice", Condition: "Approved,Issued" });
    expect(row(table("certificates.k8s.io", "CertificateSigningRequest", [{ metadata: meta("c"), spec: {} }])).Condition).toBe("Pending");
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      expect(row(table("admissionregistration.k8s.io", kind, [{ metadata: meta("w"), webhooks: [{ name: "a" }, { name: "b" }] }]))).toEqual({ Name: "w", Webhooks: 2, Age: "5m" });
    }
    const pt = { metadata: meta("pt"), template: { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "busybox" }] } } };
    expect(row(table("", "PodTemplate", [pt]))).toEqual({ Name: "pt", Containers: "c", Images: "busybox", "Pod Labels": "app=x" });
  });

  test("every built-in type has a table whose first column is the name (events excepted)", () => {
    for (const d of BUILTIN) {
      const t: Any = tableFor(d, [{ metadata: meta("x") }], opts);
      expect(t.rows[0].cells).toHaveLength(t.columnDefinitions.length);
      if (d.kind === "Event") continue;
      expect(t.columnDefinitions[0]).toMatchObject({ name: "Name", format: "name" });
      expect(t.rows[0].cells[0]).toBe("x");
    }
  });
});
