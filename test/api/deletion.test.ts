// Two-phase deletion: finalizers and deletionTimestamp, DeleteOptions preconditions and propagationPolicy,
// and deletecollection with selectors.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus, useServer } from "./fixtures.ts";

// Polls below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

const NS = "del";
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const merge = { "Content-Type": "application/merge-patch+json" };
let s: TestServer;
useServer(NS, (started) => (s = started));

async function cm(name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>) {
  const r = await s.call("POST", CMS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}), ...extra }, data: { k: "v" } });
  expectCode(r, 201, `POST configmap ${name}`);
  return r.body;
}

describe("finalizers", () => {
  test("an object with a finalizer stays, with deletionTimestamp, until PATCH removes the finalizer", async () => {
    await cm("fin1", { finalizers: ["example.com/keep"] });
    const d = await s.call("DELETE", `${CMS}/fin1`);
    expectCode(d, 200, "DELETE fin1");
    expect(d.body.kind).toBe("ConfigMap");
    expect(typeof d.body.metadata.deletionTimestamp).toBe("string");
    expect(d.body.metadata.finalizers).toEqual(["example.com/keep"]);

    const g = await s.call("GET", `${CMS}/fin1`);
    expectCode(g, 200, "GET fin1 while finalizing");
    expect(g.body.metadata.deletionTimestamp).toBe(d.body.metadata.deletionTimestamp);
    expect(g.body.metadata.finalizers).toEqual(["example.com/keep"]);
    expect(g.body.data).toEqual({ k: "v" });

    // Still listed while it waits.
    const l = await s.call("GET", CMS);
    expect(l.body.items.map((o: any) => o.metadata.name)).toContain("fin1");

    const p = await s.call("PATCH", `${CMS}/fin1`, { metadata: { finalizers: null } }, merge);
    expectCode(p, 200, "PATCH away the finalizer");
    expectStatus(await s.call("GET", `${CMS}/fin1`), 404, "NotFound", "GET fin1 after the finalizer is gone");
  });

  test("a PUT that removes the last finalizer removes the object", async () => {
    await cm("fin2", { finalizers: ["example.com/a", "example.com/b"] });
    expectCode(await s.call("DELETE", `${CMS}/fin2`), 200, "DELETE fin2");
    const g = (await s.call("GET", `${CMS}/fin2`)).body;
    g.metadata.finalizers = ["example.com/b"];
    const u1 = await s.call("PUT", `${CMS}/fin2`, g);
    expectCode(u1, 200, "PUT with one finalizer left");
    expect(u1.body.metadata.finalizers).toEqual(["example.com/b"]);
    expect(u1.body.metadata.deletionTimestamp).toBe(g.metadata.deletionTimestamp);
    expectCode(await s.call("GET", `${CMS}/fin2`), 200, "fin2 still there");

    const g2 = (await s.call("GET", `${CMS}/fin2`)).body;
    g2.metadata.finalizers = [];
    expectCode(await s.call("PUT", `${CMS}/fin2`, g2), 200, "PUT without finalizers");
    expectStatus(await s.call("GET", `${CMS}/fin2`), 404, "NotFound", "GET fin2 after the last finalizer");
  });

  test("a second DELETE keeps the first deletionTimestamp", async () => {
    await cm("fin3", { finalizers: ["example.com/keep"] });
    const d1 = await s.call("DELETE", `${CMS}/fin3`);
    expectCode(d1, 200, "first DELETE");
    await Bun.sleep(1100); // timestamps have second precision
    const d2 = await s.call("DELETE", `${CMS}/fin3`);
    expectCode(d2, 200, "second DELETE");
    expect(d2.body.metadata.deletionTimestamp).toBe(d1.body.metadata.deletionTimestamp);
    expectCode(await s.call("PATCH", `${CMS}/fin3`, { metadata: { finalizers: null } }, merge), 200, "cleanup");
  });

  test("no new finalizer can be added once deletion has begun", async () => {
    await cm("fin4", { finalizers: ["example.com/keep"] });
    expectCode(await s.call("DELETE", `${CMS}/fin4`), 200, "DELETE fin4");
    const p = await s.call("PATCH", `${CMS}/fin4`, { metadata: { finalizers: ["example.com/keep", "example.com/new"] } }, merge);
    const st = expectStatus(p, 422, "Invalid", "PATCH adding a finalizer while deleting");
    expect(JSON.stringify(st.details?.causes ?? [])).toContain("metadata.finalizers");
    expectCode(await s.call("PATCH", `${CMS}/fin4`, { metadata: { finalizers: null } }, merge), 200, "cleanup");
  });

  test("an object without finalizers is removed at once, answered with a Success Status", async () => {
    const o = await cm("plain");
    const d = await s.call("DELETE", `${CMS}/plain`);
    expectCode(d, 200, "DELETE plain");
    expect(d.body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Success", details: { name: "plain", kind: "configmaps", uid: o.metadata.uid } });
    expectStatus(await s.call("GET", `${CMS}/plain`), 404, "NotFound", "GET after DELETE");
    expectStatus(await s.call("DELETE", `${CMS}/plain`), 404, "NotFound", "DELETE again");
  });
});

describe("preconditions", () => {
  test("a wrong uid → 409 Conflict and the object stays", async () => {
    await cm("pre1");
    const r = await s.call("DELETE", `${CMS}/pre1`, { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: "00000000-0000-0000-0000-000000000000" } });
    const st = expectStatus(r, 409, "Conflict", "DELETE with wrong uid");
    expect(st.message).toContain("Precondition failed");
    expect(st.details).toMatchObject({ name: "pre1", kind: "configmaps" });
    expectCode(await s.call("GET", `${CMS}/pre1`), 200, "pre1 still there");
  });

  test("a stale resourceVersion → 409 Conflict and the object stays", async () => {
    const o = await cm("pre2");
    const u = await s.call("PATCH", `${CMS}/pre2`, { data: { k: "changed" } }, merge);
    expectCode(u, 200, "PATCH pre2");
    const r = await s.call("DELETE", `${CMS}/pre2`, { preconditions: { resourceVersion: o.metadata.resourceVersion } });
    const st = expectStatus(r, 409, "Conflict", "DELETE with stale resourceVersion");
    expect(st.message).toContain("Precondition failed");
    expectCode(await s.call("GET", `${CMS}/pre2`), 200, "pre2 still there");
  });

  test("matching uid and resourceVersion delete the object", async () => {
    const o = await cm("pre3");
    const r = await s.call("DELETE", `${CMS}/pre3`, { preconditions: { uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion } });
    expectCode(r, 200, "DELETE with matching preconditions");
    expectStatus(await s.call("GET", `${CMS}/pre3`), 404, "NotFound", "pre3 gone");
  });

  test("a uid precondition protects against a re-created object of the same name", async () => {
    const old = await cm("pre4");
    expectCode(await s.call("DELETE", `${CMS}/pre4`), 200, "DELETE pre4");
    await cm("pre4");
    const r = await s.call("DELETE", `${CMS}/pre4`, { preconditions: { uid: old.metadata.uid } });
    expectStatus(r, 409, "Conflict", "DELETE the new pre4 with the old uid");
    expectCode(await s.call("GET", `${CMS}/pre4`), 200, "new pre4 stays");
  });
});

describe("propagationPolicy", () => {
  test("Background deletes at once, in the body or the query", async () => {
    await cm("bg1");
    await cm("bg2");
    expectCode(await s.call("DELETE", `${CMS}/bg1`, { propagationPolicy: "Background" }), 200, "DELETE Background body");
    expectCode(await s.call("DELETE", `${CMS}/bg2?propagationPolicy=Background`), 200, "DELETE Background query");
    expectStatus(await s.call("GET", `${CMS}/bg1`), 404, "NotFound", "bg1 gone");
    expectStatus(await s.call("GET", `${CMS}/bg2`), 404, "NotFound", "bg2 gone");
  });

  /** Waits until the object is gone. */
  async function gone(path: string) {
    const end = Date.now() + 5000;
    while ((await s.call("GET", path)).status !== 404) {
      if (Date.now() > end) throw new Error(`${path} was not removed`);
      await Bun.sleep(25);
    }
  }

  test("Foreground leaves the object with the foregroundDeletion finalizer", async () => {
    await cm("fg");
    const r = await s.call("DELETE", `${CMS}/fg`, { propagationPolicy: "Foreground" });
    expectCode(r, 200, "DELETE Foreground");
    expect(r.body.metadata.finalizers).toContain("foregroundDeletion");
    expect(typeof r.body.metadata.deletionTimestamp).toBe("string");
    // With no dependents the garbage collector removes the finalizer, and the object goes.
    await gone(`${CMS}/fg`);
  });

  test("Orphan leaves the object with the orphan finalizer", async () => {
    await cm("orph");
    const r = await s.call("DELETE", `${CMS}/orph?propagationPolicy=Orphan`);
    expectCode(r, 200, "DELETE Orphan");
    expect(r.body.metadata.finalizers).toContain("orphan");
    await gone(`${CMS}/orph`);
  });

  test("an unknown value is refused and the object stays", async () => {
    await cm("badpol");
    // Upstream validates DeleteOptions and answers 422 Invalid (kind DeleteOptions, group meta.k8s.io).
    const r = await s.call("DELETE", `${CMS}/badpol`, { propagationPolicy: "Sideways" });
    const st = expectStatus(r, 422, "Invalid", "DELETE propagationPolicy=Sideways");
    expect(st.message).toContain("Sideways");
    expect(st.details).toMatchObject({ kind: "DeleteOptions", group: "meta.k8s.io" });
    const q = await s.call("DELETE", `${CMS}/badpol?propagationPolicy=Sideways`);
    expectStatus(q, 422, "Invalid", "DELETE ?propagationPolicy=Sideways");
    expectCode(await s.call("GET", `${CMS}/badpol`), 200, "badpol still there");
  });

  test("orphanDependents with propagationPolicy is refused", async () => {
    const r = await s.call("DELETE", `${CMS}/badpol`, { orphanDependents: true, propagationPolicy: "Background" });
    expectStatus(r, 422, "Invalid", "DELETE orphanDependents + propagationPolicy");
    expectCode(await s.call("GET", `${CMS}/badpol`), 200, "badpol still there");
  });
});

describe("deletecollection", () => {
  test("a label selector deletes only the matching objects", async () => {
    for (const [n, tier] of [["dc1", "web"], ["dc2", "web"], ["dc3", "db"], ["dc4", ""]] as const) {
      await cm(n, {}, tier ? { group: "dc", tier } : { group: "dc" });
    }
    const r = await s.call("DELETE", `${CMS}?labelSelector=${encodeURIComponent("tier=web")}`);
    expectCode(r, 200, "DELETE collection tier=web");
    const left = (await s.call("GET", `${CMS}?labelSelector=group%3Ddc`)).body.items.map((o: any) => o.metadata.name).sort();
    expect(left).toEqual(["dc3", "dc4"]);
  });

  test("set-based selectors work too", async () => {
    for (const n of ["sb1", "sb2", "sb3"]) await cm(n, {}, { set: n });
    expectCode(await s.call("DELETE", `${CMS}?labelSelector=${encodeURIComponent("set in (sb1,sb3)")}`), 200, "DELETE collection set in");
    const left = (await s.call("GET", `${CMS}?labelSelector=set`)).body.items.map((o: any) => o.metadata.name);
    expect(left).toEqual(["sb2"]);
  });

  test("a field selector deletes only the named object", async () => {
    await cm("fs1", {}, { fs: "x" });
    await cm("fs2", {}, { fs: "x" });
    expectCode(await s.call("DELETE", `${CMS}?fieldSelector=metadata.name%3Dfs1`), 200, "DELETE collection metadata.name=fs1");
    const left = (await s.call("GET", `${CMS}?labelSelector=fs`)).body.items.map((o: any) => o.metadata.name);
    expect(left).toEqual(["fs2"]);
  });

  test("it stays inside its namespace", async () => {
    await createNamespace(s, "del-other");
    const other = await s.call("POST", "/api/v1/namespaces/del-other/configmaps", { metadata: { name: "o1", labels: { wipe: "yes" } } });
    expectCode(other, 201, "POST in other namespace");
    await cm("w1", {}, { wipe: "yes" });
    expectCode(await s.call("DELETE", `${CMS}?labelSelector=wipe%3Dyes`), 200, "DELETE collection wipe=yes");
    expectStatus(await s.call("GET", `${CMS}/w1`), 404, "NotFound", "w1 gone");
    expectCode(await s.call("GET", "/api/v1/namespaces/del-other/configmaps/o1"), 200, "o1 in the other namespace stays");
  });

  test("objects with finalizers are marked, not removed", async () => {
    await cm("dcf", { finalizers: ["example.com/keep"] }, { dcf: "yes" });
    expectCode(await s.call("DELETE", `${CMS}?labelSelector=dcf%3Dyes`), 200, "DELETE collection dcf=yes");
    const g = await s.call("GET", `${CMS}/dcf`);
    expectCode(g, 200, "dcf stays");
    expect(typeof g.body.metadata.deletionTimestamp).toBe("string");
    expectCode(await s.call("PATCH", `${CMS}/dcf`, { metadata: { finalizers: null } }, merge), 200, "cleanup");
  });
});

describe("graceful deletion of a pod", () => {
  test("a bound pod being deleted stays through its node's status writes until the node confirms with grace 0", async () => {
    const PODS = `/api/v1/namespaces/${NS}/pods`;
    const r = await s.call("POST", PODS, { apiVersion: "v1", kind: "Pod", metadata: { name: "stopping" }, spec: { nodeName: "some-node", containers: [{ name: "c", image: "busybox" }] } });
    expectCode(r, 201, "POST pod");
    const d = await s.call("DELETE", `${PODS}/stopping`);
    expectCode(d, 200, "DELETE pod");
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(30);
    // the node agent reports its containers stopping: an update, which must not delete the pod (ShouldDeleteDuringUpdate)
    const st = await s.call("PATCH", `${PODS}/stopping/status`, { status: { phase: "Running" } }, merge);
    expectCode(st, 200, "PATCH status while terminating");
    expectCode(await s.call("GET", `${PODS}/stopping`), 200, "GET after the status write");
    expectCode(await s.call("DELETE", `${PODS}/stopping?gracePeriodSeconds=0`), 200, "DELETE grace 0");
    expectCode(await s.call("GET", `${PODS}/stopping`), 404, "GET after the confirmation");
  });
});
