// Dry-run (spec §9.2, §4.3) against a real `kite apiserver`: with dryRun=All, POST, PUT, every PATCH type,
// apply, DELETE and deletecollection run every stage (defaulting, validation, admission, patch merge) and answer
// with the would-be object and the real request's status code, while nothing is stored, no revision is consumed
// and no watcher sees an event. Any other dryRun value is refused.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, type Reply, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "dry";
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const SVC = `/api/v1/namespaces/${NS}/services`;
const DRY = "?dryRun=All";
const MERGE = "application/merge-patch+json";
const JSONP = "application/json-patch+json";
const SMP = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

let s: TestServer;
useServer(NS, (started) => (s = started));

const get = async (path: string) => {
  const r = await s.call("GET", path);
  expectCode(r, 200, `GET ${path}`);
  return r.body;
};
const listRV = async (path: string): Promise<string> => (await get(path)).metadata.resourceVersion;
const patch = (path: string, type: string, body: unknown, query = DRY) => s.call("PATCH", `${path}${query}`, body, { "Content-Type": type });

async function createCM(name: string, data: Record<string, string>, extra: Record<string, any> = {}) {
  const r = await s.call("POST", CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra }, data });
  expectCode(r, 201, `create configmap ${name}`);
  return r.body;
}

const deployment = (name: string, image = "nginx:1.20") => ({
  apiVersion: "apps/v1", kind: "Deployment", metadata: { name },
  spec: {
    replicas: 1, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "web", image }, { name: "sidecar", image: "busybox:1.33" }] } },
  },
});

interface Watcher { events: any[]; close(): void }

/** Opens a watch of a collection from `rv` and collects its events (one JSON object per line). */
async function openWatch(collection: string, rv: string): Promise<Watcher> {
  const ac = new AbortController();
  const events: any[] = [];
  const res = await s.req(`${collection}?watch=1&resourceVersion=${rv}`, { signal: ac.signal });
  if (res.status !== 200) throw new Error(`watch ${collection}: HTTP ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += dec.decode(value, { stream: true });
        for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (line) events.push(JSON.parse(line));
        }
      }
    } catch { /* aborted */ }
  })();
  return { events, close: () => ac.abort() };
}

/** Every object of a collection with the version it was last written at. */
const contents = async (path: string): Promise<string[]> =>
  ((await get(path)).items as any[]).map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

/**
 * Runs dry-run requests against `collections` and checks they left no trace: no watcher of the collection saw
 * an event within ~300 ms, and every object of the collection is as it was. (Not the list's resourceVersion:
 * that is the store's revision, which the server's own lease renewal, every 5 s, moves too.)
 */
async function leavesNoTrace(collections: string[], run: () => Promise<void>) {
  const before = await Promise.all(collections.map(contents));
  const watchers = await Promise.all(collections.map(async (c) => openWatch(c, await listRV(c))));
  try {
    await run();
    await Bun.sleep(300);
    collections.forEach((c, i) => {
      if (watchers[i].events.length) throw new Error(`a watcher of ${c} saw ${JSON.stringify(watchers[i].events.map((e) => [e.type, e.object?.metadata?.name]))}`);
    });
    expect(await Promise.all(collections.map(contents))).toEqual(before);
  } finally {
    watchers.forEach((w) => w.close());
  }
}

describe("dryRun=All on create (POST)", () => {
  test("201 with the would-be object (defaults, managedFields); nothing stored", async () => {
    await leavesNoTrace([CM, SVC], async () => {
      const r = await s.call("POST", `${CM}${DRY}&fieldManager=dry-creator`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-create", labels: { a: "b" } }, data: { k: "v" } });
      expectCode(r, 201, "dry-run POST");
      expect(r.body.kind).toBe("ConfigMap");
      expect(r.body.metadata.name).toBe("dry-create");
      expect(r.body.metadata.namespace).toBe(NS);
      expect(r.body.metadata.creationTimestamp).toBeTruthy();
      expect(r.body.metadata.uid).toBeTruthy();
      expect(r.body.data).toEqual({ k: "v" });
      expect(r.body.metadata.managedFields?.[0]).toMatchObject({ manager: "dry-creator", operation: "Update" });
      expect((await s.call("GET", `${CM}/dry-create`)).status).toBe(404);

      // generateName picks a name; defaulting runs (a Service gets its type, protocol, targetPort and a cluster IP).
      const g = await s.call("POST", `${SVC}${DRY}`, {
        apiVersion: "v1", kind: "Service", metadata: { generateName: "dry-svc-" }, spec: { selector: { app: "x" }, ports: [{ port: 80 }] },
      });
      expectCode(g, 201, "dry-run POST of a service with generateName");
      expect(g.body.metadata.name).toMatch(/^dry-svc-[a-z0-9]{5}$/);
      expect(g.body.spec).toMatchObject({ type: "ClusterIP", ports: [{ port: 80, protocol: "TCP", targetPort: 80 }] });
      expect(g.body.spec.clusterIP).toBeTruthy();
      expect((await s.call("GET", `${SVC}/${g.body.metadata.name}`)).status).toBe(404);
    });
    expect((await get(CM)).items.map((i: any) => i.metadata.name)).not.toContain("dry-create");
  });

  test("validation and admission still run: invalid → 422, missing namespace → 404", async () => {
    await leavesNoTrace([CM, DEP], async () => {
      expectStatus(await s.call("POST", `${CM}${DRY}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Bad_Name" }, data: {} }), 422, "Invalid", "dry-run POST with a bad name");
      const d = deployment("dry-invalid");
      delete (d.spec as any).selector;
      expectStatus(await s.call("POST", `${DEP}${DRY}`, d), 422, "Invalid", "dry-run POST of a deployment without selector");
      expectStatus(await s.call("POST", `/api/v1/namespaces/no-such-ns/configmaps${DRY}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }), 404, "NotFound", "dry-run POST into a missing namespace");
    });
  });

  test("a name that exists is 409 AlreadyExists, as the real create would be", async () => {
    await createCM("dry-exists", { k: "v" });
    await leavesNoTrace([CM], async () => {
      const r = await s.call("POST", `${CM}${DRY}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-exists" }, data: { k: "other" } });
      expectStatus(r, 409, "AlreadyExists", "dry-run POST of an existing name");
    });
    expect((await get(`${CM}/dry-exists`)).data).toEqual({ k: "v" });
  });
});

describe("dryRun=All on update (PUT)", () => {
  test("200 with the would-be object; the stored object, revision and watchers are untouched", async () => {
    const cm = await createCM("dry-put", { k: "v" });
    const dep = (await s.call("POST", DEP, deployment("dry-put"))).body;
    await leavesNoTrace([CM, DEP], async () => {
      const next = { ...cm, data: { k: "changed", n: "new" } };
      const r = await s.call("PUT", `${CM}/dry-put${DRY}`, next);
      expectCode(r, 200, "dry-run PUT");
      expect(r.body.data).toEqual({ k: "changed", n: "new" });
      expect(r.body.metadata.uid).toBe(cm.metadata.uid);

      const nd = structuredClone(dep);
      nd.spec.replicas = 4;
      const d = await s.call("PUT", `${DEP}/dry-put${DRY}`, nd);
      expectCode(d, 200, "dry-run PUT of a deployment");
      expect(d.body.spec.replicas).toBe(4);
      expect(d.body.metadata.generation).toBe(2);
    });
    expect(await get(`${CM}/dry-put`)).toEqual(cm);
    const gd = await get(`${DEP}/dry-put`);
    expect(gd.spec.replicas).toBe(1);
    expect(gd.metadata.generation).toBe(1);
  });

  test("a stale resourceVersion is 409 and an invalid object 422 under dry-run too", async () => {
    const cm = await createCM("dry-put-bad", { k: "v" });
    const moved = await s.call("PATCH", `${CM}/dry-put-bad`, { data: { k: "v2" } }, { "Content-Type": MERGE });
    expectCode(moved, 200, "real patch");
    await leavesNoTrace([CM], async () => {
      expectStatus(await s.call("PUT", `${CM}/dry-put-bad${DRY}`, { ...cm, data: { k: "v3" } }), 409, "Conflict", "dry-run PUT with a stale resourceVersion");
      const bad = { ...moved.body, metadata: { ...moved.body.metadata, labels: { "not valid!": "x" } } };
      expectStatus(await s.call("PUT", `${CM}/dry-put-bad${DRY}`, bad), 422, "Invalid", "dry-run PUT of an invalid object");
    });
    expect((await get(`${CM}/dry-put-bad`)).data).toEqual({ k: "v2" });
  });
});

describe("dryRun=All on PATCH", () => {
  test("merge, JSON and strategic merge patches answer the patched object and store nothing", async () => {
    const cm = await createCM("dry-patch", { k: "v", drop: "me" });
    const dep = (await s.call("POST", DEP, deployment("dry-patch"))).body;
    await leavesNoTrace([CM, DEP], async () => {
      const m = await patch(`${CM}/dry-patch`, MERGE, { data: { k: "merged", drop: null } });
      expectCode(m, 200, "dry-run merge patch");
      expect(m.body.data).toEqual({ k: "merged" });

      const j = await patch(`${CM}/dry-patch`, JSONP, [{ op: "test", path: "/data/k", value: "v" }, { op: "add", path: "/data/j", value: "json" }]);
      expectCode(j, 200, "dry-run json patch");
      expect(j.body.data).toEqual({ k: "v", drop: "me", j: "json" });

      const sm = await patch(`${DEP}/dry-patch`, SMP, { spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.21" }, { name: "sidecar", $patch: "delete" }] } } } });
      expectCode(sm, 200, "dry-run strategic merge patch");
      expect(sm.body.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(["web=nginx:1.21"]);
      expect(sm.body.metadata.generation).toBe(2);
    });
    expect(await get(`${CM}/dry-patch`)).toEqual(cm);
    const gd = await get(`${DEP}/dry-patch`);
    expect(gd.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(["web=nginx:1.20", "sidecar=busybox:1.33"]);
    expect(gd.metadata.resourceVersion).toBe(dep.metadata.resourceVersion);
  });

  test("a failing patch or an invalid result is still refused under dry-run", async () => {
    await createCM("dry-patch-bad", { k: "v" });
    await s.call("POST", DEP, deployment("dry-patch-bad"));
    await leavesNoTrace([CM, DEP], async () => {
      expectStatus(await patch(`${CM}/dry-patch-bad`, JSONP, [{ op: "test", path: "/data/k", value: "nope" }]), 422, "Invalid", "dry-run json patch with a failing test");
      expectStatus(await patch(`${DEP}/dry-patch-bad`, SMP, { spec: { selector: null } }), 422, "Invalid", "dry-run strategic patch removing the selector");
      expectStatus(await patch(`${CM}/dry-patch-bad`, MERGE, { metadata: { labels: { "bad label!": "x" } } }), 422, "Invalid", "dry-run merge patch with an invalid label");
      expectStatus(await patch(`${CM}/missing`, MERGE, { data: { k: "x" } }), 404, "NotFound", "dry-run merge patch of a missing object");
    });
  });

  test("apply: 201 for a new object and 200 for an existing one, nothing stored", async () => {
    const cm = await createCM("dry-apply", { k: "v" });
    await leavesNoTrace([CM], async () => {
      const n = await patch(`${CM}/dry-apply-new`, APPLY, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-apply-new" }, data: { a: "1" } }, `${DRY}&fieldManager=dry-applier`);
      expectCode(n, 201, "dry-run apply creating");
      expect(n.body.data).toEqual({ a: "1" });
      const u = await patch(`${CM}/dry-apply`, APPLY, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-apply" }, data: { a: "1" } }, `${DRY}&fieldManager=dry-applier`);
      expectCode(u, 200, "dry-run apply updating");
      expect(u.body.data).toEqual({ k: "v", a: "1" });
      expect(u.body.metadata.managedFields.some((e: any) => e.manager === "dry-applier" && e.operation === "Apply")).toBe(true);
    });
    expect((await s.call("GET", `${CM}/dry-apply-new`)).status).toBe(404);
    expect(await get(`${CM}/dry-apply`)).toEqual(cm);
  });

  test("a dry-run patch of the status subresource changes nothing", async () => {
    const dep = (await s.call("POST", DEP, deployment("dry-status"))).body;
    await leavesNoTrace([DEP], async () => {
      const r = await patch(`${DEP}/dry-status/status`, MERGE, { status: { replicas: 3 } });
      expectCode(r, 200, "dry-run status patch");
      expect(r.body.status.replicas).toBe(3);
    });
    expect(await get(`${DEP}/dry-status`)).toEqual(dep);
  });
});

describe("dryRun=All on DELETE and deletecollection", () => {
  test("DELETE answers as the real one would and the object stays", async () => {
    const cm = await createCM("dry-del", { k: "v" });
    await leavesNoTrace([CM], async () => {
      const r = await s.call("DELETE", `${CM}/dry-del${DRY}`);
      expectCode(r, 200, "dry-run DELETE");
      expect(r.body.status === "Success" || r.body.metadata?.name === "dry-del").toBe(true);
      // dryRun in the DeleteOptions body, as kubectl sends it.
      const b = await s.call("DELETE", `${CM}/dry-del`, { kind: "DeleteOptions", apiVersion: "v1", dryRun: ["All"], propagationPolicy: "Background" });
      expectCode(b, 200, "DELETE with dryRun in the body");
      expectStatus(await s.call("DELETE", `${CM}/not-there${DRY}`), 404, "NotFound", "dry-run DELETE of a missing object");
    });
    expect(await get(`${CM}/dry-del`)).toEqual(cm);
  });

  test("an object with finalizers: the would-be object has deletionTimestamp, the stored one has not", async () => {
    const cm = await createCM("dry-del-fin", { k: "v" }, { finalizers: ["example.com/hold"] });
    await leavesNoTrace([CM], async () => {
      const r = await s.call("DELETE", `${CM}/dry-del-fin${DRY}`);
      expectCode(r, 200, "dry-run DELETE of an object with finalizers");
      expect(r.body.metadata.deletionTimestamp).toBeTruthy();
      expect(r.body.metadata.finalizers).toEqual(["example.com/hold"]);
    });
    const g = await get(`${CM}/dry-del-fin`);
    expect(g.metadata.deletionTimestamp).toBeUndefined();
    expect(g).toEqual(cm);
  });

  test("deletecollection lists what it would delete and deletes nothing", async () => {
    for (const n of ["coll-a", "coll-b", "coll-c"]) await createCM(n, { k: n }, { labels: { batch: "dry" } });
    const before = (await get(`${CM}?labelSelector=batch%3Ddry`)).items;
    expect(before).toHaveLength(3);
    await leavesNoTrace([CM], async () => {
      const r = await s.call("DELETE", `${CM}${DRY}&labelSelector=batch%3Ddry`);
      expectCode(r, 200, "dry-run deletecollection");
      expect(r.body.kind).toBe("ConfigMapList");
      expect(r.body.items.map((i: any) => i.metadata.name).sort()).toEqual(["coll-a", "coll-b", "coll-c"]);
    });
    expect((await get(`${CM}?labelSelector=batch%3Ddry`)).items).toEqual(before);
  });
});

describe("the watch check itself", () => {
  test("a real write is seen by the same kind of watcher (the dry-run checks above are not vacuous)", async () => {
    const rv = await listRV(CM);
    const w = await openWatch(CM, rv);
    try {
      await createCM("real-write", { k: "v" });
      const deadline = Date.now() + 3000;
      while (!w.events.length && Date.now() < deadline) await Bun.sleep(20);
      expect(w.events.map((e) => [e.type, e.object.metadata.name])).toEqual([["ADDED", "real-write"]]);
    } finally {
      w.close();
    }
    expect(await listRV(CM)).not.toBe(rv);
  });
});

describe("dryRun values other than All", () => {
  test("are refused with 400 (issue 4; upstream answers 422) and nothing happens", async () => {
    const cm = await createCM("dry-bad-value", { k: "v" });
    const cases: [string, () => Promise<Reply>][] = [
      ["POST", () => s.call("POST", `${CM}?dryRun=Yes`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-bad-new" } })],
      ["PUT", () => s.call("PUT", `${CM}/dry-bad-value?dryRun=true`, { ...cm, data: { k: "x" } })],
      ["PATCH", () => s.call("PATCH", `${CM}/dry-bad-value?dryRun=all`, { data: { k: "x" } }, { "Content-Type": MERGE })],
      ["apply", () => s.call("PATCH", `${CM}/dry-bad-value?dryRun=None&fieldManager=m`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-bad-value" }, data: { k: "x" } }, { "Content-Type": APPLY })],
      ["DELETE", () => s.call("DELETE", `${CM}/dry-bad-value?dryRun=1`)],
      ["deletecollection", () => s.call("DELETE", `${CM}?dryRun=Server`)],
      ["POST with All and another value", () => s.call("POST", `${CM}?dryRun=All&dryRun=Other`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry-bad-new" } })],
    ];
    const kinds: Record<string, string> = { POST: "CreateOptions", PUT: "UpdateOptions", PATCH: "PatchOptions", apply: "PatchOptions", DELETE: "DeleteOptions", deletecollection: "DeleteOptions" };
    const replies: [string, Reply][] = [];
    await leavesNoTrace([CM], async () => {
      for (const [what, run] of cases) replies.push([what, await run()]);
    });
    expect(await get(`${CM}/dry-bad-value`)).toEqual(cm);
    expect((await s.call("GET", `${CM}/dry-bad-new`)).status).toBe(404);
    const accepted = replies.filter(([, r]) => r.status < 400).map(([what, r]) => `${what}: ${r.status}`);
    if (accepted.length) throw new Error(`bad dryRun values were accepted: ${accepted.join(", ")}`);
    for (const [what, r] of replies) {
      const st = expectStatus(r, 400, "BadRequest", `${what} with a bad dryRun value`);
      expect(st.message).toContain("dryRun: Unsupported value");
      expect(st.message.startsWith(`${kinds[what] ?? "CreateOptions"}.meta.k8s.io "" is invalid`)).toBe(true);
    }
  });
});
