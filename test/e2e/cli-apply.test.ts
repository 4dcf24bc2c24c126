// `kite apply -f` against a real apiserver: the lines a user sees, exit codes, and the objects on the server
// afterwards. Server-side apply is used when the server has it; otherwise kite falls back to client-side
// apply (the same path as --server-side=false), and the expectations follow.
import { randomValues } from "../helpers/random-values.ts";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { threeWayPatch } from "../../pkg/cli/threeway.ts";
import { parseYamlFast } from "../../pkg/yaml/fast.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";

setDefaultTimeout(30_000);

let s: TestServer;
let home: string;
let dir: string;
/** Whether the server does server-side apply (PATCH with application/apply-patch+yaml). */
let ssa = false;
const HAS_KUBECTL = !!Bun.which("kubectl");
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

type Run = { code: number; out: string; err: string };
async function run(cmd: string[], stdin?: string): Promise<Run> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
  delete env.KUBECONFIG;
  const p = Bun.spawn(cmd, { env, stdin: stdin ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
const kite = (args: string[], stdin?: string) => run([...KITE, ...args, `--kubeconfig=${s.kubeconfig}`], stdin);
const kubectl = (args: string[]) => run(["kubectl", `--kubeconfig=${s.kubeconfig}`, ...args]);
/** stderr without the one-time notice that the server lacks server-side apply. */
const errors = (r: Run) => r.err.split("\n").filter((l) => l && !l.startsWith("Warning: the server at")).join("\n");
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const get = async (path: string) => (await s.call("GET", path)).body;
/** What apply prints for a new object: serverside-applied, or created (client-side). */
const created = () => (ssa ? "serverside-applied" : "created");

beforeAll(async () => {
  s = await startServer();
  home = tempDir("kite-cli-home-");
  dir = tempDir("kite-cli-apply-");
  await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "ssa-probe" } });
  const probe = await s.req("/api/v1/namespaces/default/configmaps/ssa-probe?fieldManager=probe", {
    method: "PATCH", headers: { "Content-Type": "application/apply-patch+yaml" },
    body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa-probe" } }),
  });
  ssa = probe.status !== 415;
  await s.call("DELETE", "/api/v1/namespaces/default/configmaps/ssa-probe");
});
afterAll(() => s.stop());

describe("kite apply", () => {
  test("multi-document YAML: namespaces first, one line per object, objects on the server", async () => {
    const f = file("shop.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  labels: {app: shop}
data:
  color: blue
  size: large
---
# a comment-only document is skipped
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  namespace: shop
spec:
  replicas: 1
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        volumeMounts: [{name: cfg, mountPath: /etc/shop}]
      volumes:
      - name: cfg
        configMap: {name: settings, defaultMode: 0644}
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
`);
    const r = await kite(["apply", "-f", f]);
    expect(errors(r)).toBe("");
    expect(r.out).toBe(`namespace/shop ${created()}\nconfigmap/settings ${created()}\ndeployment.apps/shop ${created()}\n`);
    expect(r.code).toBe(0);
    const cm = await get("/api/v1/namespaces/shop/configmaps/settings");
    expect(cm.data).toEqual({ color: "blue", size: "large" });
    const dep = await get("/apis/apps/v1/namespaces/shop/deployments/shop");
    // YAML 1.1, as kubectl reads it: 0644 is octal.
    expect(dep.spec.template.spec.volumes[0].configMap.defaultMode).toBe(0o644);
    if (!ssa) expect(JSON.parse(cm.metadata.annotations[LAST_APPLIED])).toEqual({
      apiVersion: "v1", kind: "ConfigMap", data: { color: "blue", size: "large" },
      metadata: { annotations: {}, labels: { app: "shop" }, name: "settings", namespace: "shop" },
    });

    const again = await kite(["apply", "-f", f]);
    expect(again.out).toBe(ssa
      ? "namespace/shop serverside-applied\nconfigmap/settings serverside-applied\ndeployment.apps/shop serverside-applied\n"
      : "namespace/shop unchanged\nconfigmap/settings unchanged\ndeployment.apps/shop unchanged\n");
    expect(again.code).toBe(0);
  });

  test("client-side apply: create, unchanged, configured; removed fields go, other writers' fields stay", async () => {
    const manifest = (data: string, labels: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: csa
  labels: {${labels}}
data: {${data}}
`;
    const f = file("csa.yaml", manifest("a: '1', b: '2'", "app: csa, tier: back"));
    expect((await kite(["apply", "--server-side=false", "-f", f])).out).toBe("configmap/csa created\n");
    expect((await kite(["apply", "--server-side=false", "-f", f])).out).toBe("configmap/csa unchanged\n");
    // Someone else adds a label and a key.
    await s.req("/api/v1/namespaces/default/configmaps/csa", {
      method: "PATCH", headers: { "Content-Type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { labels: { extra: "kept" } }, data: { theirs: "x" } }),
    });
    writeFileSync(f, manifest("a: '10'", "app: csa"));
    const r = await kite(["apply", "--server-side=false", "-f", f]);
    expect(r).toEqual({ code: 0, out: "configmap/csa configured\n", err: "" });
    const cm = await get("/api/v1/namespaces/default/configmaps/csa");
    expect(cm.data).toEqual({ a: "10", theirs: "x" });
    expect(cm.metadata.labels).toEqual({ app: "csa", extra: "kept" });
    expect(cm.metadata.annotations[LAST_APPLIED]).toBe('{"apiVersion":"v1","data":{"a":"10"},"kind":"ConfigMap","metadata":{"annotations":{},"labels":{"app":"csa"},"name":"csa","namespace":"default"}}\n');
  });

  test("strategic merge for built-in types: list items by merge key, deletions of removed items", async () => {
    // A Deployment's pod template, since a Pod's containers cannot be added or removed after creation.
    const deploy = (containers: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: merge-me}
spec:
  selector: {matchLabels: {app: merge-me}}
  template:
    metadata: {labels: {app: merge-me}}
    spec:
      containers:
${containers}`;
    const f = file("deploy.yaml", deploy("      - {name: a, image: nginx:1.25}\n      - {name: b, image: busybox, env: [{name: X, value: '1'}]}\n"));
    expect((await kite(["apply", "--server-side=false", "-f", f])).out).toBe("deployment.apps/merge-me created\n");
    writeFileSync(f, deploy("      - {name: b, image: busybox:1.36, env: [{name: X, value: '1'}, {name: Z, value: '2'}]}\n"));
    expect((await kite(["apply", "--server-side=false", "-f", f])).out).toBe("deployment.apps/merge-me configured\n");
    const d = await get("/apis/apps/v1/namespaces/default/deployments/merge-me");
    const containers = d.spec.template.spec.containers;
    expect(containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(["b=busybox:1.36"]);
    expect(containers[0].env).toEqual([{ name: "X", value: "1" }, { name: "Z", value: "2" }]);
    expect((await kite(["apply", "--server-side=false", "-f", f])).out).toBe("deployment.apps/merge-me unchanged\n");
  });

  test.skipIf(!HAS_KUBECTL)("client-side apply interoperates with kubectl's (same annotation, same lines)", async () => {
    const manifest = (ns: string) => `apiVersion: v1
kind: Namespace
metadata: {name: ${ns}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: shared, namespace: ${ns}, labels: {owner: "me"}}
data: {k: v, html: "<b>&</b>"}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ${ns}}
spec:
  selector: {app: x}
  ports: [{port: 80}]
`;
    const kf = file("interop-k.yaml", manifest("interop-k")), mf = file("interop-m.yaml", manifest("interop-m"));
    const theirs = await kubectl(["apply", "--validate=false", "-f", kf]);
    const ours = await kite(["apply", "--server-side=false", "-f", mf]);
    expect(ours.out.replaceAll("interop-m", "X")).toBe(theirs.out.replaceAll("interop-k", "X"));
    expect(ours.code).toBe(theirs.code);
    // Each tool sees the other's last-applied configuration as its own: nothing to change.
    expect((await kite(["apply", "--server-side=false", "-f", kf])).out).toBe("namespace/interop-k unchanged\nconfigmap/shared unchanged\nservice/svc unchanged\n");
    expect((await kubectl(["apply", "--validate=false", "-f", mf])).out).toBe("namespace/interop-m unchanged\nconfigmap/shared unchanged\nservice/svc unchanged\n");
    const a = await get("/api/v1/namespaces/interop-k/configmaps/shared"), b = await get("/api/v1/namespaces/interop-m/configmaps/shared");
    expect(b.metadata.annotations[LAST_APPLIED]).toBe(a.metadata.annotations[LAST_APPLIED].replace("interop-k", "interop-m"));
  });

  test("JSON, kind: List, directories with -R, stdin and URLs", async () => {
    const sub = join(dir, "tree", "nested");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(dir, "tree", "one.json"), JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-json" } }));
    writeFileSync(join(dir, "tree", "README.md"), "not a manifest");
    writeFileSync(join(sub, "list.yaml"), `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: list-a}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: list-b}}
`);
    const flat = await kite(["apply", "-f", join(dir, "tree")]);
    expect(flat.out).toBe(`configmap/from-json ${created()}\n`);
    const deep = await kite(["apply", "-R", "-f", join(dir, "tree"), "-o", "name"]);
    expect(deep.out).toBe("configmap/list-a\nconfigmap/list-b\nconfigmap/from-json\n");
    const piped = await kite(["apply", "-f", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-stdin}\n");
    expect(piped.out).toBe(`configmap/from-stdin ${created()}\n`);
    const web = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-url}\n") });
    try {
      const url = await kite(["apply", "-f", `http://127.0.0.1:${web.port}/cm.yaml`]);
      expect(url.out).toBe(`configmap/from-url ${created()}\n`);
    } finally {
      web.stop(true);
    }
    for (const n of ["from-json", "list-a", "list-b", "from-stdin", "from-url"]) {
      expect((await s.call("GET", `/api/v1/namespaces/default/configmaps/${n}`)).status).toBe(200);
    }
  });

  test("a bad document is reported with its file and index; the valid ones still apply; exit 1", async () => {
    const f = file("mixed.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: good-one}
---
apiVersion: v1
metadata: {name: no-kind}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: broken
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: Not_Valid}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: good-two}
`);
    const r = await kite(["apply", "-f", f]);
    expect(r.code).toBe(1);
    expect(r.out).toBe(`configmap/good-one ${created()}\nconfigmap/good-two ${created()}\n`);
    const err = errors(r);
    expect(err).toContain(`error: "${f}" (document 2): Object 'Kind' is missing in`);
    expect(err).toContain(`error: "${f}" (document 3): error converting YAML to JSON:`);
    expect(err).toContain(`no matches for kind "Widget" in version "example.com/v1"\nensure CRDs are installed first`);
    expect(err).toContain(`"Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid"`);
    for (const n of ["good-one", "good-two"]) expect((await s.call("GET", `/api/v1/namespaces/default/configmaps/${n}`)).status).toBe(200);
  });

  test("errors from the server are printed as kubectl prints them", async () => {
    const f = file("nowhere.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lost, namespace: nowhere}\n");
    const r = await kite(["apply", "--server-side=false", "-f", f]);
    expect(r).toEqual({ code: 1, out: "", err: `Error from server (NotFound): error when creating "${f}": namespaces "nowhere" not found\n` });
    const missing = await kite(["apply", "-f", join(dir, "does-not-exist.yaml")]);
    expect(missing.code).toBe(1);
    expect(errors(missing)).toContain(`the path "${join(dir, "does-not-exist.yaml")}" does not exist`);
  });

  test("-n fills in namespaces and must agree with the objects' own", async () => {
    await s.call("POST", "/api/v1/namespaces", { metadata: { name: "team" } });
    const f = file("ns.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: in-team}\n");
    expect((await kite(["apply", "-f", f, "-n", "team"])).out).toBe(`configmap/in-team ${created()}\n`);
    expect((await s.call("GET", "/api/v1/namespaces/team/configmaps/in-team")).status).toBe(200);
    const g = file("ns2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: shop}\n");
    const r = await kite(["apply", "-f", g, "-n", "team"]);
    expect(r.code).toBe(1);
    expect(errors(r)).toBe(`error: the namespace from the provided object "shop" does not match the namespace "team". You must pass '--namespace=shop' to perform this operation.`);
  });

  test("--dry-run=server and --dry-run=client change nothing", async () => {
    const f = file("dry.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry}\n");
    const server = await kite(["apply", "-f", f, "--dry-run=server"]);
    expect(server.out).toBe(`configmap/dry ${created()} (server dry run)\n`);
    const client = await kite(["apply", "-f", f, "--dry-run=client", "--server-side=false"]);
    expect(client.out).toBe("configmap/dry created (dry run)\n");
    expect((await s.call("GET", "/api/v1/namespaces/default/configmaps/dry")).status).toBe(404);
    const refused = await kite(["apply", "-f", f, "--dry-run=client"]);
    expect(refused.code).toBe(2);
    expect(refused.err).toBe("Error: --dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)\n");
    expect((await kite(["apply", "-f", f, "--dry-run=maybe"])).code).toBe(2);
  });

  test("server-side apply records the field manager (kite, or --field-manager)", async () => {
    const f = file("fm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: managed}\ndata: {a: b}\n");
    const r = await kite(["apply", "-f", f, "--field-manager=ci-bot", "--force-conflicts"]);
    expect(r.code).toBe(0);
    const cm = await get("/api/v1/namespaces/default/configmaps/managed");
    if (ssa) {
      expect(r.out).toBe("configmap/managed serverside-applied\n");
      expect(cm.metadata.managedFields.map((m: any) => m.manager)).toContain("ci-bot");
    } else {
      expect(r.out).toBe("configmap/managed created\n");
      expect(r.err).toStartWith("Warning: the server at https://127.0.0.1:");
      expect(cm.data).toEqual({ a: "b" });
    }
    expect((await kite(["apply", "-f", f, "--server-side=false", "--force-conflicts"])).code).toBe(2);
  });

  test("the server-side apply request: content type, field manager, force, dry run; conflicts explained", async () => {
    // A stand-in server that does server-side apply, so this path is checked whatever the real one supports.
    const seen: string[] = [];
    const fake = Bun.serve({
      hostname: "127.0.0.1", port: 0, async fetch(req) {
        const u = new URL(req.url);
        if (u.pathname === "/api") return Response.json({ kind: "APIVersions", versions: ["v1"] });
        if (u.pathname === "/apis") return Response.json({ kind: "APIGroupList", groups: [] });
        if (u.pathname === "/api/v1") {
          return Response.json({ kind: "APIResourceList", groupVersion: "v1", resources: [
            { name: "configmaps", singularName: "configmap", namespaced: true, kind: "ConfigMap", verbs: ["get", "patch"] },
            { name: "namespaces", singularName: "namespace", namespaced: false, kind: "Namespace", verbs: ["get", "patch"] },
          ] });
        }
        const body = await req.text();
        seen.push(`${req.method} ${u.pathname}${u.search} ${req.headers.get("content-type")} ${body}`);
        if (u.pathname.endsWith("/taken") && !u.searchParams.has("force")) {
          return Response.json({ kind: "Status", status: "Failure", reason: "Conflict", code: 409, message: 'Apply failed with 1 conflict: conflict with "other" using v1: .data.a' }, { status: 409 });
        }
        return new Response(body, { headers: { "Content-Type": "application/json" } });
      },
    });
    try {
      const f = file("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mine}\ndata: {a: b}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: taken}\n");
      const server = `--server=http://127.0.0.1:${fake.port}`;
      const r = await run([...KITE, "apply", "-f", f, server]);
      expect(r.out).toBe("namespace/n1 serverside-applied\nconfigmap/mine serverside-applied\n");
      expect(r.err).toStartWith('error: Apply failed with 1 conflict: conflict with "other" using v1: .data.a\nPlease review the fields above--they currently have other managers.');
      expect(r.code).toBe(1);
      expect(seen[0]).toBe('PATCH /api/v1/namespaces/n1?fieldManager=kite application/apply-patch+yaml {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n1"}}');
      expect(seen[1]).toBe('PATCH /api/v1/namespaces/default/configmaps/mine?fieldManager=kite application/apply-patch+yaml {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mine","namespace":"default"},"data":{"a":"b"}}');
      seen.length = 0;
      const forced = await run([...KITE, "apply", "-f", f, server, "--force-conflicts", "--field-manager=ci", "--dry-run=server", "-n", "team"]);
      expect(forced).toEqual({ code: 0, out: "namespace/n1 serverside-applied (server dry run)\nconfigmap/mine serverside-applied (server dry run)\nconfigmap/taken serverside-applied (server dry run)\n", err: "" });
      expect(seen.every((l) => l.includes("?dryRun=All&fieldManager=ci&force=true "))).toBe(true);
      // after the namespace, the objects in it go in parallel: in any order
      expect(seen[0]).toStartWith("PATCH /api/v1/namespaces/n1?");
      expect(seen.some((l) => l.startsWith("PATCH /api/v1/namespaces/team/configmaps/mine?"))).toBe(true);
    } finally {
      fake.stop(true);
    }
  });

  test("hundreds of objects apply in parallel and print in manifest order", async () => {
    const docs = Array.from({ length: 300 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bulk-${i}, namespace: bulk}\ndata: {i: "${i}"}\n`);
    const f = file("bulk.yaml", ["apiVersion: v1\nkind: Namespace\nmetadata: {name: bulk}\n", ...docs].join("---\n"));
    const t0 = performance.now();
    const r = await kite(["apply", "-f", f]);
    const ms = performance.now() - t0;
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n")).toEqual([`namespace/bulk ${created()}`, ...docs.map((_, i) => `configmap/bulk-${i} ${created()}`)]);
    const list = await get("/api/v1/namespaces/bulk/configmaps");
    expect(list.items.filter((o: any) => o.metadata.name.startsWith("bulk-")).length).toBe(300); // and the server's kube-root-ca.crt
    expect(ms).toBeLessThan(20_000);
  });

  test("usage errors and --help", async () => {
    const none = await kite(["apply"]);
    expect(none.code).toBe(1);
    expect(none.err).toStartWith("error: must specify -f");
    expect((await kite(["apply", "-f", "x.yaml", "--bogus"])).code).toBe(2);
    const help = await run([...KITE, "apply", "--help"]);
    expect(help.code).toBe(0);
    for (const f of ["--filename", "--recursive", "--server-side", "--field-manager", "--force-conflicts", "--dry-run", "--kubeconfig"]) expect(help.out).toContain(f);
  });
});

describe("client-side apply patches, as kubectl computes them", () => {
  test("JSON merge patch for types kubectl does not know: lists are atomic, dropped keys become null", () => {
    const original = { a: 1, b: 2, l: [1, 2], m: { x: 1, y: 2 } };
    const modified = { a: 1, c: 3, l: [1], m: { x: 1 } };
    const current = { a: 1, b: 2, d: 4, l: [1, 2], m: { x: 1, y: 2, z: 3 } };
    expect(threeWayPatch(original, modified, current, "Widget", false)).toEqual({ b: null, c: 3, l: [1], m: { y: null } });
    expect(threeWayPatch(modified, modified, { ...modified, extra: true }, "Widget", false)).toEqual({});
  });

  test("strategic merge patch: merge keys, $patch: delete, primitive lists, element order", () => {
    const original = { metadata: { finalizers: ["a", "b"] }, spec: { containers: [{ name: "x", image: "1" }, { name: "y", image: "1" }] } };
    const modified = { metadata: { finalizers: ["a", "c"] }, spec: { containers: [{ name: "y", image: "2" }] } };
    const current = { metadata: { finalizers: ["a", "b", "z"] }, spec: { containers: [{ name: "x", image: "1", imagePullPolicy: "Always" }, { name: "y", image: "1" }] } };
    expect(threeWayPatch(original, modified, current, "Pod", true)).toEqual({
      metadata: { "$deleteFromPrimitiveList/finalizers": ["b"], "$setElementOrder/finalizers": ["a", "c"], finalizers: ["c"] },
      spec: { "$setElementOrder/containers": [{ name: "y" }], containers: [{ name: "y", image: "2" }, { name: "x", $patch: "delete" }] },
    });
  });
});

describe("the fast manifest reader agrees with the full YAML parser (or leaves the text to it)", () => {
  const full = async (t: string) => {
    const YAML = (await import("yaml")).default;
    return YAML.parseAllDocuments(t, { version: "1.1", merge: true, customTags: (x: any[]) => x.filter((y) => y.tag !== "tag:yaml.org,2002:timestamp") } as never)
      .map((d: any) => { if (d.errors.length) throw d.errors[0]; return d.toJS(); });
  };
  const check = async (text: string) => {
    const fast = parseYamlFast(text);
    if (fast === undefined) return "fallback";
    expect(JSON.stringify(fast)).toBe(JSON.stringify(await full(text)));
    return "fast";
  };

  test("hand-picked documents", async () => {
    const fastOnes = [
      "a: 1\n---\n", "---\na: 1\n---\n# c\n---\nb: 1", "# c\n---\na: 1", "a: 1\n...\n---\nb: 2", "\n\n", "---\n",
      "a: |\n  x\n\n  y\n\n\nb: 1", "a: |-\n  x\n\n", "a: |+\n  x\n\n\nb: 2", "- a\n- b: 1\n  c: 2\n-\n- - x\n  - y",
      "k:\n- 1\n- 2\nj: 3", "a: 'it''s'\nb: \"x\\ty\\u00e9\"", "a: {b: c, d: [1, 2, {e: f}], g: }\nh: [ ]", "a: b # c\n#x\nd: 'e' # f",
      "m: 0644\nnine: 09\nh: 0x1F\nb: 0b11\nf: 1.5\ne: 1e3\nv: 1.2.3\ns: -1\nt: +2\nu: 1_000\ndot: .5\nyes_: y\non_: on",
      "ts: 2020-01-01T00:00:00Z\nd: 2020-01-01", "url: http://x.y/z?a=b#frag\nimg: nginx:1.25\ncolor: #fff\nq: 'a # b'",
      "a: |\n  # not a comment\n    indented\n  back\nb: 2", "a:    spaced   value   \nb:    # only comment\n  c: 1", "a:\n\n  b: 1\n\n\nc: 2\n",
      "data:\n  script.sh: |\n    #!/bin/sh\n    echo \"hi\"\n\n    exit 0\n  other: x\n",
    ];
    for (const t of fastOnes) expect(await check(t)).toBe("fast");
    const slowOnes = ["a: &x 1\nb: *x", "a: !!str 1", "a: >\n  folded", "? k\n: v", "a: 'multi\n  line'", "a: [1, 2", "a:\tb", "a: b: c", "a: 1\na: 2", "<<: {a: 1}", "a:\n  one\n  two"];
    for (const t of slowOnes) expect(await check(t)).toBe("fallback");
  });

  test("random objects written in several YAML styles", async () => {
    const YAML = (await import("yaml")).default;
    const { rnd, value: gen } = randomValues(42, ["a", "web", "nginx:1.25", "0644", "1.5", "yes", "No", "~", "", "x y", "a: b", "#c", "it's", 'say "hi"', "- dash", "line\nbreak\n", "ünïcödé", "123", "-7", "http://h/p#f", "{x}", "[y]", "true", "null", " pad "]);
    const counts = { fast: 0, fallback: 0 };
    for (let i = 0; i < 300; i++) {
      const docs = Array.from({ length: 1 + rnd(3) }, () => ({ kind: "Thing", spec: gen(0) }));
      const opts = [{ version: "1.1" }, { version: "1.1", indentSeq: false }, { version: "1.1", collectionStyle: "flow" }, { version: "1.1", indentSeq: false, indent: 4 }][rnd(4)];
      const text = docs.map((d) => YAML.stringify(d, opts as never)).join("---\n");
      counts[await check(text) as "fast"]++;
    }
    expect(counts.fast).toBeGreaterThan(150);
  });
});
