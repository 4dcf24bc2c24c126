// `kite delete` against a real apiserver: the lines a user sees, exit codes, what is left on the server,
// and --wait (the command returns only when the objects are really gone).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";

let s: TestServer;
let home: string;
const HAS_KUBECTL = !!Bun.which("kubectl");

type Run = { code: number; out: string; err: string };
async function run(cmd: string[]): Promise<Run> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
  delete env.KUBECONFIG;
  const p = Bun.spawn(cmd, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
const kite = (args: string[]) => run([...KITE, ...args, `--kubeconfig=${s.kubeconfig}`]);
const kubectl = (args: string[]) => run(["kubectl", `--kubeconfig=${s.kubeconfig}`, ...args]);

const cm = (ns: string, name: string, labels: Record<string, string> = {}, finalizers?: string[]) =>
  s.call("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels, ...(finalizers ? { finalizers } : {}) } });
const exists = async (path: string) => (await s.call("GET", path)).status === 200;
/** This suite's configmaps in a namespace (the kube-root-ca.crt the server keeps there left out). */
const names = async (ns: string) => ((await s.call("GET", `/api/v1/namespaces/${ns}/configmaps`)).body.items as any[]).map((i) => i.metadata.name).filter((n) => n !== "kube-root-ca.crt").sort();
const dropFinalizers = (ns: string, name: string) => s.req(`/api/v1/namespaces/${ns}/configmaps/${name}`, {
  method: "PATCH", headers: { "Content-Type": "application/merge-patch+json" }, body: JSON.stringify({ metadata: { finalizers: null } }),
});

beforeAll(async () => {
  s = await startServer();
  home = tempDir("kite-cli-home-");
  for (const ns of ["d1", "d2", "d3"]) await s.call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
});
afterAll(() => s.stop());

setDefaultTimeout(30_000);

describe("kite delete", () => {
  test("TYPE NAME... deletes each and prints kind \"name\" deleted", async () => {
    await cm("default", "a");
    await cm("default", "b");
    await s.call("POST", "/apis/apps/v1/namespaces/default/deployments", {
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    });
    const r = await kite(["delete", "configmap", "a", "b"]);
    expect(r).toEqual({ code: 0, out: 'configmap "a" deleted\nconfigmap "b" deleted\n', err: "" });
    expect(await names("default")).not.toContain("a");
    const d = await kite(["delete", "deploy/web"]);
    expect(d).toEqual({ code: 0, out: 'deployment.apps "web" deleted\n', err: "" });
    expect(await exists("/apis/apps/v1/namespaces/default/deployments/web")).toBe(false);
  });

  test.skipIf(!HAS_KUBECTL)("prints what kubectl prints, for found and missing objects", async () => {
    for (const n of ["k1", "k2", "m1", "m2"]) await cm("d1", n);
    const theirs = await kubectl(["delete", "cm", "k1", "missing", "k2", "-n", "d1"]);
    const ours = await kite(["delete", "cm", "m1", "missing", "m2", "-n", "d1"]);
    expect(ours.out.replace(/m(\d)/g, "k$1")).toBe(theirs.out);
    expect(ours.err).toBe(theirs.err);
    expect(ours.code).toBe(theirs.code);
    expect(ours.err).toBe('Error from server (NotFound): configmaps "missing" not found\n');
  });

  test("missing objects: exit 1, the others still go; --ignore-not-found makes it quiet", async () => {
    await cm("d1", "here");
    const r = await kite(["delete", "cm", "nope", "here", "-n", "d1"]);
    expect(r).toEqual({ code: 1, out: 'configmap "here" deleted\n', err: 'Error from server (NotFound): configmaps "nope" not found\n' });
    expect(await kite(["delete", "cm", "nope", "-n", "d1", "--ignore-not-found"])).toEqual({ code: 0, out: "", err: "" });
  });

  test("-l, --all and -A select what to delete", async () => {
    await cm("d2", "x1", { app: "x" });
    await cm("d2", "x2", { app: "x" });
    await cm("d2", "y1", { app: "y" });
    await cm("d3", "x3", { app: "x" });
    const sel = await kite(["delete", "cm", "-l", "app=x", "-n", "d2"]);
    expect(sel).toEqual({ code: 0, out: 'configmap "x1" deleted\nconfigmap "x2" deleted\n', err: "" });
    expect(await names("d2")).toEqual(["y1"]);
    expect(await names("d3")).toContain("x3");
    const across = await kite(["delete", "cm", "-l", "app=x", "-A"]);
    expect(across.out).toBe('configmap "x3" deleted\n');
    const none = await kite(["delete", "cm", "-l", "app=x", "-A"]);
    expect(none).toEqual({ code: 0, out: "No resources found\n", err: "" });
    const all = await kite(["delete", "cm", "--all", "-n", "d2"]);
    expect(all.out).toContain('configmap "y1" deleted\n');
    expect(await names("d2")).not.toContain("y1");
  });

  test("-f deletes the objects of a manifest", async () => {
    await cm("default", "from-file-1");
    await cm("d1", "from-file-2");
    const dir = tempDir("kite-cli-del-");
    const f = join(dir, "objs.yaml");
    writeFileSync(f, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-file-1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-file-2, namespace: d1}\n");
    const r = await kite(["delete", "-f", f]);
    expect(r).toEqual({ code: 0, out: 'configmap "from-file-1" deleted\nconfigmap "from-file-2" deleted\n', err: "" });
    expect(await exists("/api/v1/namespaces/d1/configmaps/from-file-2")).toBe(false);
  });

  test("--wait (the default) returns only when finalizers are done; --timeout bounds it", async () => {
    await cm("default", "held", {}, ["example.com/hold"]);
    const t = await kite(["delete", "cm", "held", "--timeout=1s"]);
    expect(t.code).toBe(1);
    expect(t.out).toBe('configmap "held" deleted\n');
    expect(t.err).toBe("error: timed out waiting for the condition on configmaps/held\n");
    expect(await exists("/api/v1/namespaces/default/configmaps/held")).toBe(true);

    const p = Bun.spawn([...KITE, "delete", "cm", "held", `--kubeconfig=${s.kubeconfig}`], { env: { ...process.env, HOME: home }, stdout: "pipe", stderr: "pipe" });
    await Bun.sleep(700);
    expect(p.exitCode).toBeNull(); // still waiting
    await dropFinalizers("default", "held");
    const code = await Promise.race([p.exited, Bun.sleep(5000).then(() => -1)]);
    expect(code).toBe(0);
    expect(await new Response(p.stdout).text()).toBe('configmap "held" deleted\n');
    expect(await exists("/api/v1/namespaces/default/configmaps/held")).toBe(false);
  });

  test("--wait=false returns while the object is still terminating", async () => {
    await cm("default", "held2", {}, ["example.com/hold"]);
    const r = await kite(["delete", "cm", "held2", "--wait=false"]);
    expect(r).toEqual({ code: 0, out: 'configmap "held2" deleted\n', err: "" });
    const obj = (await s.call("GET", "/api/v1/namespaces/default/configmaps/held2")).body;
    expect(obj.metadata.deletionTimestamp).toBeTruthy();
    await dropFinalizers("default", "held2");
  });

  test("deleting a namespace waits until its contents and it are gone", async () => {
    await s.call("POST", "/api/v1/namespaces", { metadata: { name: "doomed" } });
    await cm("doomed", "inside");
    const r = await kite(["delete", "namespace", "doomed", "--timeout=20s"]);
    expect(r).toEqual({ code: 0, out: 'namespace "doomed" deleted\n', err: "" });
    expect(await exists("/api/v1/namespaces/doomed")).toBe(false);
  });

  test("--dry-run, --grace-period, --cascade and -o name", async () => {
    await cm("default", "keep");
    expect((await kite(["delete", "cm", "keep", "--dry-run=server"])).out).toBe('configmap "keep" deleted (server dry run)\n');
    expect((await kite(["delete", "cm", "keep", "--dry-run=client"])).out).toBe('configmap "keep" deleted (dry run)\n');
    expect(await exists("/api/v1/namespaces/default/configmaps/keep")).toBe(true);
    const r = await kite(["delete", "cm", "keep", "--grace-period=0", "--force", "--cascade=background", "-o", "name"]);
    expect(r.out).toBe("configmap/keep\n");
    expect(r.err).toStartWith("Warning: Immediate deletion does not wait for confirmation");
    expect(await exists("/api/v1/namespaces/default/configmaps/keep")).toBe(false);
    // Orphan deletion is the server's business (it adds the "orphan" finalizer for the garbage collector).
    await cm("default", "orphaned");
    expect((await kite(["delete", "cm", "orphaned", "--cascade=orphan", "--wait=false"])).out).toBe('configmap "orphaned" deleted\n');
    const o = (await s.call("GET", "/api/v1/namespaces/default/configmaps/orphaned")).body;
    if (o.kind === "ConfigMap") {
      expect(o.metadata.finalizers).toContain("orphan");
      await dropFinalizers("default", "orphaned");
    }
    expect((await kite(["delete", "cm", "keep", "--cascade=sideways"])).code).toBe(2);
    expect((await kite(["delete", "cm", "keep", "--grace-period=soon"])).code).toBe(2);
  });

  test("usage errors as kubectl words them", async () => {
    expect(await kite(["delete", "cm"])).toEqual({ code: 1, out: "", err: "error: resource(s) were provided, but no name was specified\n" });
    expect(await kite(["delete", "cm", "x", "-l", "a=b"])).toEqual({ code: 1, out: "", err: "error: name cannot be provided when a selector is specified\n" });
    expect(await kite(["delete", "cm", "--all", "-l", "a=b"])).toEqual({ code: 1, out: "", err: "error: setting 'all' parameter but found a non empty selector. \n" });
    expect((await kite(["delete"])).err).toStartWith("error: You must provide one or more resources by argument or filename.");
    expect((await kite(["delete", "cm", "x", "--bogus"])).code).toBe(2);
    const help = await run([...KITE, "delete", "--help"]);
    expect(help.code).toBe(0);
    for (const f of ["--filename", "--selector", "--all", "--wait", "--grace-period", "--cascade", "--kubeconfig"]) expect(help.out).toContain(f);
  });
});
