// kite convert, run as a user runs it: offline (no kubeconfig, HOME pointing nowhere), from a file, stdin,
// a directory and a List, YAML and JSON out, warnings and errors naming the document and field, exit codes;
// and what it writes is accepted by a real server.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifests } from "../../pkg/cli/manifests.ts";
import { tempDir } from "../helpers/processes.ts";
import { KITE, ROOT, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(30_000);

const home = tempDir("kite-convert-home-");
const dir = tempDir("kite-convert-");
const FIXTURES = join(ROOT, "test/fixtures/convert");

async function kite(args: string[], stdin?: string) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
  delete env.KUBECONFIG;
  const p = Bun.spawn([...KITE, "convert", ...args], { env, stdin: stdin === undefined ? "ignore" : new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const deployment = (apiVersion: string, name: string) =>
  `apiVersion: ${apiVersion}\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers: [{name: c, image: "nginx"}]\n`;

let server: TestServer | undefined;
afterAll(() => server?.stop());

test("one file with one object: written as that object, in YAML, with kubectl's sorted keys", async () => {
  const r = await kite(["-f", join(FIXTURES, "ingress-extensions-v1beta1.in.yaml"), "--output-version", "networking/v1"]);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out.startsWith("apiVersion: networking.k8s.io/v1\nkind: Ingress\n")).toBe(true);
  expect(r.out).toContain("  defaultBackend:\n    service:\n      name: fallback\n      port:\n        number: 80\n");
  expect(r.out).toContain("pathType: ImplementationSpecific");
});

test("an HPA at autoscaling/v2beta2 to v1: its golden file, with what v1 lacks in upstream's annotations", async () => {
  const r = await kite(["-f", join(FIXTURES, "horizontalpodautoscaler-v2beta2.in.yaml"), "--output-version", "autoscaling/v1", "-o", "json"]);
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
  const golden = await parseManifests(await Bun.file(join(FIXTURES, "horizontalpodautoscaler-v2beta2.out.yaml")).text(), "golden");
  expect(JSON.parse(r.out)).toEqual(golden[0].obj);
  const yaml = await kite(["-f", join(FIXTURES, "horizontalpodautoscaler-v2beta2.in.yaml"), "--output-version", "autoscaling/v1"]);
  expect(yaml.out).toContain(`    autoscaling.alpha.kubernetes.io/metrics: '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}}]'\n`);
});

test("stdin, -o json, and the warning for a removed field on stderr naming the document", async () => {
  const input = `${deployment("extensions/v1beta1", "a")}  rollbackTo: {revision: 4}\n`;
  const r = await kite(["-f", "-", "--output-version=apps/v1", "-o", "json"], input);
  expect(r.code).toBe(0);
  const obj = JSON.parse(r.out);
  expect(obj.apiVersion).toBe("apps/v1");
  expect(obj.spec.selector).toEqual({ matchLabels: { app: "a" } });
  expect(obj.metadata.annotations["deprecated.deployment.rollback.to"]).toBe("4");
  expect(r.out).toContain('\n    "apiVersion": "apps/v1",\n'); // kubectl's four-space JSON
  expect(r.err).toBe(`Warning: "STDIN" (document 1) extensions/v1beta1 Deployment "a": spec.rollbackTo: removed in apps/v1 (apps/v1 does not roll back); kept in the annotation deprecated.deployment.rollback.to\n`);
});

test("a directory and a List: every object converted, written as one List; an unrelated kind unchanged with a warning", async () => {
  const d = join(dir, "app");
  mkdirSync(d);
  writeFileSync(join(d, "1-deploy.yaml"), `${deployment("apps/v1beta1", "web")}---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n`);
  writeFileSync(join(d, "2-list.json"), JSON.stringify({ apiVersion: "v1", kind: "List", items: [{ apiVersion: "extensions/v1beta1", kind: "ReplicaSet", metadata: { name: "rs" }, spec: { template: { metadata: { labels: { a: "b" } } } } }] }));
  writeFileSync(join(d, "notes.txt"), "not a manifest");
  const r = await kite(["-f", d, "--output-version", "apps/v1"]);
  expect(r.code).toBe(0);
  expect(r.err).toBe(`Warning: "${join(d, "1-deploy.yaml")}" (document 2) v1 Service "web" is not suitable for converting to "apps/v1"; written unchanged\n`);
  const list = JSON.parse((await kite(["-f", d, "--output-version", "apps/v1", "-o", "json"])).out);
  expect(list.kind).toBe("List");
  expect(list.items.map((i: any) => `${i.apiVersion} ${i.kind}`)).toEqual(["apps/v1 Deployment", "v1 Service", "apps/v1 ReplicaSet"]);
  expect(list.items[0].spec.revisionHistoryLimit).toBe(2);
  expect(list.items[2].spec.selector).toEqual({ matchLabels: { a: "b" } });
  // A List in one file stays a List even with one item.
  const one = JSON.parse((await kite(["-f", join(d, "2-list.json"), "--output-version", "apps/v1", "-o", "json"])).out);
  expect(one.kind).toBe("List");
});

test("errors name the file, document and field, exit 1, and write nothing", async () => {
  const p = file("bad.yaml", `${deployment("apps/v1beta2", "ok").replace("spec:\n", "spec:\n  selector: {matchLabels: {app: ok}}\n")}---\napiVersion: apps/v1beta2\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  template: {spec: {containers: []}}\n---\n- a list\n`);
  const r = await kite(["-f", p, "--output-version", "apps/v1"]);
  expect(r.code).toBe(1);
  expect(r.out).toBe("");
  expect(r.err.split("\n")).toEqual([
    `error: "${p}" (document 2) apps/v1beta2 DaemonSet "d": spec.selector: Required value: apps/v1 requires a selector, and spec.template.metadata.labels has none to derive it from`,
    `error: "${p}" (document 3): a document must be an object, not a list`,
    "",
  ]);
  const w = await kite(["-f", join(FIXTURES, "validatingwebhookconfiguration-v1beta1.in.yaml"), "--output-version", "admissionregistration.k8s.io/v1"]);
  expect(w.code).toBe(1);
  expect(w.err).toContain(`ValidatingWebhookConfiguration "policy": webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"`);
  const none = await kite(["-f", file("empty.yaml", "# nothing\n"), "--output-version", "apps/v1"]);
  expect(none).toEqual({ code: 1, out: "", err: "error: no objects passed to convert\n" });
});

test("bad flags exit 2 in one line; --help says what it does", async () => {
  for (const [args, msg] of [
    [["--output-version", "a/b/c", "-f", "x"], `Error: invalid argument "a/b/c" for "--output-version" flag: unexpected GroupVersion string: a/b/c\n`],
    [["-f", "x", "-o", "wide"], `Error: invalid argument "wide" for "--output" flag: must be one of yaml, json\n`],
    [["--output-version", "apps/v1"], "Error: must specify -f (a file, a directory, or - for stdin)\n"],
    [["-f", "x", "--server", "https://h"], "Error: unknown flag: --server (see 'kite convert --help')\n"],
  ] as [string[], string][]) {
    const r = await kite(args);
    expect({ code: r.code, err: r.err }).toEqual({ code: 2, err: msg });
  }
  const help = await kite(["--help"]);
  expect(help.out).toContain("--output-version");
  expect(help.out).toContain("offline");
});

test("what it writes, a real server creates", async () => {
  server = await startServer();
  const names = ["deployment-extensions-v1beta1", "ingress-extensions-v1beta1", "poddisruptionbudget-v1beta1-empty", "customresourcedefinition-v1beta1", "statefulset-apps-v1beta1"];
  const paths: Record<string, string> = {
    Deployment: "/apis/apps/v1/namespaces/default/deployments", Ingress: "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
    PodDisruptionBudget: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
    CustomResourceDefinition: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", StatefulSet: "/apis/apps/v1/namespaces/default/statefulsets",
  };
  for (const n of names) {
    const to = /^# --output-version (\S+)/.exec(await Bun.file(join(FIXTURES, `${n}.in.yaml`)).text())![1];
    const r = await kite(["-f", join(FIXTURES, `${n}.in.yaml`), "--output-version", to, "-o", "json"]);
    expect(r.code).toBe(0);
    const obj = JSON.parse(r.out);
    const res = await server.call("POST", paths[obj.kind], obj);
    expect({ n, status: res.status }).toEqual({ n, status: 201 });
  }
});
