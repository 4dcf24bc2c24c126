// Custom resources served from CustomResourceDefinitions: a definition's versions appear in discovery at
// once and serve CRUD, lists in chunks, watches, selectors, patches, apply, status and scale; names in
// conflict are refused in the definition's status; deleting the definition deletes its objects and its
// endpoints. Against a real `kite apiserver` (both storage backends).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, openWatch, until, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "crd";
let s: TestServer;
useServer(NS, (x) => (s = x));

const G = "stable.example.com";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const base = (v = "v1", ns = NS) => `/apis/${G}/${v}/namespaces/${ns}/crontabs`;

const schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        cronSpec: { type: "string" },
        image: { type: "string" },
        replicas: { type: "integer", default: 1 },
        selector: { type: "string" },
      },
    },
    status: { type: "object", properties: { replicas: { type: "integer" }, labelSelector: { type: "string" } } },
  },
};

const cronTabs = {
  apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition",
  metadata: { name: `crontabs.${G}` },
  spec: {
    group: G, scope: "Namespaced",
    names: { plural: "crontabs", singular: "crontab", kind: "CronTab", shortNames: ["ct"], categories: ["all"] },
    versions: [
      { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema },
        subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.labelSelector" } },
        additionalPrinterColumns: [{ name: "Spec", type: "string", jsonPath: ".spec.cronSpec" }, { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }] },
      { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: schema } },
    ],
  },
};

const cronTab = (name: string, spec: object = { cronSpec: "* * * * */5", image: "img" }, labels?: Record<string, string>) =>
  ({ apiVersion: `${G}/v1`, kind: "CronTab", metadata: { name, ...(labels ? { labels } : {}) }, spec });

async function established(name: string) {
  return until(async () => {
    const r = await s.call("GET", `${CRDS}/${name}`);
    return (r.body.status?.conditions ?? []).some((c: any) => c.type === "Established" && c.status === "True") && r.body;
  }, `${name} established`);
}

describe("a definition", () => {
  test("is served at once, with its status kept", async () => {
    expectCode(await s.call("POST", CRDS, cronTabs), 201, "create the CRD");
    const crd = await established(cronTabs.metadata.name);
    const types = Object.fromEntries(crd.status.conditions.map((c: any) => [c.type, [c.status, c.reason, c.message]]));
    expect(types).toEqual({
      NamesAccepted: ["True", "NoConflicts", "no conflicts found"],
      Established: ["True", "InitialNamesAccepted", "the initial names have been accepted"],
    });
    expect(crd.status.acceptedNames).toEqual({ plural: "crontabs", singular: "crontab", kind: "CronTab", listKind: "CronTabList", shortNames: ["ct"], categories: ["all"] });
    expect(crd.status.storedVersions).toEqual(["v1"]);
    expect(crd.metadata.finalizers).toBeUndefined();
  });

  test("appears in discovery with its names, verbs and subresources", async () => {
    const groups = (await s.call("GET", "/apis")).body.groups;
    const g = groups.find((x: any) => x.name === G);
    expect(g).toEqual({ name: G, versions: [{ groupVersion: `${G}/v1`, version: "v1" }, { groupVersion: `${G}/v1beta1`, version: "v1beta1" }], preferredVersion: { groupVersion: `${G}/v1`, version: "v1" } });
    expectCode(await s.call("GET", `/apis/${G}`), 200, "group document");
    const list = (await s.call("GET", `/apis/${G}/v1`)).body;
    const byName = Object.fromEntries(list.resources.map((r: any) => [r.name, r]));
    expect(byName.crontabs).toMatchObject({ singularName: "crontab", namespaced: true, kind: "CronTab", shortNames: ["ct"], categories: ["all"] });
    expect(byName.crontabs.verbs.sort()).toEqual(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);
    expect(byName["crontabs/status"]).toMatchObject({ kind: "CronTab", verbs: ["get", "patch", "update"] });
    expect(byName["crontabs/scale"]).toMatchObject({ group: "autoscaling", version: "v1", kind: "Scale" });
    const aggregated = await s.call("GET", "/apis", undefined, { Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" });
    const item = aggregated.body.items.find((i: any) => i.metadata.name === G);
    expect(item.versions.map((v: any) => v.version)).toEqual(["v1", "v1beta1"]);
    expect(item.versions[0].resources[0]).toMatchObject({ resource: "crontabs", singularResource: "crontab", scope: "Namespaced", shortNames: ["ct"] });
  });

  test("a second definition with a name already in use is not accepted", async () => {
    const other = structuredClone(cronTabs) as any;
    other.metadata.name = `crontabz.${G}`;
    other.spec.names = { plural: "crontabz", singular: "crontabz", kind: "CronTabZ", shortNames: ["ct"] };
    expectCode(await s.call("POST", CRDS, other), 201, "create the conflicting CRD");
    const crd = await until(async () => {
      const r = await s.call("GET", `${CRDS}/${other.metadata.name}`);
      return r.body.status?.conditions?.length && r.body;
    }, "conditions of the conflicting CRD");
    const c = Object.fromEntries(crd.status.conditions.map((x: any) => [x.type, x]));
    expect([c.NamesAccepted.status, c.NamesAccepted.reason, c.NamesAccepted.message]).toEqual(["False", "ShortNamesConflict", `"ct" is already in use`]);
    expect([c.Established.status, c.Established.reason, c.Established.message]).toEqual(["False", "NotAccepted", "not all names are accepted"]);
    expectStatus(await s.call("GET", base().replace("crontabs", "crontabz")), 404, "NotFound", "not served");
    expectCode(await s.call("DELETE", `${CRDS}/${other.metadata.name}`), 200, "delete it");
  });
});

describe("custom objects", () => {
  test("CRUD, defaults, generation, and the storage key", async () => {
    const c = await s.call("POST", base(), cronTab("one"));
    expectCode(c, 201, "create");
    expect(c.body.spec.replicas).toBe(1);
    expect(c.body.metadata.generation).toBe(1);
    expect(c.body.status).toBeUndefined();
    const got = await s.call("GET", `${base()}/one`);
    expect(got.body.spec).toEqual({ cronSpec: "* * * * */5", image: "img", replicas: 1 });
    const put = await s.call("PUT", `${base()}/one`, { ...got.body, spec: { ...got.body.spec, image: "img2" }, status: { replicas: 9 } });
    expectCode(put, 200, "update");
    expect(put.body.metadata.generation).toBe(2);
    expect(put.body.status).toBeUndefined(); // status is its own subresource
    const st = await s.call("PUT", `${base()}/one/status`, { ...put.body, status: { replicas: 3 } });
    expectCode(st, 200, "status update");
    expect([st.body.status, st.body.metadata.generation]).toEqual([{ replicas: 3 }, 2]);
    // the same object through the other version (conversion None)
    const beta = await s.call("GET", `${base("v1beta1")}/one`);
    expect([beta.body.apiVersion, beta.body.spec.image]).toEqual([`${G}/v1beta1`, "img2"]);
    expectStatus(await s.call("POST", base(), cronTab("one")), 409, "AlreadyExists", "create again");
    const wrong = await s.call("POST", base(), cronTab("bad", { replicas: "three" }));
    const st422 = expectStatus(wrong, 422, "Invalid", "a value of the wrong type");
    expect(st422.message).toBe(`CronTab.${G} "bad" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`);
  });

  test("lists in chunks, selects by label and field, and patches", async () => {
    for (const n of ["a1", "a2", "a3"]) expectCode(await s.call("POST", base(), cronTab(n, { image: n }, { set: n === "a3" ? "x" : "y" })), 201, `create ${n}`);
    const p1 = await s.call("GET", `${base()}?limit=2`);
    expect(p1.body.kind).toBe("CronTabList");
    expect(p1.body.items.length).toBe(2);
    const p2 = await s.call("GET", `${base()}?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
    expect([...p1.body.items, ...p2.body.items].map((o: any) => o.metadata.name)).toEqual(["a1", "a2", "a3", "one"]);
    const byLabel = await s.call("GET", `${base()}?labelSelector=set%3Dx`);
    expect(byLabel.body.items.map((o: any) => o.metadata.name)).toEqual(["a3"]);
    const byField = await s.call("GET", `/apis/${G}/v1/crontabs?fieldSelector=metadata.name%3Da2`);
    expect(byField.body.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual([`${NS}/a2`]);
    const merge = await s.call("PATCH", `${base()}/a1`, { spec: { image: "merged" } }, { "Content-Type": "application/merge-patch+json" });
    expect(merge.body.spec.image).toBe("merged");
    const json = await s.call("PATCH", `${base()}/a1`, [{ op: "replace", path: "/spec/image", value: "json" }], { "Content-Type": "application/json-patch+json" });
    expect(json.body.spec.image).toBe("json");
    const smp = await s.call("PATCH", `${base()}/a1`, { spec: { image: "x" } }, { "Content-Type": "application/strategic-merge-patch+json" });
    const st = expectStatus(smp, 415, "UnsupportedMediaType", "strategic merge patch");
    expect(st.message).toBe("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
    const pb = await s.call("GET", `${base()}/a1`, undefined, { Accept: "application/vnd.kubernetes.protobuf" });
    expectStatus(pb, 406, "NotAcceptable", "protobuf");
    const pbBody = await s.req(base(), { method: "POST", body: new Uint8Array([0x6b, 0x38, 0x73, 0]), headers: { "Content-Type": "application/vnd.kubernetes.protobuf" } });
    expect(pbBody.status).toBe(415);
    expect(((await pbBody.json()) as any).message).toBe("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml");
    const dry = await s.call("DELETE", `${base()}/a2?dryRun=All`);
    expectCode(dry, 200, "dry-run delete");
    expectCode(await s.call("GET", `${base()}/a2`), 200, "still there");
  });

  test("server-side apply creates and merges", async () => {
    const path = `${base()}/applied?fieldManager=tester`;
    const cfg = cronTab("applied", { image: "one" });
    const a = await s.call("PATCH", path, cfg, { "Content-Type": "application/apply-patch+yaml" });
    expectCode(a, 201, "apply create");
    expect(a.body.metadata.managedFields[0]).toMatchObject({ manager: "tester", operation: "Apply" });
    const b = await s.call("PATCH", `${base()}/applied?fieldManager=other`, cronTab("applied", { image: "two" }), { "Content-Type": "application/apply-patch+yaml" });
    expectStatus(b, 409, "Conflict", "another manager's field");
  });

  test("watch sees changes, at either version", async () => {
    const list = await s.call("GET", base());
    const w = await openWatch(s, `${base("v1beta1")}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
    expectCode(await s.call("POST", base(), cronTab("watched")), 201, "create");
    const [ev] = await w.take(1);
    expect([ev.type, ev.object.apiVersion, ev.object.metadata.name]).toEqual(["ADDED", `${G}/v1beta1`, "watched"]);
    w.close();
  });

  test("Table with the printer columns, and PartialObjectMetadata", async () => {
    const t = await s.call("GET", `${base()}/one`, undefined, { Accept: "application/json;as=Table;g=meta.k8s.io;v=v1" });
    expect(t.body.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Spec", "Replicas"]);
    expect(t.body.rows[0].cells).toEqual(["one", "* * * * */5", 1]);
    const beta = await s.call("GET", base("v1beta1"), undefined, { Accept: "application/json;as=Table;g=meta.k8s.io;v=v1" });
    expect(beta.body.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Age"]);
    const m = await s.call("GET", `${base()}/one`, undefined, { Accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1" });
    expect([m.body.kind, m.body.metadata.name, m.body.spec]).toEqual(["PartialObjectMetadata", "one", undefined]);
  });

  test("the scale subresource reads and writes the replica paths", async () => {
    const sc = await s.call("GET", `${base()}/one/scale`);
    expect([sc.body.kind, sc.body.spec.replicas, sc.body.status.replicas]).toEqual(["Scale", 1, 3]);
    const put = await s.call("PUT", `${base()}/one/scale`, { ...sc.body, spec: { replicas: 5 } });
    expectCode(put, 200, "scale");
    expect((await s.call("GET", `${base()}/one`)).body.spec.replicas).toBe(5);
  });
});

describe("changing the definition", () => {
  test("a version no longer served leaves discovery and answers 404; its objects stay at the other", async () => {
    const patch = [{ op: "replace", path: "/spec/versions/1/served", value: false }];
    expectCode(await s.call("PATCH", `${CRDS}/${cronTabs.metadata.name}`, patch, { "Content-Type": "application/json-patch+json" }), 200, "stop serving v1beta1");
    await until(async () => (await s.call("GET", `${base("v1beta1")}/one`)).status === 404, "v1beta1 gone");
    const g = (await s.call("GET", `/apis/${G}`)).body;
    expect(g.versions.map((v: any) => v.version)).toEqual(["v1"]);
    expectCode(await s.call("GET", `${base()}/one`), 200, "still at v1");
  });
});

describe("deleting", () => {
  test("the definition: Terminating while an object is held, then its objects and endpoints go", async () => {
    const held = cronTab("held") as any;
    held.metadata.finalizers = ["example.com/hold"];
    expectCode(await s.call("POST", base(), held), 201, "create an object with a finalizer");
    const d = await s.call("DELETE", `${CRDS}/${cronTabs.metadata.name}`);
    expectCode(d, 200, "delete the CRD");
    expect(d.body.metadata.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    const crd = await until(async () => {
      const r = await s.call("GET", `${CRDS}/${cronTabs.metadata.name}`);
      return r.body.status?.conditions?.find((c: any) => c.type === "Terminating");
    }, "the Terminating condition");
    expect([crd.status, crd.reason, crd.message]).toEqual(["True", "InstanceDeletionInProgress", "CustomResource deletion is in progress"]);
    const refused = expectStatus(await s.call("POST", base(), cronTab("late")), 405, "MethodNotAllowed", "create while terminating");
    expect(refused.message).toBe("create not allowed while custom resource definition is terminating");
    await until(async () => (await s.call("GET", `${base()}/held`)).body.metadata?.deletionTimestamp, "the held object being deleted");
    expectCode(await s.call("PATCH", `${base()}/held`, { metadata: { finalizers: null } }, { "Content-Type": "application/merge-patch+json" }), 200, "release it");
    await until(async () => (await s.call("GET", `${CRDS}/${cronTabs.metadata.name}`)).status === 404, "the CRD gone");
    expectStatus(await s.call("GET", base()), 404, "NotFound", "the endpoint is gone");
    const groups = (await s.call("GET", "/apis")).body.groups;
    expect(groups.some((g: any) => g.name === G)).toBe(false);
    // created again, it starts empty
    expectCode(await s.call("POST", CRDS, cronTabs), 201, "create it again");
    await established(cronTabs.metadata.name);
    expect((await s.call("GET", base())).body.items).toEqual([]);
  });
});
