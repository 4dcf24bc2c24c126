// Create, get, list, update and delete for every built-in type, plus generateName, generation and the
// status subresource, against a real `kite apiserver`.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import type { TestServer } from "../helpers/server.ts";
import { apiVersionOf, expectCode, expectServerMeta, expectStatus, minimalBody, pathFor, typeLabel, until, useServer } from "./fixtures.ts";

// Polls below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

const NS = "crud";
let s: TestServer;
useServer(NS, (started) => (s = started));

describe("lifecycle of every built-in type", () => {
  // Computed types (componentstatuses) are read-only: builtin-objects.test.ts reads them.
  for (const d of BUILTIN.filter((x) => !x.computed)) {
    test(typeLabel(d), async () => {
      const label = typeLabel(d);
      const body = minimalBody(d, `crud-${d.group.split(".")[0] || "core"}-${d.singular.replace(/[^a-z0-9]/g, "")}`, NS);
      const name: string = body.metadata.name;

      // create
      const c = await s.call("POST", pathFor(d, NS), body);
      expectCode(c, 201, `POST ${label}`);
      expect(c.body.kind).toBe(d.kind);
      expect(c.body.apiVersion).toBe(apiVersionOf(d));
      expect(c.body.metadata.name).toBe(name);
      if (d.namespaced) expect(c.body.metadata.namespace).toBe(NS);
      else expect(c.body.metadata.namespace).toBeUndefined();
      expectServerMeta(c.body, `POST ${label}`);

      // create again: AlreadyExists
      const dup = await s.call("POST", pathFor(d, NS), body);
      const st = expectStatus(dup, 409, "AlreadyExists", `second POST ${label}`);
      expect(st.details.name).toBe(name);
      expect(st.details.kind).toBe(d.plural);

      // the server writes a definition's status (accepted names, conditions) and a FlowSchema's (Dangling)
      // right after its create, as upstream
      const settled = d.kind === "CustomResourceDefinition" || d.kind === "FlowSchema";
      if (settled) await until(async () => (await s.call("GET", pathFor(d, NS, name))).body.status?.conditions, `${label}/${name} status`);

      // get
      const g = await s.call("GET", pathFor(d, NS, name));
      expectCode(g, 200, `GET ${label}/${name}`);
      expect(g.body.metadata.uid).toBe(c.body.metadata.uid);
      if (!settled) expect(g.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
      expect(g.body.metadata.creationTimestamp).toBe(c.body.metadata.creationTimestamp);

      // list: in the namespace, across namespaces, and not in another namespace
      const names = (l: any) => (l.items as any[]).map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`);
      const l = await s.call("GET", pathFor(d, NS));
      expectCode(l, 200, `LIST ${label}`);
      expect(l.body.kind).toBe(`${d.kind}List`);
      expect(l.body.apiVersion).toBe(apiVersionOf(d));
      expect(names(l.body)).toContain(`${d.namespaced ? NS : ""}/${name}`);
      if (d.namespaced) {
        const all = await s.call("GET", pathFor(d, ""));
        expectCode(all, 200, `LIST ${label} across namespaces`);
        expect(all.body.kind).toBe(`${d.kind}List`);
        expect(names(all.body)).toContain(`${NS}/${name}`);
        const other = await s.call("GET", pathFor(d, "default"));
        expectCode(other, 200, `LIST ${label} in default`);
        expect(names(other.body)).not.toContain(`${NS}/${name}`);
      }

      // update: resourceVersion changes, the change is stored
      const next = structuredClone(g.body);
      next.metadata.labels = { ...(next.metadata.labels ?? {}), updated: "yes" };
      const u = await s.call("PUT", pathFor(d, NS, name), next);
      expectCode(u, 200, `PUT ${label}/${name}`);
      expect(u.body.metadata.labels.updated).toBe("yes");
      expect(u.body.metadata.uid).toBe(c.body.metadata.uid);
      expect(u.body.metadata.resourceVersion).not.toBe(c.body.metadata.resourceVersion);
      const g2 = await s.call("GET", pathFor(d, NS, name));
      expect(g2.body.metadata.labels.updated).toBe("yes");
      expect(g2.body.metadata.resourceVersion).toBe(u.body.metadata.resourceVersion);

      // update with the stale resourceVersion: Conflict
      const stale = structuredClone(g.body);
      stale.metadata.labels = { ...(stale.metadata.labels ?? {}), stale: "yes" };
      const cf = await s.call("PUT", pathFor(d, NS, name), stale);
      const cst = expectStatus(cf, 409, "Conflict", `PUT ${label}/${name} with stale resourceVersion`);
      expect(cst.details.name).toBe(name);
      expect(cst.details.kind).toBe(d.plural);
      expect((await s.call("GET", pathFor(d, NS, name))).body.metadata.labels.stale).toBeUndefined();

      // delete, then it is gone (a namespace first passes through Terminating)
      const del = await s.call("DELETE", pathFor(d, NS, name));
      expectCode(del, 200, `DELETE ${label}/${name}`);
      if (d.kind === "PersistentVolumeClaim" || d.kind === "PersistentVolume") {
        // StorageObjectInUseProtection's finalizer holds it; a bare server runs no protection controller to lift it
        expect(del.body.metadata.finalizers).toEqual([d.kind === "PersistentVolume" ? "kubernetes.io/pv-protection" : "kubernetes.io/pvc-protection"]);
        const lifted = await s.call("PATCH", pathFor(d, NS, name), { metadata: { finalizers: null } }, { "Content-Type": "application/merge-patch+json" });
        expectCode(lifted, 200, `PATCH ${label}/${name} finalizers`);
      }
      // a definition goes once the server has deleted its objects
      if (settled) await until(async () => (await s.call("GET", pathFor(d, NS, name))).status === 404, `${label}/${name} to go`);
      if (d.kind === "Namespace") {
        expect(del.body.status.phase).toBe("Terminating");
        await until(async () => (await s.call("GET", pathFor(d, NS, name))).status === 404, `namespace ${name} to go`);
      }
      const gone = await s.call("GET", pathFor(d, NS, name));
      const nf = expectStatus(gone, 404, "NotFound", `GET ${label}/${name} after DELETE`);
      expect(nf.details.name).toBe(name);
      expect(nf.details.kind).toBe(d.plural);
    });
  }
});

describe("generateName", () => {
  test("the server picks a unique name from the prefix", async () => {
    const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-" }, data: { a: "b" } };
    const a = await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, body);
    const b = await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, body);
    expectCode(a, 201, "POST generateName");
    expectCode(b, 201, "POST generateName again");
    for (const r of [a, b]) {
      expect(r.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
      expect(r.body.metadata.generateName).toBe("gen-");
      expectServerMeta(r.body, "generateName");
    }
    expect(a.body.metadata.name).not.toBe(b.body.metadata.name);
    expectCode(await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/${a.body.metadata.name}`), 200, "GET generated name");
  });

  test("a name given with generateName wins", async () => {
    const r = await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "explicit", generateName: "gen-" } });
    expectCode(r, 201, "POST name+generateName");
    expect(r.body.metadata.name).toBe("explicit");
  });

  test("generateName works on cluster-scoped types", async () => {
    const r = await s.call("POST", "/api/v1/namespaces", { metadata: { generateName: "gen-ns-" } });
    expectCode(r, 201, "POST namespace with generateName");
    expect(r.body.metadata.name).toMatch(/^gen-ns-[a-z0-9]{5}$/);
  });
});

const deploy = (name: string, replicas = 1) => ({
  apiVersion: "apps/v1", kind: "Deployment", metadata: { name, labels: { app: name } },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx:1.21" }] } } },
});
const DEPLOYS = `/apis/apps/v1/namespaces/${NS}/deployments`;

describe("generation", () => {
  test("starts at 1, bumps on a spec change, not on a label change or a status write", async () => {
    const c = await s.call("POST", DEPLOYS, deploy("gen"));
    expectCode(c, 201, "POST deployment");
    expect(c.body.metadata.generation).toBe(1);

    const labelled = structuredClone(c.body);
    labelled.metadata.labels.extra = "x";
    const u1 = await s.call("PUT", `${DEPLOYS}/gen`, labelled);
    expectCode(u1, 200, "PUT label change");
    expect(u1.body.metadata.generation).toBe(1);

    const annotated = await s.call("PATCH", `${DEPLOYS}/gen`, { metadata: { annotations: { note: "n" } } }, { "Content-Type": "application/merge-patch+json" });
    expectCode(annotated, 200, "PATCH annotation");
    expect(annotated.body.metadata.generation).toBe(1);

    const scaled = structuredClone(annotated.body);
    scaled.spec.replicas = 3;
    const u2 = await s.call("PUT", `${DEPLOYS}/gen`, scaled);
    expectCode(u2, 200, "PUT spec change");
    expect(u2.body.metadata.generation).toBe(2);
    expect(u2.body.spec.replicas).toBe(3);

    const patched = await s.call("PATCH", `${DEPLOYS}/gen`, { spec: { replicas: 4 } }, { "Content-Type": "application/merge-patch+json" });
    expectCode(patched, 200, "PATCH spec change");
    expect(patched.body.metadata.generation).toBe(3);

    const st = structuredClone(patched.body);
    st.status = { observedGeneration: 3, replicas: 4 };
    const us = await s.call("PUT", `${DEPLOYS}/gen/status`, st);
    expectCode(us, 200, "PUT status");
    expect(us.body.metadata.generation).toBe(3);
    expect((await s.call("GET", `${DEPLOYS}/gen`)).body.metadata.generation).toBe(3);
  });
});

describe("status subresource", () => {
  test("PUT to a deployment ignores status", async () => {
    const c = await s.call("POST", DEPLOYS, { ...deploy("st1"), status: { replicas: 9, readyReplicas: 9 } });
    expectCode(c, 201, "POST deployment with status");
    expect(c.body.status?.replicas).toBeUndefined();
    const next = structuredClone(c.body);
    next.status = { replicas: 5, readyReplicas: 5 };
    next.metadata.labels.touched = "yes";
    const u = await s.call("PUT", `${DEPLOYS}/st1`, next);
    expectCode(u, 200, "PUT deployment with status");
    expect(u.body.metadata.labels.touched).toBe("yes");
    expect(u.body.status?.replicas).toBeUndefined();
    const g = await s.call("GET", `${DEPLOYS}/st1`);
    expect(g.body.status?.replicas).toBeUndefined();
    expect(g.body.metadata.labels.touched).toBe("yes");
  });

  test("PUT to /status changes only status", async () => {
    const c = await s.call("POST", DEPLOYS, deploy("st2"));
    expectCode(c, 201, "POST deployment");
    const next = structuredClone(c.body);
    next.status = { replicas: 2, readyReplicas: 1, observedGeneration: 1 };
    next.spec.replicas = 7;
    next.metadata.labels.sneaky = "yes";
    const u = await s.call("PUT", `${DEPLOYS}/st2/status`, next);
    expectCode(u, 200, "PUT deployment/status");
    expect(u.body.status).toEqual({ replicas: 2, readyReplicas: 1, observedGeneration: 1 });
    expect(u.body.spec.replicas).toBe(1);
    expect(u.body.metadata.labels.sneaky).toBeUndefined();
    expect(u.body.metadata.resourceVersion).not.toBe(c.body.metadata.resourceVersion);
    const g = await s.call("GET", `${DEPLOYS}/st2`);
    expect(g.body.status.replicas).toBe(2);
    expect(g.body.spec.replicas).toBe(1);
    expect(g.body.metadata.labels.sneaky).toBeUndefined();
    const gs = await s.call("GET", `${DEPLOYS}/st2/status`);
    expectCode(gs, 200, "GET deployment/status");
    expect(gs.body.kind).toBe("Deployment");
    expect(gs.body.status.replicas).toBe(2);
  });

  test("PUT to /status with a stale resourceVersion is a Conflict", async () => {
    const c = await s.call("POST", DEPLOYS, deploy("st3"));
    const fresh = structuredClone(c.body);
    fresh.status = { replicas: 1 };
    expectCode(await s.call("PUT", `${DEPLOYS}/st3/status`, fresh), 200, "PUT status");
    const stale = structuredClone(c.body);
    stale.status = { replicas: 2 };
    expectStatus(await s.call("PUT", `${DEPLOYS}/st3/status`, stale), 409, "Conflict", "PUT status with stale resourceVersion");
  });

  test("pod: PUT ignores status.phase, PUT /status sets it and leaves spec", async () => {
    const pods = `/api/v1/namespaces/${NS}/pods`;
    const c = await s.call("POST", pods, minimalBody(BUILTIN.find((d) => d.kind === "Pod")!, "stpod", NS));
    expectCode(c, 201, "POST pod");
    expect(c.body.status.phase).toBe("Pending");
    const main = structuredClone(c.body);
    main.status.phase = "Running";
    const u = await s.call("PUT", `${pods}/stpod`, main);
    expectCode(u, 200, "PUT pod");
    expect(u.body.status.phase).toBe("Pending");
    const st = structuredClone(u.body);
    st.status.phase = "Running";
    st.spec.activeDeadlineSeconds = 5;
    const us = await s.call("PUT", `${pods}/stpod/status`, st);
    expectCode(us, 200, "PUT pod/status");
    expect(us.body.status.phase).toBe("Running");
    expect(us.body.spec.activeDeadlineSeconds).toBeUndefined();
    const g = await s.call("GET", `${pods}/stpod`);
    expect(g.body.status.phase).toBe("Running");
    expect(g.body.spec.activeDeadlineSeconds).toBeUndefined();
  });

  test("PATCH to /status changes only status", async () => {
    const c = await s.call("POST", DEPLOYS, deploy("st4"));
    expectCode(c, 201, "POST deployment");
    const p = await s.call("PATCH", `${DEPLOYS}/st4/status`, { spec: { replicas: 5 }, status: { replicas: 3 } }, { "Content-Type": "application/merge-patch+json" });
    expectCode(p, 200, "PATCH deployment/status");
    expect(p.body.status.replicas).toBe(3);
    expect(p.body.spec.replicas).toBe(1);
  });

  test("a type without a status subresource has no /status", async () => {
    await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "nostatus" } });
    expectStatus(await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/nostatus/status`), 404, "NotFound", "GET configmap/status");
  });
});

describe("a create's answer", () => {
  // The answer is made from the text the create stored (resourceVersion added): it reads as a GET of the
  // object does, byte for byte, whatever the object's own strings hold.
  const cases: [string, string, Record<string, unknown>][] = [
    ["a ConfigMap whose data comes first and holds metadata-like text", "configmaps", {
      kind: "ConfigMap",
      data: { metadata: "\u0000kite:metadata", x: '"metadata":"\\u0000kite:metadata"', "y.metadata": "{}" },
      metadata: { name: "answer-cm", labels: { metadata: "x" }, annotations: { a: '"metadata":{}' } },
    }],
    ["a Pod (defaults and admission fill it)", "pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "answer-pod" }, spec: { containers: [{ name: "c", image: "nginx" }] } }],
    ["an object named from generateName, sent with resourceVersion and selfLink", "configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "answer-", resourceVersion: "", selfLink: "/x" } }],
  ];
  for (const [label, resource, body] of cases) {
    test(label, async () => {
      const c = await s.req(`/api/v1/namespaces/${NS}/${resource}`, { method: "POST", json: body });
      const created = await c.text();
      expect(c.status).toBe(201);
      const name = JSON.parse(created).metadata.name;
      const got = await s.req(`/api/v1/namespaces/${NS}/${resource}/${name}`);
      expect(created).toBe(await got.text());
      expect(Object.keys(JSON.parse(created).metadata).at(-1)).toBe("resourceVersion");
    });
  }
});
