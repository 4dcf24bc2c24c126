// The scale subresource from real clients: `kubectl scale` (with and without --current-replicas) on every
// kubectl build found (/usr/bin/kubectl 1.20 and kubectl.1.27 … 1.33), `kubectl autoscale`, the Python
// client's and the JS client's scale calls, and `kubectl get cs`.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);

const SDK_BIN = "/usr/lib/google-cloud-sdk/bin";
const BUILDS = [
  "/usr/bin/kubectl",
  ...(existsSync(SDK_BIN) ? readdirSync(SDK_BIN).filter((f) => /^kubectl\.1\.\d+$/.test(f)).sort((a, b) => Number(a.split(".")[2]) - Number(b.split(".")[2])).map((f) => join(SDK_BIN, f)) : []),
];
const label = (bin: string) => (bin === "/usr/bin/kubectl" ? "kubectl 1.20" : bin.split("/").pop()!);

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

async function run(cmd: string[], env?: Record<string, string>) {
  const p = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err, text: `\`${cmd.join(" ")}\` exited ${code}\nstdout: ${out}\nstderr: ${err}` };
}

const kubectl = (bin: string, ns: string, ...args: string[]) => run([bin, `--kubeconfig=${s.kubeconfig}`, "-n", ns, ...args]);

async function post(path: string, body: unknown) {
  const r = await s.call("POST", path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
}

const tmpl = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: "c", image: "nginx:1.21" }] } });
const WORKLOADS: Record<string, (name: string) => [string, unknown]> = {
  deploy: (name) => ["/apis/apps/v1/namespaces/NS/deployments", { metadata: { name }, spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: tmpl(name) } }],
  rs: (name) => ["/apis/apps/v1/namespaces/NS/replicasets", { metadata: { name }, spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: tmpl(name) } }],
  sts: (name) => ["/apis/apps/v1/namespaces/NS/statefulsets", { metadata: { name }, spec: { replicas: 2, serviceName: name, selector: { matchLabels: { app: name } }, template: tmpl(name) } }],
  rc: (name) => ["/api/v1/namespaces/NS/replicationcontrollers", { metadata: { name }, spec: { replicas: 2, selector: { app: name }, template: tmpl(name) } }],
};
const PATHS: Record<string, string> = {
  deploy: "/apis/apps/v1/namespaces/NS/deployments", rs: "/apis/apps/v1/namespaces/NS/replicasets",
  sts: "/apis/apps/v1/namespaces/NS/statefulsets", rc: "/api/v1/namespaces/NS/replicationcontrollers",
};
const KINDS: Record<string, string> = { deploy: "deployment.apps", rs: "replicaset.apps", sts: "statefulset.apps", rc: "replicationcontroller" };

async function make(ns: string, kind: string, name: string) {
  const [path, body] = WORKLOADS[kind](name);
  await post(path.replace("NS", ns), body);
}
const replicas = async (ns: string, kind: string, name: string) => (await s.call("GET", `${PATHS[kind].replace("NS", ns)}/${name}`)).body.spec.replicas;

describe.each(BUILDS.map((b) => [label(b), b]))("%s", (name, bin) => {
  const ns = `scale-${name.replace(/[^a-z0-9]/g, "")}`;

  test("kubectl scale deploy, rs, sts and rc", async () => {
    await post("/api/v1/namespaces", { metadata: { name: ns } });
    for (const kind of Object.keys(WORKLOADS)) {
      await make(ns, kind, `w-${kind}`);
      const r = await kubectl(bin, ns, "scale", `${kind}/w-${kind}`, "--replicas=3");
      if (r.code !== 0) throw new Error(r.text);
      expect(r.out.trim()).toBe(`${KINDS[kind]}/w-${kind} scaled`);
      expect(await replicas(ns, kind, `w-${kind}`)).toBe(3);
    }
  });

  test("--current-replicas is a precondition", async () => {
    const bad = await kubectl(bin, ns, "scale", "deploy/w-deploy", "--current-replicas=2", "--replicas=5");
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain("Expected replicas to be 2, was 3");
    expect(await replicas(ns, "deploy", "w-deploy")).toBe(3);
    const good = await kubectl(bin, ns, "scale", "deploy/w-deploy", "--current-replicas=3", "--replicas=5");
    if (good.code !== 0) throw new Error(good.text);
    expect(await replicas(ns, "deploy", "w-deploy")).toBe(5);
  });

  test("kubectl autoscale makes an HPA for the deployment", async () => {
    const r = await kubectl(bin, ns, "autoscale", "deploy/w-deploy", "--min=2", "--max=6", "--cpu-percent=70");
    if (r.code !== 0) throw new Error(r.text);
    expect(r.out.trim()).toBe("horizontalpodautoscaler.autoscaling/w-deploy autoscaled");
    const hpa = (await s.call("GET", `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/w-deploy`)).body;
    expect(hpa.spec).toMatchObject({ scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "w-deploy" }, minReplicas: 2, maxReplicas: 6 });
  });
});

test("the Python client's scale calls", async () => {
  await post("/api/v1/namespaces", { metadata: { name: "scale-py" } });
  await make("scale-py", "deploy", "web");
  await make("scale-py", "sts", "db");
  await make("scale-py", "rc", "rc");
  const r = await run(["/usr/bin/python3", join(import.meta.dir, "clients", "scale.py"), s.kubeconfig, "scale-py"]);
  if (r.code !== 0) throw new Error(r.text);
  expect(JSON.parse(r.out)).toEqual({ read: { kind: "Scale", replicas: 2, selector: "app=web" }, patch: 5, replace: 4, stale: 409, rc: 3 });
  expect(await replicas("scale-py", "deploy", "web")).toBe(5);
  expect(await replicas("scale-py", "sts", "db")).toBe(4);
  expect(await replicas("scale-py", "rc", "rc")).toBe(3);
});

test("the JS client's scale calls", async () => {
  await post("/api/v1/namespaces", { metadata: { name: "scale-js" } });
  await make("scale-js", "deploy", "web");
  await make("scale-js", "rs", "rs");
  const r = await run([process.execPath, join(import.meta.dir, "clients", "scale.ts"), s.kubeconfig, "scale-js"], { NODE_EXTRA_CA_CERTS: join(s.dataDir, "pki", "ca.crt") });
  if (r.code !== 0) throw new Error(r.text);
  expect(JSON.parse(r.out)).toEqual({ read: { kind: "Scale", replicas: 2, selector: "app=web" }, patch: 6, replace: 3 });
  expect(await replicas("scale-js", "deploy", "web")).toBe(6);
  expect(await replicas("scale-js", "rs", "rs")).toBe(3);
});

test("kubectl get cs (1.20) shows the store's health and the deprecation warning", async () => {
  const r = await run(["/usr/bin/kubectl", `--kubeconfig=${s.kubeconfig}`, "get", "cs"]);
  if (r.code !== 0) throw new Error(r.text);
  expect(r.err).toContain("Warning: v1 ComponentStatus is deprecated in v1.19+");
  const lines = r.out.trim().split("\n");
  expect(lines[0].split(/\s+/)).toEqual(["NAME", "STATUS", "MESSAGE", "ERROR"]);
  expect(lines[1].split(/\s+/)).toEqual(["etcd-0", "Healthy", '{"health":"true"}']);
});
