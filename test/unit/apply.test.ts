// Server-side apply and field ownership (spec §9.1). Cases follow upstream's documentation
// of server-side apply (managedFields example, conflicts and their three resolutions,
// controllers that force, transferring ownership, removal of fields and list items,
// resetting managedFields) and the behaviour of structured-merge-diff.
import { describe, expect, test } from "bun:test";
import {
  ApplyError, applyConfig, conflictCauses, conflictMessage, fieldsV1Of, updateManagedFields, validateApplyConfig,
  type Conflict, type Obj,
} from "../../pkg/apply/index.ts";

type Any = any;
const T0 = "2021-05-01T10:00:00Z";
const T1 = "2021-05-01T10:00:01Z";
const T2 = "2021-05-01T10:00:02Z";

/** Applies and expects success; the stored object gets a uid as the server would give it. */
function apply(live: Obj | undefined, config: Obj, manager: string, opts: { force?: boolean; now?: string } = {}): Any {
  const r = applyConfig(String(config.kind), String(config.apiVersion), live, config, manager, opts.force ?? false, opts.now ?? T1);
  if ("conflicts" in r) throw new Error(`unexpected conflicts: ${conflictMessage(r.conflicts)}`);
  const o: Any = r.object;
  o.metadata.uid ??= "uid-1";
  return o;
}

function conflicts(live: Obj, config: Obj, manager: string): Conflict[] {
  const r = applyConfig(String(config.kind), String(config.apiVersion), live, config, manager, false, T2);
  if (!("conflicts" in r)) throw new Error("expected conflicts");
  return r.conflicts;
}

const entry = (o: Any, manager: string, operation = "Apply") =>
  (o.metadata.managedFields ?? []).find((e: Any) => e.manager === manager && e.operation === operation);
const owned = (o: Any, manager: string, operation = "Apply") => entry(o, manager, operation)?.fieldsV1;

const configMap = (data: Record<string, string>, labels?: Record<string, string>): Obj => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "test-cm", namespace: "default", ...(labels ? { labels } : {}) },
  data,
});

const deployment = (spec: Obj): Obj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx-deployment", labels: { app: "nginx" } },
  spec,
});

const nginxSpec = (extra: Obj = {}, containers?: unknown[]): Obj => ({
  selector: { matchLabels: { app: "nginx" } },
  template: {
    metadata: { labels: { app: "nginx" } },
    spec: { containers: containers ?? [{ name: "nginx", image: "nginx:1.14.2" }] },
  },
  ...extra,
});

describe("managedFields entries", () => {
  test("the documentation's ConfigMap example", () => {
    const cm = apply(undefined, configMap({ key: "some value" }, { "test-label": "test" }), "kubectl", { now: T0 });
    expect(cm.metadata.managedFields).toEqual([{
      manager: "kubectl",
      operation: "Apply",
      apiVersion: "v1",
      time: T0,
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { "f:key": {} }, "f:metadata": { "f:labels": { "f:test-label": {} } } },
    }]);
    expect(cm.data).toEqual({ key: "some value" });
  });

  test("FieldsV1 of a Deployment: k: keys (sorted, defaults filled), `.` for items, f:name included", () => {
    const d = deployment(nginxSpec({ replicas: 3 }, [
      { name: "nginx", image: "nginx:1.14.2", ports: [{ containerPort: 80 }], env: [{ name: "A", value: "1" }] },
    ]));
    expect(JSON.stringify(fieldsV1Of("Deployment", { ...d, status: { replicas: 1 } }, { ignoreFields: ["status"] }))).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},' +
        '"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:env":{"k:{\\"name\\":\\"A\\"}":{".":{},"f:name":{},"f:value":{}}},' +
        '"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}',
    );
  });

  test("set lists use v:, atomic lists and maps are one field, server metadata is excluded", () => {
    const f: Any = fieldsV1Of("Pod", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "d", uid: "u", resourceVersion: "7", creationTimestamp: "x", finalizers: ["b", "a"] },
      spec: { containers: [{ name: "c", args: ["x", "y"] }], nodeSelector: { disk: "ssd" } },
    });
    expect(f["f:metadata"]).toEqual({ "f:finalizers": { 'v:"a"': {}, 'v:"b"': {} } });
    expect(Object.keys(f["f:metadata"]["f:finalizers"])).toEqual(['v:"a"', 'v:"b"']);
    expect(f["f:spec"]["f:containers"]['k:{"name":"c"}']["f:args"]).toEqual({});
    expect(f["f:spec"]["f:nodeSelector"]).toEqual({});
    expect(f["f:apiVersion"]).toBeUndefined();
  });

  test("Update on create: new maps and list items get `.`, always-present structs do not", () => {
    const created: Any = updateManagedFields("Deployment", "apps/v1", undefined, {
      ...deployment(nginxSpec({ replicas: 1, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%" } } })),
      status: {},
    }, "kubectl-create", T0, { ignoreFields: ["status"] });
    const e = entry(created, "kubectl-create", "Update");
    expect(e).toMatchObject({ manager: "kubectl-create", operation: "Update", apiVersion: "apps/v1", time: T0, fieldsType: "FieldsV1" });
    const spec = e.fieldsV1["f:spec"];
    expect(e.fieldsV1["f:metadata"]).toEqual({ "f:labels": { ".": {}, "f:app": {} } });
    expect(spec["."]).toBeUndefined();
    expect(spec["f:strategy"]).toEqual({ "f:rollingUpdate": { ".": {}, "f:maxSurge": {} }, "f:type": {} });
    expect(spec["f:template"]["f:spec"]["f:containers"]).toEqual({
      'k:{"name":"nginx"}': { ".": {}, "f:image": {}, "f:name": {}, "f:resources": {} },
    });
    expect(e.fieldsV1["f:status"]).toBeUndefined();
  });

  test("Update on create: objects of one shape reuse its field set, and get exactly what the engine gives", () => {
    // managedFields: [] sends a create through the engine itself (the shape cache serves those without)
    const engine = (kind: string, v: string, o: Any, opts = {}) =>
      updateManagedFields(kind, v, undefined, { ...o, metadata: { ...o.metadata, managedFields: [] } }, "m", T0, opts);
    const cached = (kind: string, v: string, o: Any, opts = {}) => updateManagedFields(kind, v, undefined, o, "m", T0, opts);
    const objects: [string, string, Any, object?][] = [
      ["ConfigMap", "v1", configMap({ a: "1", b: "2" })],
      ["ConfigMap", "v1", configMap({ a: "other value", b: "" })], // same shape, other values
      ["ConfigMap", "v1", configMap({ a: "1", c: "3" })], // other keys
      ["ConfigMap", "v1", { ...configMap({ a: "1" }), data: null }], // null where a map was
      ["Deployment", "apps/v1", { ...deployment(nginxSpec({ replicas: 1 })), status: {} }, { ignoreFields: ["status"] }],
      ["Deployment", "apps/v1", { ...deployment(nginxSpec({ replicas: 2 })), status: {} }, { ignoreFields: ["status"] }],
      ["Deployment", "apps/v1", { ...deployment(nginxSpec({ replicas: 1 })), status: {} }], // other options
    ];
    // a list item told apart by its value: containers named differently own different keys
    const renamed: Any = deployment(nginxSpec({ replicas: 1 }));
    renamed.spec.template.spec.containers[0].name = "other";
    objects.push(["Deployment", "apps/v1", renamed]);
    for (const [kind, v, o, opts] of objects) {
      const want = engine(kind, v, o, opts);
      expect(cached(kind, v, o, opts)).toEqual(want); // computed
      expect(cached(kind, v, o, opts)).toEqual(want); // from the cache
    }
    const keys = (o: Any) => Object.keys(entry(cached("Deployment", "apps/v1", o), "m", "Update").fieldsV1["f:spec"]["f:template"]["f:spec"]["f:containers"]);
    expect(keys(renamed)).toEqual(['k:{"name":"other"}']);
    expect(keys(deployment(nginxSpec({ replicas: 1 })))).toEqual(['k:{"name":"nginx"}']);
    // what a caller gets is its own: changing it does not change the next create's
    const first: Any = cached("ConfigMap", "v1", configMap({ x: "1" }));
    first.metadata.managedFields[0].fieldsV1["f:data"]["f:y"] = {};
    expect(entry(cached("ConfigMap", "v1", configMap({ x: "2" })), "m", "Update").fieldsV1["f:data"]).toEqual({ ".": {}, "f:x": {} });
  });

  test("entries are sorted: Apply first, then by time, then by manager", () => {
    let cm = apply(undefined, configMap({ a: "1" }), "zeta", { now: T0 });
    cm = updateManagedFields("ConfigMap", "v1", cm, { ...cm, data: { ...cm.data, b: "2" } }, "alpha", T2);
    cm = apply(cm, configMap({ c: "3" }), "beta", { now: T1 });
    expect(cm.metadata.managedFields.map((e: Any) => `${e.operation}:${e.manager}`)).toEqual(["Apply:zeta", "Apply:beta", "Update:alpha"]);
  });
});

describe("apply", () => {
  test("apply to a missing object creates it; the config's fields are owned", () => {
    const d = apply(undefined, deployment(nginxSpec({ replicas: 3 })), "kubectl");
    expect(d.spec.replicas).toBe(3);
    expect(d.metadata.name).toBe("nginx-deployment");
    expect(owned(d, "kubectl")["f:spec"]["f:replicas"]).toEqual({});
    expect(d.metadata.managedFields).toHaveLength(1);
  });

  test("re-applying the same config changes nothing, not even managedFields' time", () => {
    const d = apply(undefined, deployment(nginxSpec({ replicas: 3 })), "kubectl", { now: T0 });
    const again = apply(d, deployment(nginxSpec({ replicas: 3 })), "kubectl", { now: T2 });
    expect(again).toEqual(d);
    expect(entry(again, "kubectl").time).toBe(T0);
  });

  test("maps merge granularly; other managers' keys stay", () => {
    let cm = apply(undefined, configMap({ a: "1" }), "one");
    cm = apply(cm, configMap({ b: "2" }), "two");
    expect(cm.data).toEqual({ a: "1", b: "2" });
    expect(owned(cm, "one")).toEqual({ "f:data": { "f:a": {} } });
    expect(owned(cm, "two")).toEqual({ "f:data": { "f:b": {} } });
  });

  test("a field dropped from the config is removed when nobody else owns it (rule 5)", () => {
    let cm = apply(undefined, configMap({ a: "1", b: "2" }, { x: "1", y: "2" }), "kubectl");
    cm = apply(cm, configMap({ a: "1" }, { x: "1" }), "kubectl");
    expect(cm.data).toEqual({ a: "1" });
    expect(cm.metadata.labels).toEqual({ x: "1" });
    expect(owned(cm, "kubectl")).toEqual({ "f:data": { "f:a": {} }, "f:metadata": { "f:labels": { "f:x": {} } } });
    // Dropping the whole map removes it too.
    cm = apply(cm, configMap({ a: "1" }), "kubectl");
    expect(cm.metadata.labels).toBeUndefined();
  });

  test("fields set by someone else are not removed by an applier that never applied them (rule 10)", () => {
    let cm = apply(undefined, configMap({ a: "1" }), "kubectl");
    cm = updateManagedFields("ConfigMap", "v1", cm, { ...cm, data: { a: "1", extra: "e" } }, "editor", T1);
    cm = apply(cm, configMap({ a: "2" }), "kubectl");
    expect(cm.data).toEqual({ a: "2", extra: "e" });
  });

  test("list-map items: removing a container removes it, editing one keeps the other's fields", () => {
    const two = [
      { name: "nginx", image: "nginx:1.14.2", env: [{ name: "A", value: "1" }, { name: "B", value: "2" }] },
      { name: "sidecar", image: "busybox" },
    ];
    let d = apply(undefined, deployment(nginxSpec({}, two)), "kubectl");
    // A default filled in by the server belongs to nobody and survives re-applies.
    d.spec.template.spec.containers[0].imagePullPolicy = "IfNotPresent";
    d = apply(d, deployment(nginxSpec({}, [{ name: "nginx", image: "nginx:1.16.1", env: [{ name: "A", value: "9" }] }])), "kubectl");
    expect(d.spec.template.spec.containers).toEqual([
      { name: "nginx", image: "nginx:1.16.1", env: [{ name: "A", value: "9" }], imagePullPolicy: "IfNotPresent" },
    ]);
    const containers = owned(d, "kubectl")["f:spec"]["f:template"]["f:spec"]["f:containers"];
    expect(Object.keys(containers)).toEqual(['k:{"name":"nginx"}']);
    expect(Object.keys(containers['k:{"name":"nginx"}']["f:env"])).toEqual(['k:{"name":"A"}']);
  });

  test("service ports are keyed by port and protocol", () => {
    const svc = (ports: unknown[]): Obj => ({ apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { ports } });
    let s = apply(undefined, svc([{ port: 80, targetPort: 8080, name: "http" }, { port: 443, name: "https" }]), "kubectl");
    s = apply(s, svc([{ port: 80, targetPort: 9090, name: "http" }, { port: 80, protocol: "UDP", name: "dns" }]), "kubectl");
    expect(s.spec.ports).toEqual([
      { port: 80, targetPort: 9090, name: "http" },
      { port: 80, protocol: "UDP", name: "dns" },
    ]);
    expect(Object.keys(owned(s, "kubectl")["f:spec"]["f:ports"])).toEqual([
      'k:{"port":80,"protocol":"TCP"}',
      'k:{"port":80,"protocol":"UDP"}',
    ]);
  });

  test("atomic lists are replaced whole; set lists are unions of appliers' items", () => {
    const pod = (args: string[], finalizers: string[]): Obj => ({
      apiVersion: "v1", kind: "Pod", metadata: { name: "p", finalizers }, spec: { containers: [{ name: "c", image: "i", args }] },
    });
    let p = apply(undefined, pod(["a", "b"], ["x"]), "one");
    p = apply(p, { ...pod(["a", "b"], ["y"]) }, "two");
    expect(p.metadata.finalizers).toEqual(["x", "y"]);
    p = apply(p, pod(["c"], ["x"]), "one", { force: true });
    expect(p.spec.containers[0].args).toEqual(["c"]);
    // "two" shared args while they were equal; the forced change took them.
    expect(owned(p, "two")["f:spec"]["f:containers"]['k:{"name":"c"}']["f:args"]).toBeUndefined();
  });

  test("custom resources: every list is atomic, objects are granular", () => {
    const cr = (spec: Obj): Obj => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec });
    let w = apply(undefined, cr({ items: [{ a: 1 }, { b: 2 }], size: 1 }), "one");
    w = apply(w, cr({ color: "red" }), "two");
    w = apply(w, cr({ items: [{ c: 3 }], size: 1 }), "one");
    expect(w.spec).toEqual({ items: [{ c: 3 }], size: 1, color: "red" });
    expect(owned(w, "one")).toEqual({ "f:spec": { ".": {}, "f:items": {}, "f:size": {} } });
  });

  test("a custom resource's schema markers are used when given", () => {
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            ports: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer" } } } },
          },
        },
      },
    };
    const cr = (ports: unknown[]): Obj => ({ apiVersion: "example.com/v1", kind: "Gate", metadata: { name: "g" }, spec: { ports } });
    const run = (live: Obj | undefined, c: Obj, m: string): Any => {
      const r = applyConfig("Gate", "example.com/v1", live, c, m, false, T1, { schema });
      if ("conflicts" in r) throw new Error("conflict");
      return r.object;
    };
    let g = run(undefined, cr([{ name: "a", port: 1 }]), "one");
    g = run(g, cr([{ name: "b", port: 2 }]), "two");
    expect(g.spec.ports).toEqual([{ name: "a", port: 1 }, { name: "b", port: 2 }]);
  });

  test("a list that became atomic is owned whole by everyone who owned an item (rule 9)", () => {
    const items = { type: "object", properties: { name: { type: "string" } } };
    const granular = { type: "object", properties: { spec: { type: "object", properties: { ports: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], items } } } } };
    const atomic = { type: "object", properties: { spec: { type: "object", properties: { ports: { type: "array", "x-kubernetes-list-type": "atomic", items } } } } };
    const cr = (ports: unknown[]): Obj => ({ apiVersion: "example.com/v1", kind: "Gate", metadata: { name: "g" }, spec: { ports } });
    let g: Any = applyConfig("Gate", "example.com/v1", undefined, cr([{ name: "a" }]), "one", false, T0, { schema: granular });
    g = applyConfig("Gate", "example.com/v1", g.object, cr([{ name: "b" }]), "two", false, T0, { schema: granular });
    const r = applyConfig("Gate", "example.com/v1", g.object, cr([{ name: "c" }]), "three", false, T1, { schema: atomic });
    expect("conflicts" in r && r.conflicts.map((c) => `${c.manager} ${c.field}`)).toEqual(["one .spec.ports", "two .spec.ports"]);
  });

  test("live list order is kept; new items follow in the config's order", () => {
    const c = (names: string[]) => deployment(nginxSpec({}, names.map((name) => ({ name, image: "i" }))));
    let d = apply(undefined, c(["a", "b"]), "kubectl");
    d = apply(d, c(["c", "b", "a"]), "kubectl");
    expect(d.spec.template.spec.containers.map((x: Any) => x.name)).toEqual(["a", "b", "c"]);
  });

  test("`creationTimestamp: null` in a config does not clear the live value", () => {
    const cm = { ...apply(undefined, configMap({ a: "1" }), "kubectl"), metadata: { name: "test-cm", namespace: "default", creationTimestamp: T0, uid: "u" } };
    const cfg = { ...configMap({ a: "1" }), metadata: { name: "test-cm", namespace: "default", creationTimestamp: null } };
    expect(apply(cm, cfg, "kubectl").metadata.creationTimestamp).toBe(T0);
  });

  test("status is not owned through the main resource when ignored", () => {
    const r = applyConfig("Deployment", "apps/v1", undefined, { ...deployment(nginxSpec()), status: { replicas: 9 } }, "kubectl", false, T0, { ignoreFields: ["status"] });
    if ("conflicts" in r) throw new Error("conflict");
    expect((r.object as Any).metadata.managedFields[0].fieldsV1["f:status"]).toBeUndefined();
  });

  test("invalid configs throw ApplyError with a 400", () => {
    const bad = deployment(nginxSpec({}, [{ image: "no-name" }]));
    expect(() => applyConfig("Deployment", "apps/v1", undefined, bad, "m", false, T0)).toThrow(ApplyError);
    try {
      applyConfig("Deployment", "apps/v1", undefined, bad, "m", false, T0);
    } catch (e) {
      expect((e as ApplyError).status).toBe(400);
      expect((e as Error).message).toContain('omits key field "name"');
    }
    const dup = deployment(nginxSpec({}, [{ name: "a" }, { name: "a" }]));
    expect(() => applyConfig("Deployment", "apps/v1", undefined, dup, "m", false, T0)).toThrow(/duplicate entries for key \[name="a"\]/);
    expect(() => applyConfig("ConfigMap", "v1", undefined, { ...configMap({}), metadata: { name: "x", managedFields: [] } }, "m", false, T0))
      .toThrow("metadata.managedFields must be nil");
  });
});

describe("conflicts (rules 2-4)", () => {
  const base = () => apply(undefined, deployment(nginxSpec({ replicas: 3 })), "kubectl-client-side-apply");

  test("a changed field owned by another applier conflicts; the message names it", () => {
    const c = conflicts(base(), deployment(nginxSpec({ replicas: 5 })), "other");
    expect(c.map(({ manager, field }) => ({ manager, field }))).toEqual([{ manager: "kubectl-client-side-apply", field: ".spec.replicas" }]);
    expect(conflictMessage(c)).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply": .spec.replicas');
    expect(conflictCauses(c)).toEqual([{ type: "FieldManagerConflict", message: 'conflict with "kubectl-client-side-apply"', field: ".spec.replicas" }]);
  });

  test("a field taken by an Update conflicts with that manager `using` its apiVersion", () => {
    const d = base();
    const scaled = updateManagedFields("Deployment", "apps/v1", d, { ...d, spec: { ...d.spec, replicas: 5 } }, "kubectl", T1);
    // Update takes ownership (rule 3): the applier lost the field.
    expect(owned(scaled, "kubectl", "Update")).toEqual({ "f:spec": { "f:replicas": {} } });
    expect(owned(scaled, "kubectl-client-side-apply")["f:spec"]["f:replicas"]).toBeUndefined();
    const c = conflicts(scaled, deployment(nginxSpec({ replicas: 3 })), "kubectl-client-side-apply");
    expect(conflictMessage(c)).toBe('Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas');
  });

  test("field paths of list items print their keys", () => {
    const d = base();
    const c = conflicts(d, deployment(nginxSpec({ replicas: 3 }, [{ name: "nginx", image: "nginx:latest" }])), "ci");
    expect(c.map((x) => x.field)).toEqual(['.spec.template.spec.containers[name="nginx"].image']);
    const cm = apply(undefined, configMap({ key: "v" }), "a");
    expect(conflicts(cm, configMap({ key: "w" }), "b").map((x) => x.field)).toEqual([".data.key"]);
  });

  test("several conflicts are grouped by manager", () => {
    let cm = apply(undefined, configMap({ x: "1", y: "1" }), "alpha");
    cm = updateManagedFields("ConfigMap", "v1", cm, { ...cm, data: { ...cm.data, z: "1" } }, "beta", T1);
    const c = conflicts(cm, configMap({ x: "2", y: "2", z: "2" }), "gamma");
    expect(conflictMessage(c)).toBe(
      'Apply failed with 3 conflicts: conflicts with "alpha":\n- .data.x\n- .data.y\nconflicts with "beta" using v1:\n- .data.z',
    );
  });

  test("resolution (a): force overwrites and removes the field from the other manager", () => {
    const d = apply(base(), deployment(nginxSpec({ replicas: 5 })), "other", { force: true });
    expect(d.spec.replicas).toBe(5);
    expect(owned(d, "other")["f:spec"]["f:replicas"]).toEqual({});
    expect(owned(d, "kubectl-client-side-apply")["f:spec"]["f:replicas"]).toBeUndefined();
  });

  test("resolution (b): drop the field from the config; the value stays, the claim goes", () => {
    const cfg = deployment(nginxSpec());
    const d = apply(base(), cfg, "other");
    expect(d.spec.replicas).toBe(3);
    expect(owned(d, "other")["f:spec"]["f:replicas"]).toBeUndefined();
    expect(owned(d, "kubectl-client-side-apply")["f:spec"]["f:replicas"]).toEqual({});
  });

  test("resolution (c): apply the live value; ownership becomes shared", () => {
    let d = apply(base(), deployment(nginxSpec({ replicas: 3 })), "other");
    expect(owned(d, "other")["f:spec"]["f:replicas"]).toEqual({});
    expect(owned(d, "kubectl-client-side-apply")["f:spec"]["f:replicas"]).toEqual({});
    // One sharer dropping it keeps the value; the last one dropping it removes it.
    d = apply(d, deployment(nginxSpec()), "other");
    expect(d.spec.replicas).toBe(3);
    d = apply(d, deployment(nginxSpec()), "kubectl-client-side-apply");
    expect(d.spec.replicas).toBeUndefined();
  });

  test("once shared, a change by one sharer conflicts with the other", () => {
    const d = apply(base(), deployment(nginxSpec({ replicas: 3 })), "other");
    const c = conflicts(d, deployment(nginxSpec({ replicas: 4 })), "other");
    expect(c.map((x) => `${x.manager} ${x.field}`)).toEqual(["kubectl-client-side-apply .spec.replicas"]);
  });

  test("kubectl upgrading from client-side apply: fields still as last applied do not conflict", () => {
    const LAST = "kubectl.kubernetes.io/last-applied-configuration";
    const csa = (data: Record<string, string>): Obj => {
      const cfg = configMap(data);
      return { ...cfg, metadata: { ...(cfg.metadata as Obj), annotations: { [LAST]: JSON.stringify(cfg) } } };
    };
    let cm: Any = updateManagedFields("ConfigMap", "v1", undefined, csa({ a: "1", b: "1" }), "kubectl-client-side-apply", T0);
    cm.metadata.uid = "u";
    // Someone else changed b since: that one still conflicts.
    cm = updateManagedFields("ConfigMap", "v1", cm, { ...cm, data: { a: "1", b: "5" } }, "editor", T0);
    const c = conflicts(cm, configMap({ a: "2", b: "2" }), "kubectl");
    expect(c.map((x) => `${x.manager} ${x.field}`)).toEqual(["editor .data.b"]);
    const up = apply(cm, configMap({ a: "2", b: "5" }), "kubectl");
    expect(up.data).toEqual({ a: "2", b: "5" });
    expect(owned(up, "kubectl")).toEqual({ "f:data": { "f:a": {}, "f:b": {} } });
    // The annotation follows the server-side config (Go's encoding: sorted keys, newline).
    expect(up.metadata.annotations[LAST]).toBe(
      '{"apiVersion":"v1","data":{"a":"2","b":"5"},"kind":"ConfigMap","metadata":{"name":"test-cm","namespace":"default"}}\n',
    );
    // Other managers get no such leeway.
    expect(conflicts(cm, configMap({ a: "2" }), "someone-else").map((x) => x.manager)).toEqual(["kubectl-client-side-apply"]);
  });

  test("controllers apply with force and need no prior read (rule 10)", () => {
    const d = base();
    const r = applyConfig("Deployment", "apps/v1", d, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "nginx-deployment" }, spec: { replicas: 7 } }, "hpa-controller", true, T2);
    if ("conflicts" in r) throw new Error("forced apply must not conflict");
    const o: Any = r.object;
    expect(o.spec.replicas).toBe(7);
    expect(o.spec.template.spec.containers[0].image).toBe("nginx:1.14.2");
    expect(owned(o, "hpa-controller")).toEqual({ "f:spec": { "f:replicas": {} } });
  });

  test("transferring ownership: hand the field over, then drop it from the config", () => {
    let d = base();
    d = updateManagedFields("Deployment", "apps/v1", d, { ...d, spec: { ...d.spec, replicas: 5 } }, "hpa", T1);
    // The handover manager applies only replicas with the live value: shared, no conflict.
    d = apply(d, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "nginx-deployment" }, spec: { replicas: 5 } }, "handover-to-hpa");
    d = apply(d, deployment(nginxSpec()), "kubectl-client-side-apply");
    expect(d.spec.replicas).toBe(5);
    expect(owned(d, "handover-to-hpa")).toEqual({ "f:spec": { "f:replicas": {} } });
  });

  test("an object never applied to: its fields belong to before-first-apply", () => {
    const live: Obj = { ...configMap({ key: "old" }), metadata: { name: "test-cm", namespace: "default", uid: "u" } };
    const c = conflicts(live, configMap({ key: "new" }), "kubectl");
    expect(conflictMessage(c)).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.key');
    const cm = apply(live, configMap({ key: "old", more: "m" }), "kubectl");
    // data was new as a whole when the object was created, hence its `.`.
    expect(owned(cm, "before-first-apply", "Update")).toEqual({ "f:data": { ".": {}, "f:key": {} } });
  });
});

describe("updates (rules 2, 3, 11)", () => {
  test("an Update owns what it changed, from whoever owned it; fields it removed leave every set", () => {
    let cm = apply(undefined, configMap({ a: "1", b: "2" }), "kubectl", { now: T0 });
    cm = updateManagedFields("ConfigMap", "v1", cm, { ...cm, data: { a: "9" } }, "editor", T1);
    expect(owned(cm, "editor", "Update")).toEqual({ "f:data": { "f:a": {} } });
    expect(entry(cm, "kubectl")).toBeUndefined();
    expect(entry(cm, "editor", "Update").time).toBe(T1);
  });

  test("an Update that changes nothing adds no entry", () => {
    const cm = apply(undefined, configMap({ a: "1" }), "kubectl");
    const same = updateManagedFields("ConfigMap", "v1", cm, structuredClone(cm), "editor", T2);
    expect(same.metadata).toEqual(cm.metadata);
  });

  test("one empty entry resets managedFields; changes in the same request go to the requester", () => {
    const cm = apply(undefined, configMap({ a: "1" }), "kubectl");
    const reset = updateManagedFields("ConfigMap", "v1", cm, { ...cm, metadata: { ...cm.metadata, managedFields: [{}] } }, "editor", T1);
    expect((reset.metadata as Any).managedFields).toBeUndefined();
    const both: Any = updateManagedFields("ConfigMap", "v1", cm, { ...cm, metadata: { ...cm.metadata, managedFields: [{}] }, data: { a: "1", b: "2" } }, "editor", T1);
    expect(both.metadata.managedFields).toEqual([{ manager: "editor", operation: "Update", apiVersion: "v1", time: T1, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:b": {} } } }]);
  });

  test("an empty list or a missing key keeps the old managedFields", () => {
    const cm = apply(undefined, configMap({ a: "1" }), "kubectl");
    const empty: Any = updateManagedFields("ConfigMap", "v1", cm, { ...cm, metadata: { ...cm.metadata, managedFields: [] } }, "editor", T1);
    expect(empty.metadata.managedFields).toEqual(cm.metadata.managedFields);
    const { managedFields: _, ...meta } = cm.metadata;
    const missing: Any = updateManagedFields("ConfigMap", "v1", cm, { ...cm, metadata: meta }, "editor", T1);
    expect(missing.metadata.managedFields).toEqual(cm.metadata.managedFields);
  });

  test("a request's own valid managedFields replace the stored ones", () => {
    const cm = apply(undefined, configMap({ a: "1" }), "kubectl");
    const mine = [{ manager: "someone", operation: "Update", apiVersion: "v1", time: T0, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {} } } }];
    const o: Any = updateManagedFields("ConfigMap", "v1", cm, { ...cm, metadata: { ...cm.metadata, managedFields: mine } }, "editor", T1);
    expect(o.metadata.managedFields).toEqual(mine);
  });

  test("at most ten Update entries: the oldest fold into ancient-changes", () => {
    let cm = apply(undefined, configMap({}), "kubectl");
    for (let i = 0; i < 11; i++) {
      cm = updateManagedFields("ConfigMap", "v1", cm, { ...cm, data: { ...cm.data, [`k${i}`]: "v" } }, `m${i}`, `2021-05-01T10:00:${String(i + 10)}Z`);
    }
    const updaters = cm.metadata.managedFields.filter((e: Any) => e.operation === "Update");
    expect(updaters).toHaveLength(10);
    expect(updaters[0].manager).toBe("ancient-changes");
    expect(updaters[0].fieldsV1).toEqual({ "f:data": { "f:k0": {}, "f:k1": {} } });
  });

  test("an unnamed manager is recorded as unknown", () => {
    const o: Any = updateManagedFields("ConfigMap", "v1", undefined, configMap({ a: "1" }), "", T0);
    expect(o.metadata.managedFields[0].manager).toBe("unknown");
  });
});

// structured-merge-diff's multiple-appliers cases, on a custom type given by its schema.
describe("several appliers and updaters (structured-merge-diff's cases)", () => {
  const str = { type: "string" };
  const schema = {
    type: "object",
    properties: {
      listOfLists: {
        type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", properties: { name: str, value: { type: "array", "x-kubernetes-list-type": "set", items: str } } },
      },
      struct: { type: "object", properties: { name: str, scalarField: str, complexField: { type: "object", properties: { name: str } } } },
    },
  };
  const thing = (body: Obj): Obj => ({ apiVersion: "example.com/v1", kind: "Thing", metadata: { name: "t" }, ...body });
  const run = (live: Obj | undefined, body: Obj, manager: string): Any => {
    const r = applyConfig("Thing", "example.com/v1", live, thing(body), manager, false, T1, { schema });
    if ("conflicts" in r) throw new Error(conflictMessage(r.conflicts));
    return r.object;
  };
  const upd = (live: Obj, body: Obj, manager: string): Any =>
    updateManagedFields("Thing", "example.com/v1", live, { ...live, ...body }, manager, T1, { schema });
  const body = (o: Any) => ({ listOfLists: o.listOfLists, struct: o.struct });
  const managers = (o: Any) =>
    Object.fromEntries(o.metadata.managedFields.map((e: Any) => [e.manager, e.fieldsV1]));
  // One list item's FieldsV1 (its name is in the key): whole item and name, and set values.
  const item = (_name: string, values: string[] = [], whole = true) => ({
    ...(whole ? { ".": {}, "f:name": {} } : {}),
    ...(values.length ? { "f:value": Object.fromEntries(values.map((v) => [`v:"${v}"`, {}])) } : {}),
  });

  test("remove one item, keep the one another applier owns", () => {
    let o = run(undefined, { listOfLists: [{ name: "a" }, { name: "b", value: ["c"] }] }, "apply-one");
    o = run(o, { listOfLists: [{ name: "b", value: ["d"] }] }, "apply-two");
    o = run(o, { listOfLists: [{ name: "a" }] }, "apply-one");
    expect(body(o).listOfLists).toEqual([{ name: "a" }, { name: "b", value: ["d"] }]);
    expect(managers(o)).toEqual({
      "apply-one": { "f:listOfLists": { 'k:{"name":"a"}': item("a") } },
      "apply-two": { "f:listOfLists": { 'k:{"name":"b"}': item("b", ["d"]) } },
    });
  });

  test("remove one item: a sub-item only an updater owns goes with it", () => {
    let o = run(undefined, { listOfLists: [{ name: "a" }, { name: "b", value: ["c"] }] }, "apply-one");
    o = run(o, { listOfLists: [{ name: "a", value: ["b"] }] }, "apply-two");
    o = upd(o, { listOfLists: [{ name: "a", value: ["b"] }, { name: "b", value: ["c", "d"] }] }, "controller");
    o = run(o, { listOfLists: [{ name: "a" }] }, "apply-one");
    expect(body(o).listOfLists).toEqual([{ name: "a", value: ["b"] }]);
    expect(managers(o)).toEqual({
      "apply-one": { "f:listOfLists": { 'k:{"name":"a"}': item("a") } },
      "apply-two": { "f:listOfLists": { 'k:{"name":"a"}': item("a", ["b"]) } },
    });
  });

  test("an item kept by another applier keeps the updater's sub-items too", () => {
    let o = run(undefined, { listOfLists: [{ name: "a" }, { name: "b", value: ["c"] }] }, "apply-one");
    o = run(o, { listOfLists: [{ name: "b", value: ["d"] }] }, "apply-two");
    o = upd(o, { listOfLists: [{ name: "a" }, { name: "b", value: ["c", "d", "e"] }] }, "controller");
    o = run(o, { listOfLists: [{ name: "a" }] }, "apply-one");
    expect(body(o).listOfLists).toEqual([{ name: "a" }, { name: "b", value: ["d", "e"] }]);
    expect(managers(o).controller).toEqual({ "f:listOfLists": { 'k:{"name":"b"}': item("b", ["e"], false) } });
  });

  test("unsetting a scalar: removed when sole owner, kept when shared with an applier or an updater", () => {
    let o = run(undefined, { struct: { name: "a", scalarField: "a" } }, "apply-one");
    o = run(o, { struct: { name: "a" } }, "apply-one");
    expect(body(o).struct).toEqual({ name: "a" });

    o = run(undefined, { struct: { name: "a", scalarField: "a" } }, "apply-one");
    o = run(o, { struct: { scalarField: "a" } }, "apply-two");
    o = run(o, { struct: { name: "a" } }, "apply-one");
    expect(body(o).struct).toEqual({ name: "a", scalarField: "a" });

    o = updateManagedFields("Thing", "example.com/v1", undefined, thing({ struct: { name: "a", scalarField: "a" } }), "updater", T0, { schema });
    o = run(o, { struct: { name: "a", scalarField: "a" } }, "applier");
    o = run(o, { struct: { name: "a" } }, "applier");
    expect(body(o).struct).toEqual({ name: "a", scalarField: "a" });
    expect(managers(o)).toEqual({
      applier: { "f:struct": { "f:name": {} } },
      updater: { "f:struct": { ".": {}, "f:name": {}, "f:scalarField": {} } },
    });
  });

  test("unsetting a nested struct removes it unless another applier owns part of it", () => {
    let o = run(undefined, { struct: { name: "a", complexField: { name: "b" } } }, "apply-one");
    o = run(o, { struct: { name: "a" } }, "apply-one");
    expect(body(o).struct).toEqual({ name: "a" });
    o = run(undefined, { struct: { name: "a", complexField: { name: "b" } } }, "apply-one");
    o = run(o, { struct: { complexField: { name: "b" } } }, "apply-two");
    o = run(o, { struct: { name: "a" } }, "apply-one");
    expect(body(o).struct).toEqual({ name: "a", complexField: { name: "b" } });
  });
});

describe("validateApplyConfig", () => {
  test("rejects managedFields, wrong or missing apiVersion/kind and a missing name", () => {
    expect(validateApplyConfig(configMap({}))).toBeNull();
    expect(validateApplyConfig({ ...configMap({}), metadata: { name: "x", managedFields: [] } })).toBe("metadata.managedFields must be nil");
    expect(validateApplyConfig({ kind: "ConfigMap", metadata: { name: "x" } }, { apiVersion: "v1" }))
      .toBe("Incorrect version specified in apply patch. Specified patch version: , expected: v1");
    expect(validateApplyConfig({ apiVersion: "v1", metadata: { name: "x" } })).toBe("failed to create typed patch object: no corresponding type for v1, Kind=");
    expect(validateApplyConfig({ apiVersion: "v1", kind: "ConfigMap", metadata: {} }, { name: "cm" }))
      .toBe("the name of the object () does not match the name on the URL (cm)");
  });
});
