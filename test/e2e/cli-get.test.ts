// `kite get` against a real apiserver: what a user sees (stdout, stderr, exit codes), compared line by line
// with stock kubectl for the same objects (AGE values aside), plus kubeconfig loading and discovery caching.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";

setDefaultTimeout(30_000);

let s: TestServer;
let home: string;
const HAS_KUBECTL = !!Bun.which("kubectl");

type Run = { code: number; out: string; err: string };

async function run(cmd: string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<Run> {
  const e: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
  delete e.KUBECONFIG;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete e[k]; else e[k] = v;
  const p = Bun.spawn(cmd, { env: e, stdin: stdin ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
/** kite with the test server's kubeconfig. */
const kite = (args: string[], env: Record<string, string | undefined> = {}) => run([...KITE, ...args, `--kubeconfig=${s.kubeconfig}`], env);
/** kite with no --kubeconfig (config from the environment). */
const kiteBare = (args: string[], env: Record<string, string | undefined> = {}) => run([...KITE, ...args], env);
const kubectl = (args: string[]) => run(["kubectl", `--kubeconfig=${s.kubeconfig}`, ...args]);

/** AGE values differ between two runs; everything else (columns, widths, rows) must not. */
const AGE = /(?<![\w.-])(?:\d+[smhdy])+(?![\w.-])/g;
const normalize = (t: string) => t.replace(AGE, (m) => "A".repeat(m.length));

/** Runs kite and kubectl with the same arguments and expects the same output (retrying if an age changed width). */
async function sameAsKubectl(args: string[]) {
  let a: Run = { code: 0, out: "", err: "" }, b: Run = a;
  for (let i = 0; i < 3; i++) {
    a = await kite(args);
    b = await kubectl(args);
    if (normalize(a.out) === normalize(b.out) && a.err === b.err && a.code === b.code) break;
  }
  expect(normalize(a.out)).toBe(normalize(b.out));
  expect(a.err).toBe(b.err);
  expect(a.code).toBe(b.code);
  return a;
}

const pod = (name: string, labels: Record<string, string>, image = "nginx:1.25") => ({
  apiVersion: "v1", kind: "Pod", metadata: { name, labels },
  spec: { containers: [{ name: "main", image, ports: [{ containerPort: 80 }] }] },
});

beforeAll(async () => {
  s = await startServer();
  home = tempDir("kite-cli-home-");
  const post = async (path: string, body: unknown) => {
    const r = await s.call("POST", path, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  for (const ns of ["demo", "other", "chunk", "watched"]) {
    await post("/api/v1/namespaces", { metadata: { name: ns } });
    // The server puts kube-root-ca.crt in every namespace: the lists below show it, as kubectl's do.
    for (let i = 0; (await s.call("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status !== 200; i++) {
      if (i > 200) throw new Error(`no kube-root-ca.crt in ${ns}`);
      await Bun.sleep(25);
    }
  }
  await post("/api/v1/namespaces/demo/pods", pod("web-a", { app: "web", tier: "front" }));
  await post("/api/v1/namespaces/demo/pods", pod("web-b", { app: "web", tier: "front" }, "nginx:1.27"));
  await post("/api/v1/namespaces/demo/pods", pod("db-a", { app: "db" }, "postgres:16"));
  await post("/api/v1/namespaces/other/pods", pod("lonely", { app: "lonely" }));
  await post("/api/v1/namespaces/demo/services", { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] } });
  await post("/api/v1/namespaces/demo/configmaps", { metadata: { name: "cfg", labels: { app: "web" } }, data: { greeting: "hello", multi: "a\nb\n" } });
  await post("/api/v1/namespaces/demo/configmaps", { metadata: { name: "other-cfg" }, data: { x: "y" } });
  await post("/apis/apps/v1/namespaces/demo/deployments", {
    metadata: { name: "web" },
    spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "main", image: "nginx:1.25" }] } } },
  });
  for (let i = 0; i < 12; i++) await post("/api/v1/namespaces/chunk/configmaps", { metadata: { name: `cm-${String(i).padStart(2, "0")}` } });
});
afterAll(() => s.stop());

describe("kite get prints what kubectl prints", () => {
  const cases: string[][] = [
    ["pods"],
    ["pods", "-n", "demo"],
    ["pods", "-A"],
    ["pods", "-A", "-o", "wide"],
    ["pods", "-n", "demo", "--show-labels"],
    ["pods", "-n", "demo", "-l", "app=web"],
    ["pods", "-n", "demo", "-l", "app in (web,db),tier!=front"],
    ["pods", "-n", "demo", "--field-selector", "metadata.name=db-a"],
    ["pods", "-n", "demo", "--sort-by=.metadata.name"],
    ["pods", "-n", "demo", "--no-headers"],
    ["pods", "-n", "demo", "-L", "app,tier"],
    ["pods,services", "-n", "demo"],
    ["all", "-n", "demo"],
    ["all", "-A"],
    ["svc", "web", "-n", "demo"],
    ["svc/web", "cm/cfg", "-n", "demo"],
    ["configmap", "cfg", "other-cfg", "-n", "demo"],
    ["deployments.apps", "-n", "demo"],
    ["deploy.v1.apps", "web", "-n", "demo", "-o", "wide"],
    ["ns"],
    ["ns,cm", "-A"],
    ["cm,ns", "-A"],
    ["pv"],
    ["pv", "-A"],
    ["cm", "-n", "chunk", "--chunk-size=5"],
    ["cm", "cfg", "-n", "demo", "-o", "yaml"],
    ["cm", "cfg", "-n", "demo", "-o", "json"],
    ["cm", "-n", "demo", "-o", "yaml"],
    ["pods", "-n", "demo", "-o", "json"],
    ["deploy", "-n", "demo", "-o", "yaml"],
    ["cm", "-n", "nothing-here", "-o", "yaml"],
    ["pods,svc", "-n", "demo", "-o", "name"],
    ["all", "-n", "demo", "-o", "name"],
    ["pods", "-n", "demo", "-o", "jsonpath={.items[*].metadata.name}"],
    ["pods", "-n", "demo", "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\t\"}{.spec.containers[0].image}{\"\\n\"}{end}"],
    ["pods", "-n", "demo", "-o", "jsonpath={.items[?(@.metadata.labels.app==\"db\")].metadata.name}"],
    ["cm", "cfg", "-n", "demo", "-o", "jsonpath={.data}"],
    ["pods", "-n", "demo", "-o", "custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[*].image,APP:.metadata.labels.app,MISSING:.spec.nope"],
    ["pods", "web-a", "nope", "-n", "demo"],
    ["cm", "nope", "-n", "demo", "-o", "yaml"],
    ["pods", "nope", "-n", "demo", "--ignore-not-found"],
    ["widgets"],
  ];
  for (const args of cases) {
    test.skipIf(!HAS_KUBECTL)(`get ${args.join(" ")}`, () => sameAsKubectl(["get", ...args]));
  }
});

describe("kite get on its own", () => {
  test("an empty namespace says so on stderr, as kubectl, and exits 0", async () => {
    const r = await kite(["get", "pods"]);
    expect(r).toEqual({ code: 0, out: "", err: "No resources found in default namespace.\n" });
    const a = await kite(["get", "pods", "-A", "-l", "app=none"]);
    expect(a).toEqual({ code: 0, out: "", err: "No resources found\n" });
  });

  test("a table has upper-case headers, 3-space padding, NAMESPACE first under -A", async () => {
    const r = await kite(["get", "pods", "-A", "-l", "app in (web,lonely)"]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAMESPACE   NAME     READY   STATUS +RESTARTS   AGE$|^NAMESPACE   NAME     AGE$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join("/"))).toEqual(["demo/web-a", "demo/web-b", "other/lonely"]);
    // Every column starts where its header starts.
    const starts = (l: string) => [...l.matchAll(/(?:^|(?<=\s))\S/g)].map((m) => m.index);
    for (const l of lines.slice(1)) expect(starts(l).slice(0, 2)).toEqual(starts(lines[0]).slice(0, 2));
  });

  test("type names resolve by plural, singular, short name, kind and group", async () => {
    const want = (await kite(["get", "configmaps", "-n", "demo", "-o", "name"])).out;
    expect(want).toBe("configmap/cfg\nconfigmap/kube-root-ca.crt\nconfigmap/other-cfg\n");
    for (const t of ["configmap", "cm", "ConfigMap", "CONFIGMAPS"]) {
      expect((await kite(["get", t, "-n", "demo", "-o", "name"])).out).toBe(want);
    }
    expect((await kite(["get", "deployments.apps", "-n", "demo", "-o", "name"])).out).toBe("deployment.apps/web\n");
    expect((await kite(["get", "deployments.v1.apps", "-n", "demo", "-o", "name"])).out).toBe("deployment.apps/web\n");
    expect((await kite(["get", "deploy", "-n", "demo", "-o", "name"])).out).toBe("deployment.apps/web\n");
    const bad = await kite(["get", "gizmos"]);
    expect(bad).toEqual({ code: 1, out: "", err: 'error: the server doesn\'t have a resource type "gizmos"\n' });
  });

  test("chunked lists give the same rows as one big list", async () => {
    const whole = await kite(["get", "cm", "-n", "chunk", "-o", "name", "--chunk-size=0"]);
    const paged = await kite(["get", "cm", "-n", "chunk", "-o", "name", "--chunk-size=5"]);
    expect(paged.out).toBe(whole.out);
    expect(paged.out.trim().split("\n")).toHaveLength(13); // 12 and kube-root-ca.crt
  });

  test("-o yaml of one named object prints the object; of a list, a List", async () => {
    const one = await kite(["get", "cm", "cfg", "-n", "demo", "-o", "yaml"]);
    expect(one.out).toStartWith("apiVersion: v1\ndata:\n  greeting: hello\n  multi: |\n    a\n    b\nkind: ConfigMap\n");
    const list = await kite(["get", "cm", "-n", "demo", "-o", "json"]);
    const doc = JSON.parse(list.out);
    expect(doc.kind).toBe("List");
    expect(doc.items.map((i: any) => `${i.kind}/${i.metadata.name}`)).toEqual(["ConfigMap/cfg", "ConfigMap/kube-root-ca.crt", "ConfigMap/other-cfg"]);
    expect(list.out).toStartWith('{\n    "apiVersion": "v1",\n    "items": [\n');
  });

  test("--sort-by orders rows by a JSONPath value", async () => {
    const r = await kite(["get", "pods", "-n", "demo", "--sort-by={.spec.containers[0].image}", "-o", "name"]);
    expect(r.out).toBe("pod/web-a\npod/web-b\npod/db-a\n");
  });

  test("-w prints the list, then a row per change; --watch-only only the changes", async () => {
    const start = (extra: string[]) => Bun.spawn([...KITE, "get", "cm", "-n", "watched", ...extra, `--kubeconfig=${s.kubeconfig}`], { env: { ...process.env, HOME: home }, stdout: "pipe", stderr: "pipe" });
    await s.call("POST", "/api/v1/namespaces/watched/configmaps", { metadata: { name: "before" } });
    const w = start(["-w"]);
    const wo = start(["--watch-only", "-o", "name"]);
    const reader = w.stdout.getReader(), reader2 = wo.stdout.getReader();
    const readUntil = async (r: { read(): Promise<{ value?: Uint8Array; done: boolean }> }, want: RegExp, acc = { text: "" }) => {
      const deadline = Date.now() + 10_000;
      while (!want.test(acc.text)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${want}; got ${JSON.stringify(acc.text)}`);
        const { value, done } = await r.read();
        if (done) break;
        acc.text += new TextDecoder().decode(value);
      }
      return acc.text;
    };
    const acc = { text: "" }, acc2 = { text: "" };
    expect(await readUntil(reader, /before/, acc)).toMatch(/^NAME +(DATA +)?AGE\nbefore +/);
    await Bun.sleep(300); // let --watch-only start its watch
    await s.call("POST", "/api/v1/namespaces/watched/configmaps", { metadata: { name: "after-a-while" } });
    expect(await readUntil(reader, /after-a-while/, acc)).toMatch(/\nafter-a-while +/);
    expect(await readUntil(reader2, /after-a-while/, acc2)).toBe("configmap/after-a-while\n");
    w.kill();
    wo.kill();
    await Promise.all([w.exited, wo.exited]);
  });

  test("watching two types at once is refused", async () => {
    const r = await kite(["get", "pods,cm", "-w"]);
    expect(r).toEqual({ code: 1, out: "", err: "error: you may only specify a single resource type\n" });
  });

  test("bad flags and bad output formats exit 2 with one line", async () => {
    const a = await kite(["get", "pods", "--bogus"]);
    expect(a.code).toBe(2);
    expect(a.err).toBe("Error: unknown flag: --bogus (see 'kite get --help')\n");
    const b = await kite(["get", "pods", "-o", "xml"]);
    expect(b.code).toBe(2);
    expect(b.err).toStartWith('Error: unable to match a printer suitable for the output format "xml"');
    const c = await kite(["get", "pods", "--chunk-size=lots"]);
    expect(c.code).toBe(2);
    expect((await kite(["get"])).code).toBe(1);
  });

  test("short flags combine as in kubectl (-owide, -Ao name, -n=demo)", async () => {
    expect((await kite(["get", "pods", "-Aoname", "-l", "app=lonely"])).out).toBe("pod/lonely\n");
    expect((await kite(["get", "pods", "-n=demo", "-oname", "-l", "app=db"])).out).toBe("pod/db-a\n");
  });

  test("--help tells what the command does and lists its flags", async () => {
    const r = await run([...KITE, "get", "--help"]);
    expect(r.code).toBe(0);
    for (const f of ["--all-namespaces", "--selector", "--field-selector", "--output", "--watch", "--watch-only", "--chunk-size", "--show-labels", "--sort-by", "--kubeconfig", "--context", "--namespace", "--server", "--token", "--insecure-skip-tls-verify"]) {
      expect(r.out).toContain(f);
    }
  });
});

describe("client configuration", () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir("kite-cli-kc-");
    copyFileSync(join(s.dataDir, "pki", "ca.crt"), join(dir, "ca.crt"));
    // First file: current context c1 (namespace demo), cluster "main" with a CA file path relative to the file.
    writeFileSync(join(dir, "k1.yaml"), `apiVersion: v1
kind: Config
current-context: c1
clusters:
- name: main
  cluster:
    server: ${s.url}
    certificate-authority: ca.crt
users:
- name: u
  user:
    token: secret
contexts:
- name: c1
  context: {cluster: main, user: u, namespace: demo}
`);
    // Second file: loses every conflict (current-context, cluster "main"), adds context c2.
    writeFileSync(join(dir, "k2.yaml"), `apiVersion: v1
kind: Config
current-context: c2
clusters:
- name: main
  cluster: {server: "https://127.0.0.1:1"}
- name: dead
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: other}
contexts:
- name: c2
  context: {cluster: main, user: u, namespace: other}
- name: broken
  context: {cluster: dead, user: u}
`);
  });

  test("$KUBECONFIG files merge with the first value of each key winning", async () => {
    const env = { KUBECONFIG: `${join(dir, "k1.yaml")}:${join(dir, "missing.yaml")}:${join(dir, "k2.yaml")}` };
    expect((await kiteBare(["get", "pods", "-o", "name", "-l", "app=db"], env)).out).toBe("pod/db-a\n");
    // Context c2 comes from the second file; its cluster "main" still comes from the first.
    expect((await kiteBare(["get", "pods", "-o", "name", "--context", "c2"], env)).out).toBe("pod/lonely\n");
    expect((await kiteBare(["get", "pods", "-o", "name", "-n", "other"], env)).out).toBe("pod/lonely\n");
    const none = await kiteBare(["get", "pods", "--context", "nope"], env);
    expect(none).toEqual({ code: 1, out: "", err: 'error: context "nope" does not exist\n' });
  });

  test("the other order picks the other file's values", async () => {
    const env = { KUBECONFIG: `${join(dir, "k2.yaml")}:${join(dir, "k1.yaml")}` };
    const r = await kiteBare(["get", "pods"], env);
    expect(r.code).toBe(1);
    expect(r.err).toContain("The connection to the server 127.0.0.1:1 was refused");
    expect(r.err).toContain("https://127.0.0.1:1");
    expect(r.err).toContain(join(dir, "k2.yaml"));
  });

  test("connection failures name the server and the kubeconfig", async () => {
    const r = await kiteBare(["get", "pods", "--kubeconfig", join(dir, "k2.yaml"), "--context", "broken"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port? (server https://127.0.0.1:1, from kubeconfig ${join(dir, "k2.yaml")})\n`);
    const missing = await kiteBare(["get", "pods", "--kubeconfig", join(dir, "nope.yaml")]);
    expect(missing).toEqual({ code: 1, out: "", err: `error: stat ${join(dir, "nope.yaml")}: no such file or directory\n` });
  });

  test("~/.kube/config first, then ~/.kite/kubeconfig.yaml", async () => {
    const h = tempDir("kite-cli-h-");
    const none = await kiteBare(["get", "pods"], { HOME: h });
    expect(none.code).toBe(1);
    expect(none.err).toContain("no configuration found");
    mkdirSync(join(h, ".kite"));
    writeFileSync(join(h, ".kite", "kubeconfig.yaml"), readFileSync(s.kubeconfig));
    expect((await kiteBare(["get", "pods", "-n", "other", "-o", "name"], { HOME: h })).out).toBe("pod/lonely\n");
    mkdirSync(join(h, ".kube"));
    writeFileSync(join(h, ".kube", "config"), readFileSync(join(dir, "k2.yaml")).toString().replace("current-context: c2", "current-context: broken"));
    const r = await kiteBare(["get", "pods"], { HOME: h });
    expect(r.err).toContain(join(h, ".kube", "config"));
  });

  test("kubectl's global flags work without any kubeconfig", async () => {
    const h = tempDir("kite-cli-h-");
    const ca = join(dir, "ca.crt");
    const ok = await kiteBare(["get", "pods", "-o", "name", "--server", s.url, "--certificate-authority", ca, "--token", "x", "-n", "other"], { HOME: h });
    expect(ok).toEqual({ code: 0, out: "pod/lonely\n", err: "" });
    const insecure = await kiteBare(["get", "pods", "-o", "name", `--server=${s.url}`, "--insecure-skip-tls-verify", "-n", "other"], { HOME: h });
    expect(insecure.out).toBe("pod/lonely\n");
    const untrusted = await kiteBare(["get", "pods", `--server=${s.url}`], { HOME: h });
    expect(untrusted.code).toBe(1);
    expect(untrusted.err).toStartWith("Unable to connect to the server 127.0.0.1:");
    expect(untrusted.err).toContain("the --server flag");
  });

  test("client certificates load from data and from files", async () => {
    const pki = join(s.dataDir, "pki");
    const b64 = (f: string) => readFileSync(join(pki, f)).toString("base64");
    const cfg = (user: string) => `apiVersion: v1
kind: Config
current-context: c
clusters: [{name: k, cluster: {server: "${s.url}", certificate-authority-data: ${b64("ca.crt")}}}]
users: [{name: u, user: ${user}}]
contexts: [{name: c, context: {cluster: k, user: u, namespace: other}}]
`;
    writeFileSync(join(dir, "data.yaml"), cfg(`{client-certificate-data: ${b64("apiserver.crt")}, client-key-data: ${b64("apiserver.key")}}`));
    writeFileSync(join(dir, "files.yaml"), cfg(`{client-certificate: ${join(pki, "apiserver.crt")}, client-key: ${join(pki, "apiserver.key")}}`));
    for (const f of ["data.yaml", "files.yaml"]) {
      expect(await kiteBare(["get", "pods", "-o", "name", "--kubeconfig", join(dir, f)])).toEqual({ code: 0, out: "pod/lonely\n", err: "" });
    }
    const bad = await kiteBare(["get", "pods", "--kubeconfig", join(dir, "files.yaml"), "--client-key", join(dir, "nope.key")]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("unable to read client key");
  });

  test("discovery is cached per server and refreshed when a name is unknown", async () => {
    const h = tempDir("kite-cli-h-");
    const port = new URL(s.url).port;
    const file = join(h, ".kite", "cache", "discovery", `127.0.0.1_${port}`, "resources.json");
    expect((await kite(["get", "cm", "-n", "demo", "-o", "name"], { HOME: h })).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    const cached = JSON.parse(readFileSync(file, "utf8"));
    expect(cached.resources.some((r: any) => r.resource === "configmaps" && r.shortNames.includes("cm"))).toBe(true);
    // A cache that lacks a type is refreshed on the miss; one that has a type the server lacks is too.
    cached.resources = cached.resources.filter((r: any) => r.resource !== "configmaps");
    cached.resources.push({ group: "", version: "v1", resource: "gadgets", kind: "Gadget", singular: "gadget", shortNames: [], categories: [], namespaced: true, verbs: ["list"], preferred: true });
    writeFileSync(file, JSON.stringify(cached));
    expect((await kite(["get", "cm", "-n", "demo", "-o", "name"], { HOME: h })).out).toBe("configmap/cfg\nconfigmap/kube-root-ca.crt\nconfigmap/other-cfg\n");
    const stale = JSON.parse(readFileSync(file, "utf8"));
    expect(stale.resources.some((r: any) => r.resource === "configmaps")).toBe(true);
    stale.resources.push({ group: "", version: "v1", resource: "gadgets", kind: "Gadget", singular: "gadget", shortNames: [], categories: [], namespaced: true, verbs: ["list"], preferred: true });
    writeFileSync(file, JSON.stringify(stale));
    const gone = await kite(["get", "gadgets"], { HOME: h });
    expect(gone).toEqual({ code: 1, out: "", err: 'error: the server doesn\'t have a resource type "gadgets"\n' });
  });
});
