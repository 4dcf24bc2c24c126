// Server-side apply and field ownership against a real `kite apiserver` (spec §9.1; upstream v1.21 and its
// server-side apply documentation where the spec is silent): managedFields entries, ownership taken by
// POST/PUT/PATCH and by apply, conflicts and the three ways to resolve them, controllers that force, removal
// of fields dropped from an applied config, no-op re-applies, rule 11 and dry-run.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, type Reply, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "applying";
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const SVC = `/api/v1/namespaces/${NS}/services`;
const APPLY = "application/apply-patch+yaml";
const MERGE = "application/merge-patch+json";
const JSONP = "application/json-patch+json";
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

let s: TestServer;
useServer(NS, (started) => (s = started));

/** PATCH with application/apply-patch+yaml; `manager` undefined sends no fieldManager. */
function apply(path: string, body: unknown, manager: string | undefined, opts: { force?: boolean; dryRun?: boolean } = {}): Promise<Reply> {
  const q = new URLSearchParams();
  if (manager !== undefined) q.set("fieldManager", manager);
  if (opts.force) q.set("force", "true");
  if (opts.dryRun) q.set("dryRun", "All");
  const qs = q.toString();
  return s.call("PATCH", `${path}${qs ? `?${qs}` : ""}`, body, { "Content-Type": APPLY });
}
const patch = (path: string, type: string, body: unknown, query = "") => s.call("PATCH", `${path}${query}`, body, { "Content-Type": type });
const get = async (path: string) => {
  const r = await s.call("GET", path);
  expectCode(r, 200, `GET ${path}`);
  return r.body;
};
// What a collection holds, by name and resourceVersion. Not the list's own resourceVersion: the
// server's lease renewal moves the store's revision every few seconds.
const contents = async (path: string): Promise<string[]> =>
  (await get(path)).items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`);

const cmConfig = (name: string, data?: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}) }, ...(data ? { data } : {}),
});

type Entry = { manager: string; operation: string; apiVersion: string; time?: string; fieldsType: string; fieldsV1: any };
const entries = (o: any): Entry[] => o?.metadata?.managedFields ?? [];
function entry(o: any, manager: string, operation: "Apply" | "Update"): Entry {
  const e = entries(o).find((x) => x.manager === manager && x.operation === operation);
  if (!e) throw new Error(`no managedFields entry for ${manager}/${operation}: ${JSON.stringify(entries(o))}`);
  return e;
}
const hasEntry = (o: any, manager: string, operation?: string) => entries(o).some((x) => x.manager === manager && (!operation || x.operation === operation));
/** Whether a manager's FieldsV1 tree holds the path, e.g. owns(e, "f:data", "f:a"). */
function owns(e: Entry | undefined, ...path: string[]): boolean {
  let node = e?.fieldsV1;
  for (const seg of path) {
    if (!node || typeof node !== "object" || !Object.hasOwn(node, seg)) return false;
    node = node[seg];
  }
  return true;
}
const ownsOf = (o: any, manager: string, op: "Apply" | "Update", ...path: string[]) =>
  owns(entries(o).find((x) => x.manager === manager && x.operation === op), ...path);

/** The 409 of an apply conflict: reason Conflict, one FieldManagerConflict cause per field. */
function expectConflicts(r: Reply, want: { field: string; manager: string }[], what: string) {
  const st = expectStatus(r, 409, "Conflict", what);
  const causes = (st.details?.causes ?? []) as any[];
  const got = causes.map((c) => `${c.type} ${c.field} ${c.message}`).sort();
  expect(got).toEqual(want.map((w) => `FieldManagerConflict ${w.field} conflict with ${w.manager}`).sort());
  return st;
}

async function createCM(name: string, data: Record<string, string>, manager: string, labels?: Record<string, string>) {
  const r = await s.call("POST", `${CM}?fieldManager=${manager}`, cmConfig(name, data, labels));
  expectCode(r, 201, `create configmap ${name}`);
  return r.body;
}

const depConfig = (name: string, containers: any[], extra: { replicas?: number; finalizers?: string[] } = {}) => ({
  apiVersion: "apps/v1", kind: "Deployment",
  metadata: { name, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
  spec: {
    ...(extra.replicas !== undefined ? { replicas: extra.replicas } : {}),
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers } },
  },
});
const web = (image = "nginx:1.20", env: { name: string; value: string }[] = [{ name: "X", value: "1" }, { name: "Y", value: "2" }]) => ({
  name: "web", image, env, ports: [{ containerPort: 80, protocol: "TCP" }],
});
const sidecar = () => ({ name: "sidecar", image: "busybox:1.33", args: ["sleep", "3600"] });
const containersOf = (d: any) => d.spec.template.spec.containers as any[];
const containerOf = (d: any, name: string) => containersOf(d).find((c) => c.name === name);

describe("managedFields entries", () => {
  test("an apply records one Apply entry: manager, operation, apiVersion, time, fieldsType, fieldsV1 (upstream's example)", async () => {
    const before = Date.now();
    const r = await apply(`${CM}/test-cm`, cmConfig("test-cm", { key: "some value" }, { "test-label": "test" }), "test");
    expectCode(r, 201, "apply creating test-cm");
    const mf = entries(r.body);
    expect(mf).toHaveLength(1);
    // Field order as upstream serializes a ManagedFieldsEntry.
    expect(Object.keys(mf[0])).toEqual(["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]);
    expect(mf[0]).toMatchObject({ manager: "test", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1" });
    expect(mf[0].time).toMatch(RFC3339);
    expect(Math.abs(Date.parse(mf[0].time!) - before)).toBeLessThan(60_000);
    // An applier owns what it applied: leaves, not the maps that hold them.
    expect(mf[0].fieldsV1).toEqual({ "f:data": { "f:key": {} }, "f:metadata": { "f:labels": { "f:test-label": {} } } });
    const g = await get(`${CM}/test-cm`);
    expect(g.metadata.managedFields).toEqual(mf);
    expect(g.data).toEqual({ key: "some value" });
    expect(g.metadata.labels).toEqual({ "test-label": "test" });
  });

  test("fieldsV1 uses k: for list-map items (containers, env, ports) and v: for set items (finalizers)", async () => {
    const r = await apply(`${DEP}/tree`, depConfig("tree", [web(), sidecar()], { replicas: 2, finalizers: ["example.com/keep"] }), "deployer");
    expectCode(r, 201, "apply creating deployment tree");
    const e = entry(r.body, "deployer", "Apply");
    expect(e.apiVersion).toBe("apps/v1");
    const f = e.fieldsV1;
    expect(f["f:metadata"]["f:finalizers"]).toEqual({ 'v:"example.com/keep"': {} });
    expect(f["f:spec"]["f:replicas"]).toEqual({});
    expect(f["f:spec"]["f:template"]["f:metadata"]).toEqual({ "f:labels": { "f:app": {} } });
    expect(f["f:spec"]["f:template"]["f:spec"]["f:containers"]).toEqual({
      'k:{"name":"web"}': {
        ".": {}, "f:name": {}, "f:image": {},
        "f:env": {
          'k:{"name":"X"}': { ".": {}, "f:name": {}, "f:value": {} },
          'k:{"name":"Y"}': { ".": {}, "f:name": {}, "f:value": {} },
        },
        "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {}, "f:protocol": {} } },
      },
      // args is an atomic list: owned as one leaf.
      'k:{"name":"sidecar"}': { ".": {}, "f:name": {}, "f:image": {}, "f:args": {} },
    });
    // Status is not the applier's (the status subresource owns it).
    expect(owns(e, "f:status")).toBe(false);
  });

  test("Service ports are keyed by port and protocol", async () => {
    const svc = {
      apiVersion: "v1", kind: "Service", metadata: { name: "keyed" },
      spec: { selector: { app: "keyed" }, ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }, { name: "dns", port: 53, protocol: "UDP" }] },
    };
    const r = await apply(`${SVC}/keyed`, svc, "svc-owner");
    expectCode(r, 201, "apply creating service keyed");
    expect(entry(r.body, "svc-owner", "Apply").fieldsV1["f:spec"]["f:ports"]).toEqual({
      'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {}, "f:targetPort": {}, "f:protocol": {} },
      'k:{"port":53,"protocol":"UDP"}': { ".": {}, "f:name": {}, "f:port": {}, "f:protocol": {} },
    });
  });
});

describe("ownership taken by POST, PUT and non-apply PATCH (operation Update)", () => {
  test("the fieldManager parameter names the manager; maps written by an update are owned too", async () => {
    const c = await createCM("upd", { a: "1" }, "creator", { team: "x" });
    expect(entries(c)).toHaveLength(1);
    expect(entries(c)[0]).toMatchObject({ manager: "creator", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1" });
    expect(entries(c)[0].time).toMatch(RFC3339);
    expect(entries(c)[0].fieldsV1).toEqual({ "f:data": { ".": {}, "f:a": {} }, "f:metadata": { "f:labels": { ".": {}, "f:team": {} } } });

    // PUT: the updater takes the fields it changed or added, from whoever had them.
    const next = structuredClone(c);
    next.data = { a: "2", b: "3" };
    const u = await s.call("PUT", `${CM}/upd?fieldManager=updater`, next);
    expectCode(u, 200, "PUT with fieldManager");
    expect(entry(u.body, "updater", "Update").fieldsV1).toEqual({ "f:data": { "f:a": {}, "f:b": {} } });
    expect(entry(u.body, "creator", "Update").fieldsV1).toEqual({ "f:data": {}, "f:metadata": { "f:labels": { ".": {}, "f:team": {} } } });

    // A merge patch with a fieldManager.
    const p = await patch(`${CM}/upd`, MERGE, { data: { c: "4" } }, "?fieldManager=patcher");
    expectCode(p, 200, "merge patch with fieldManager");
    expect(entry(p.body, "patcher", "Update").fieldsV1).toEqual({ "f:data": { "f:c": {} } });
    expect(entries(p.body).map((e) => e.manager).sort()).toEqual(["creator", "patcher", "updater"]);
  });

  test("without fieldManager the manager comes from the User-Agent (up to the first /)", async () => {
    const ua = { "User-Agent": "acme-controller/v0.3.1 (linux/amd64) kubernetes/abcdef" };
    const c = await s.call("POST", CM, cmConfig("ua", { a: "1" }), ua);
    expectCode(c, 201, "POST with a User-Agent");
    expect(entries(c.body).map((e) => [e.manager, e.operation])).toEqual([["acme-controller", "Update"]]);
    const p = await s.call("PATCH", `${CM}/ua`, { data: { b: "2" } }, { "Content-Type": MERGE, "User-Agent": "other-tool/1.0" });
    expectCode(p, 200, "merge patch with a User-Agent");
    expect(entry(p.body, "other-tool", "Update").fieldsV1).toEqual({ "f:data": { "f:b": {} } });
    const j = await s.call("PATCH", `${CM}/ua`, [{ op: "add", path: "/data/c", value: "3" }], { "Content-Type": JSONP, "User-Agent": "jp-bot/2 (x)" });
    expectCode(j, 200, "json patch with a User-Agent");
    expect(entry(j.body, "jp-bot", "Update").fieldsV1).toEqual({ "f:data": { "f:c": {} } });
    // The parameter wins over the User-Agent.
    const q = await s.call("PATCH", `${CM}/ua?fieldManager=explicit`, { data: { d: "4" } }, { "Content-Type": MERGE, "User-Agent": "ignored/1" });
    expectCode(q, 200, "merge patch with both");
    expect(hasEntry(q.body, "explicit", "Update")).toBe(true);
    expect(hasEntry(q.body, "ignored")).toBe(false);
  });

  test("an update to an applied field never conflicts: the updater takes it from the applier (rule 3)", async () => {
    const a = await apply(`${CM}/takeover`, cmConfig("takeover", { a: "1", b: "2" }), "applier");
    expectCode(a, 201, "apply");
    const p = await patch(`${CM}/takeover`, MERGE, { data: { a: "changed" } }, "?fieldManager=editor");
    expectCode(p, 200, "merge patch of an applied field");
    expect(p.body.data.a).toBe("changed");
    expect(ownsOf(p.body, "editor", "Update", "f:data", "f:a")).toBe(true);
    expect(ownsOf(p.body, "applier", "Apply", "f:data", "f:a")).toBe(false);
    expect(ownsOf(p.body, "applier", "Apply", "f:data", "f:b")).toBe(true);
    // A Deployment's Update entry carries its group version.
    const d = await apply(`${DEP}/upd-dep`, depConfig("upd-dep", [web()]), "applier");
    expectCode(d, 201, "apply deployment");
    const s2 = await patch(`${DEP}/upd-dep`, MERGE, { spec: { replicas: 3 } }, "?fieldManager=scaler");
    expectCode(s2, 200, "scale by merge patch");
    expect(entry(s2.body, "scaler", "Update")).toMatchObject({ apiVersion: "apps/v1", fieldsV1: { "f:spec": { "f:replicas": {} } } });
  });
});

describe("apply requests", () => {
  test("apply to a missing object creates it (201); to an existing one updates it (200)", async () => {
    const r = await apply(`${CM}/fresh`, cmConfig("fresh", { a: "1" }), "applier");
    expectCode(r, 201, "apply creating");
    expect(r.body.metadata.uid).toBeTruthy();
    expect(r.body.metadata.namespace).toBe(NS);
    expect((await get(`${CM}/fresh`)).data).toEqual({ a: "1" });
    const r2 = await apply(`${CM}/fresh`, cmConfig("fresh", { a: "2" }), "applier");
    expectCode(r2, 200, "apply updating");
    expect(r2.body.metadata.uid).toBe(r.body.metadata.uid);
    expect(r2.body.data).toEqual({ a: "2" });
  });

  test("the body may be YAML", async () => {
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-cm\n  labels:\n    app: yaml\ndata:\n  greeting: hello\n  count: "3"\n`;
    const r = await s.call("PATCH", `${CM}/yaml-cm?fieldManager=yaml-applier`, yaml, { "Content-Type": APPLY });
    expectCode(r, 201, "apply with a YAML body");
    expect(r.body.data).toEqual({ greeting: "hello", count: "3" });
    expect(entry(r.body, "yaml-applier", "Apply").fieldsV1).toEqual({ "f:data": { "f:count": {}, "f:greeting": {} }, "f:metadata": { "f:labels": { "f:app": {} } } });
  });

  test("a missing fieldManager is refused with 400 (issue 4; upstream answers 422) and nothing is created", async () => {
    for (const manager of [undefined, ""]) {
      const r = await apply(`${CM}/no-manager`, cmConfig("no-manager", { a: "1" }), manager);
      const st = expectStatus(r, 400, "BadRequest", `apply with fieldManager ${JSON.stringify(manager)}`);
      expect(st.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    }
    expect((await s.call("GET", `${CM}/no-manager`)).status).toBe(404);
  });

  test("managedFields in an apply body is 400 and nothing is written", async () => {
    const body = { ...cmConfig("with-mf", { a: "1" }), metadata: { name: "with-mf", managedFields: [{ manager: "x", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }] } };
    const r = await apply(`${CM}/with-mf`, body, "applier");
    const st = expectStatus(r, 400, "BadRequest", "apply with managedFields");
    expect(st.message).toContain("metadata.managedFields must be nil");
    expect((await s.call("GET", `${CM}/with-mf`)).status).toBe(404);
    // On an existing object too.
    expectCode(await apply(`${CM}/with-mf`, cmConfig("with-mf", { a: "1" }), "applier"), 201, "apply");
    const before = await get(`${CM}/with-mf`);
    expectStatus(await apply(`${CM}/with-mf`, { ...body, data: { a: "2" } }, "applier"), 400, "BadRequest", "apply with managedFields to an existing object");
    expect(await get(`${CM}/with-mf`)).toEqual(before);
  });

  test("a config for another version, kind or name is 400", async () => {
    const cases: [string, unknown][] = [
      ["apiVersion", { ...cmConfig("mismatch", { a: "1" }), apiVersion: "v2" }],
      ["kind", { ...cmConfig("mismatch", { a: "1" }), kind: "Secret" }],
      ["name", cmConfig("other-name", { a: "1" })],
    ];
    for (const [what, body] of cases) expectStatus(await apply(`${CM}/mismatch`, body, "applier"), 400, "BadRequest", `apply with a wrong ${what}`);
    expect((await s.call("GET", `${CM}/mismatch`)).status).toBe(404);
  });
});

describe("conflicts", () => {
  test("an apply changing fields another manager owns is 409 Conflict, one cause per field naming the manager; nothing is written", async () => {
    await createCM("conflict", { a: "1", b: "2" }, "creator", { team: "x" });
    expectCode(await apply(`${CM}/conflict`, cmConfig("conflict", { c: "3" }), "other-applier"), 200, "other applier");
    const before = await get(`${CM}/conflict`);
    const held = await contents(CM);

    // One conflict: the message names manager and field as upstream prints them.
    const one = await apply(`${CM}/conflict`, cmConfig("conflict", { a: "10" }), "applier");
    const st1 = expectConflicts(one, [{ field: ".data.a", manager: '"creator" using v1' }], "apply changing data.a");
    expect(st1.message).toBe('Apply failed with 1 conflict: conflict with "creator" using v1: .data.a');

    // Several fields and managers; b is set to its live value, which is no conflict.
    const many = await apply(`${CM}/conflict`, cmConfig("conflict", { a: "10", b: "2", c: "30" }, { team: "y" }), "applier");
    const st = expectConflicts(many, [
      { field: ".data.a", manager: '"creator" using v1' },
      { field: ".metadata.labels.team", manager: '"creator" using v1' },
      { field: ".data.c", manager: '"other-applier"' },
    ], "apply changing three owned fields");
    expect(st.message).toBe('Apply failed with 3 conflicts: conflicts with "creator" using v1:\n- .data.a\n- .metadata.labels.team\nconflicts with "other-applier":\n- .data.c');

    expect(await get(`${CM}/conflict`)).toEqual(before);
    expect(await contents(CM)).toEqual(held);
  });

  test("a conflict inside a list item names the item by its key", async () => {
    expectCode(await apply(`${DEP}/item-conflict`, depConfig("item-conflict", [web(), sidecar()]), "team-a"), 201, "team-a apply");
    const r = await apply(`${DEP}/item-conflict`, depConfig("item-conflict", [{ name: "web", image: "nginx:9" }]), "team-b");
    expectConflicts(r, [{ field: '.spec.template.spec.containers[name="web"].image', manager: '"team-a"' }], "team-b changing web's image");
  });

  test("resolution (a): force=true overwrites the value and removes the field from the other manager", async () => {
    await createCM("force", { a: "1", keep: "k" }, "creator");
    const r = await apply(`${CM}/force`, cmConfig("force", { a: "10" }), "applier", { force: true });
    expectCode(r, 200, "forced apply");
    expect(r.body.data).toEqual({ a: "10", keep: "k" });
    expect(ownsOf(r.body, "applier", "Apply", "f:data", "f:a")).toBe(true);
    expect(ownsOf(r.body, "creator", "Update", "f:data", "f:a")).toBe(false);
    expect(ownsOf(r.body, "creator", "Update", "f:data", "f:keep")).toBe(true);
    // A manager left with nothing disappears.
    expectCode(await apply(`${CM}/force`, cmConfig("force", { solo: "1" }), "loner"), 200, "loner apply");
    const t = await apply(`${CM}/force`, cmConfig("force", { a: "10", solo: "2" }), "applier", { force: true });
    expectCode(t, 200, "forced apply taking everything of loner");
    expect(hasEntry(t.body, "loner")).toBe(false);
  });

  test("resolution (b): dropping the field from the config leaves the value and the other manager's ownership", async () => {
    await createCM("drop", { a: "1" }, "creator");
    expectConflicts(await apply(`${CM}/drop`, cmConfig("drop", { a: "10", z: "26" }), "applier"), [{ field: ".data.a", manager: '"creator" using v1' }], "conflicting apply");
    const r = await apply(`${CM}/drop`, cmConfig("drop", { z: "26" }), "applier");
    expectCode(r, 200, "apply without the conflicting field");
    expect(r.body.data).toEqual({ a: "1", z: "26" });
    expect(ownsOf(r.body, "creator", "Update", "f:data", "f:a")).toBe(true);
    expect(ownsOf(r.body, "applier", "Apply", "f:data", "f:a")).toBe(false);
    expect(entry(r.body, "applier", "Apply").fieldsV1).toEqual({ "f:data": { "f:z": {} } });
  });

  test("resolution (c): applying the live value makes the ownership shared", async () => {
    await createCM("share", { a: "1" }, "creator");
    const r = await apply(`${CM}/share`, cmConfig("share", { a: "1", z: "26" }), "applier");
    expectCode(r, 200, "apply matching the live value");
    expect(ownsOf(r.body, "creator", "Update", "f:data", "f:a")).toBe(true);
    expect(ownsOf(r.body, "applier", "Apply", "f:data", "f:a")).toBe(true);
    // Two appliers agreeing share too, and neither conflicts.
    const r2 = await apply(`${CM}/share`, cmConfig("share", { a: "1" }), "second-applier");
    expectCode(r2, 200, "second applier with the same value");
    expect(["creator", "applier", "second-applier"].every((m) => entries(r2.body).some((e) => e.manager === m && owns(e, "f:data", "f:a")))).toBe(true);
    // Now a change by any of them conflicts with the other two.
    expectConflicts(await apply(`${CM}/share`, cmConfig("share", { a: "2" }), "applier"), [
      { field: ".data.a", manager: '"creator" using v1' },
      { field: ".data.a", manager: '"second-applier"' },
    ], "changing a shared field");
  });

  test("controllers that always force: they take their field without reading first, and users then conflict with them", async () => {
    const user = depConfig("scaled", [web()], { replicas: 3 });
    expectCode(await apply(`${DEP}/scaled`, user, "user"), 201, "user apply");
    // The controller applies only what it cares about, with force, no resourceVersion, no GET.
    const ctl = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "scaled" }, spec: { replicas: 5 } };
    const c = await apply(`${DEP}/scaled`, ctl, "autoscaler", { force: true });
    expectCode(c, 200, "controller forced apply");
    expect(c.body.spec.replicas).toBe(5);
    expect(entry(c.body, "autoscaler", "Apply").fieldsV1).toEqual({ "f:spec": { "f:replicas": {} } });
    expect(ownsOf(c.body, "user", "Apply", "f:spec", "f:replicas")).toBe(false);
    // The user's unchanged config now conflicts with the controller.
    expectConflicts(await apply(`${DEP}/scaled`, user, "user"), [{ field: ".spec.replicas", manager: '"autoscaler"' }], "user re-apply");
    // The user hands replicas over by dropping it: the value stays.
    const { replicas: _r, ...spec } = user.spec as any;
    const handed = await apply(`${DEP}/scaled`, { ...user, spec }, "user");
    expectCode(handed, 200, "user apply without replicas");
    expect(handed.body.spec.replicas).toBe(5);
    // The controller cannot remove fields it never applied: its config lacks the containers, they stay.
    const again = await apply(`${DEP}/scaled`, { ...ctl, spec: { replicas: 6 } }, "autoscaler", { force: true });
    expectCode(again, 200, "controller apply again");
    expect(again.body.spec.replicas).toBe(6);
    expect(containersOf(again.body).map((c2) => c2.name)).toEqual(["web"]);
  });
});

describe("fields dropped from an applied config", () => {
  test("map keys (data, labels) no other manager owns are removed", async () => {
    expectCode(await apply(`${CM}/shrink`, cmConfig("shrink", { a: "1", b: "2", c: "3" }, { l1: "x", l2: "y" }), "applier"), 201, "first apply");
    const r = await apply(`${CM}/shrink`, cmConfig("shrink", { a: "1" }, { l1: "x" }), "applier");
    expectCode(r, 200, "apply with fewer keys");
    expect(r.body.data).toEqual({ a: "1" });
    expect(r.body.metadata.labels).toEqual({ l1: "x" });
    expect(entry(r.body, "applier", "Apply").fieldsV1).toEqual({ "f:data": { "f:a": {} }, "f:metadata": { "f:labels": { "f:l1": {} } } });
    expect((await get(`${CM}/shrink`)).data).toEqual({ a: "1" });
  });

  test("list items (a container, an env entry, a service port) no other manager owns are removed", async () => {
    expectCode(await apply(`${DEP}/shrink`, depConfig("shrink", [web(), sidecar()]), "applier"), 201, "first apply");
    const r = await apply(`${DEP}/shrink`, depConfig("shrink", [web("nginx:1.21", [{ name: "X", value: "10" }])]), "applier");
    expectCode(r, 200, "apply without sidecar and env Y");
    expect(containersOf(r.body).map((c) => c.name)).toEqual(["web"]);
    expect(containerOf(r.body, "web").image).toBe("nginx:1.21");
    expect(containerOf(r.body, "web").env).toEqual([{ name: "X", value: "10" }]);
    expect(containersOf(await get(`${DEP}/shrink`)).map((c) => c.name)).toEqual(["web"]);

    const svc = (ports: any[]) => ({ apiVersion: "v1", kind: "Service", metadata: { name: "shrink" }, spec: { selector: { app: "shrink" }, ports } });
    const http = { name: "http", port: 80, targetPort: 8080, protocol: "TCP" }, https = { name: "https", port: 443, targetPort: 8443, protocol: "TCP" };
    expectCode(await apply(`${SVC}/shrink`, svc([http, https]), "applier"), 201, "service apply");
    const s2 = await apply(`${SVC}/shrink`, svc([https]), "applier");
    expectCode(s2, 200, "service apply without http");
    expect(s2.body.spec.ports.map((p: any) => p.name)).toEqual(["https"]);
  });

  test("a dropped key another applier also owns is kept, until the last owner drops it", async () => {
    expectCode(await apply(`${CM}/shared-drop`, cmConfig("shared-drop", { shared: "v", mine: "1" }), "alice"), 201, "alice apply");
    expectCode(await apply(`${CM}/shared-drop`, cmConfig("shared-drop", { shared: "v" }), "bob"), 200, "bob apply, same value");
    const r = await apply(`${CM}/shared-drop`, cmConfig("shared-drop", { mine: "1" }), "alice");
    expectCode(r, 200, "alice drops shared");
    expect(r.body.data).toEqual({ shared: "v", mine: "1" });
    const r2 = await apply(`${CM}/shared-drop`, cmConfig("shared-drop", { other: "2" }), "bob");
    expectCode(r2, 200, "bob drops shared");
    expect(r2.body.data).toEqual({ mine: "1", other: "2" });
  });

  test("a dropped key an updater took over is kept with the updater's value", async () => {
    expectCode(await apply(`${CM}/updated-drop`, cmConfig("updated-drop", { k: "1", other: "x" }), "applier"), 201, "apply");
    expectCode(await patch(`${CM}/updated-drop`, MERGE, { data: { k: "2" } }, "?fieldManager=editor"), 200, "editor changes k");
    const r = await apply(`${CM}/updated-drop`, cmConfig("updated-drop", { other: "x" }), "applier");
    expectCode(r, 200, "apply without k");
    expect(r.body.data).toEqual({ k: "2", other: "x" });
  });

  test("a dropped container another applier shares is kept, minus the fields only the dropper owned", async () => {
    expectCode(await apply(`${DEP}/shared-item`, depConfig("shared-item", [web(), sidecar()]), "alice"), 201, "alice apply");
    const bob = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "shared-item" }, spec: { template: { spec: { containers: [{ name: "sidecar", image: "busybox:1.33" }] } } } };
    expectCode(await apply(`${DEP}/shared-item`, bob, "bob"), 200, "bob shares the sidecar's name and image");
    const r = await apply(`${DEP}/shared-item`, depConfig("shared-item", [web()]), "alice");
    expectCode(r, 200, "alice drops the sidecar");
    expect(containersOf(r.body).map((c) => c.name)).toEqual(["web", "sidecar"]);
    const sc = containerOf(r.body, "sidecar");
    expect(sc.image).toBe("busybox:1.33");
    expect(sc.args).toBeUndefined();
  });
});

describe("no-op applies", () => {
  test("re-applying an unchanged config writes nothing: resourceVersion and managedFields stay", async () => {
    const first = await apply(`${DEP}/steady`, depConfig("steady", [web(), sidecar()], { replicas: 2 }), "applier");
    expectCode(first, 201, "first apply");
    const held = await contents(DEP);
    await Bun.sleep(1100); // a rewritten entry would carry a new time
    for (let i = 0; i < 3; i++) {
      const r = await apply(`${DEP}/steady`, depConfig("steady", [web(), sidecar()], { replicas: 2 }), "applier");
      expectCode(r, 200, `re-apply ${i + 1}`);
      expect(r.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
      expect(r.body.metadata.managedFields).toEqual(first.body.metadata.managedFields);
    }
    expect(await contents(DEP)).toEqual(held);
    const g = await get(`${DEP}/steady`);
    expect(g.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    expect(g.metadata.generation).toBe(1);
    // A real change does write.
    const changed = await apply(`${DEP}/steady`, depConfig("steady", [web(), sidecar()], { replicas: 3 }), "applier");
    expectCode(changed, 200, "apply with one change");
    expect(changed.body.metadata.resourceVersion).not.toBe(first.body.metadata.resourceVersion);
    expect(changed.body.metadata.generation).toBe(2);
  });
});

describe("rule 11: resetting managedFields", () => {
  async function tracked(name: string) {
    await createCM(name, { a: "1" }, "creator");
    const r = await apply(`${CM}/${name}`, cmConfig(name, { b: "2" }), "applier");
    expectCode(r, 200, "apply");
    expect(entries(r.body)).toHaveLength(2);
    return r.body;
  }

  test("an empty list does not reset; a list with one empty entry does (merge patch and JSON patch)", async () => {
    const o = await tracked("reset");
    const empty = await patch(`${CM}/reset`, MERGE, { metadata: { managedFields: [] } });
    expectCode(empty, 200, "merge patch with managedFields: []");
    expect(empty.body.metadata.managedFields).toEqual(o.metadata.managedFields);
    expect((await get(`${CM}/reset`)).metadata.managedFields).toEqual(o.metadata.managedFields);

    const reset = await patch(`${CM}/reset`, MERGE, { metadata: { managedFields: [{}] } });
    expectCode(reset, 200, "merge patch with managedFields: [{}]");
    expect(reset.body.metadata.managedFields ?? []).toEqual([]);
    expect((await get(`${CM}/reset`)).metadata.managedFields ?? []).toEqual([]);
    expect(reset.body.data).toEqual({ a: "1", b: "2" });

    const o2 = await tracked("reset-jp");
    expect(entries(o2)).toHaveLength(2);
    const jp = await patch(`${CM}/reset-jp`, JSONP, [{ op: "replace", path: "/metadata/managedFields", value: [{}] }]);
    expectCode(jp, 200, "json patch replacing managedFields with [{}]");
    expect(jp.body.metadata.managedFields ?? []).toEqual([]);
  });

  test("combined with other changes, the reset comes first and the requester owns what it changed", async () => {
    await tracked("reset-combined");
    const r = await patch(`${CM}/reset-combined`, MERGE, { metadata: { managedFields: [{}] }, data: { c: "3" } }, "?fieldManager=resetter");
    expectCode(r, 200, "reset combined with a change");
    expect(entries(r.body).map((e) => [e.manager, e.operation])).toEqual([["resetter", "Update"]]);
    expect(owns(entries(r.body)[0], "f:data", "f:c")).toBe(true);
    expect(owns(entries(r.body)[0], "f:data", "f:a")).toBe(false);
  });

  test("after a reset, the first apply finds the existing fields owned by before-first-apply", async () => {
    await tracked("reset-then-apply");
    expectCode(await patch(`${CM}/reset-then-apply`, MERGE, { metadata: { managedFields: [{}] } }), 200, "reset");
    expectConflicts(await apply(`${CM}/reset-then-apply`, cmConfig("reset-then-apply", { a: "changed" }), "newcomer"),
      [{ field: ".data.a", manager: '"before-first-apply" using v1' }], "apply after the reset");
  });
});

describe("apply with dryRun=All", () => {
  test("creating: 201 with the would-be object, nothing stored", async () => {
    const r = await apply(`${CM}/dry-new`, cmConfig("dry-new", { a: "1" }), "applier", { dryRun: true });
    expectCode(r, 201, "dry-run apply creating");
    expect(r.body.data).toEqual({ a: "1" });
    expect(entry(r.body, "applier", "Apply").fieldsV1).toEqual({ "f:data": { "f:a": {} } });
    expect((await s.call("GET", `${CM}/dry-new`)).status).toBe(404);
  });

  test("updating: the merged object with its managedFields comes back, the stored one stays; conflicts still 409", async () => {
    await createCM("dry-upd", { a: "1" }, "creator");
    const before = await get(`${CM}/dry-upd`);
    const held = await contents(CM);
    const r = await apply(`${CM}/dry-upd`, cmConfig("dry-upd", { b: "2" }), "applier", { dryRun: true });
    expectCode(r, 200, "dry-run apply");
    expect(r.body.data).toEqual({ a: "1", b: "2" });
    expect(hasEntry(r.body, "applier", "Apply")).toBe(true);
    expectConflicts(await apply(`${CM}/dry-upd`, cmConfig("dry-upd", { a: "9" }), "applier", { dryRun: true }),
      [{ field: ".data.a", manager: '"creator" using v1' }], "dry-run conflicting apply");
    const forced = await apply(`${CM}/dry-upd`, cmConfig("dry-upd", { a: "9" }), "applier", { dryRun: true, force: true });
    expectCode(forced, 200, "dry-run forced apply");
    expect(forced.body.data.a).toBe("9");
    expect(await get(`${CM}/dry-upd`)).toEqual(before);
    expect(await contents(CM)).toEqual(held);
  });
});
