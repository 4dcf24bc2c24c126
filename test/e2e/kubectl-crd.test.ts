// Custom resources with stock clients against a real `kite apiserver`: kubectl 1.20 and 1.33 apply a
// CRD and then an object of its kind, get it with the printer columns (by plural, short name and the
// `all` category), explain it and scale it; the Python client runs an operator's list/watch/patch-status
// loop over the kind.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";
import { until } from "../api/fixtures.ts";

setDefaultTimeout(60_000);

const KUBECTL_1_20 = process.env.KUBECTL_1_20 ?? "/opt/kubernetes-client-1.20/usr/bin/kubectl";
const BUILDS: [string, string][] = [["1.20", KUBECTL_1_20], ["1.33", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"]];

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

async function run(cmd: string[], stdin?: string) {
  const p = Bun.spawn(cmd, { stdin: stdin ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err, text: `${cmd.join(" ")} exited ${code}\n${out}\n${err}` };
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec, description: The cron spec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: The desired schedule.
            properties:
              cronSpec: {type: string, description: When to run.}
              image: {type: string}
              replicas: {type: integer, default: 1}
          status:
            type: object
            properties:
              replicas: {type: integer}
`;

const cronTab = (name: string, spec: string) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: ${name}}
spec: ${spec}
`;

for (const [v, bin] of BUILDS) {
  describe(`kubectl ${v}`, () => {
    const ns = `crd-${v.replace(".", "-")}`;
    const k = (args: string[], stdin?: string) => run([bin, `--kubeconfig=${s.kubeconfig}`, ...args], stdin);
    const ok = async (args: string[], stdin?: string) => {
      const r = await k(args, stdin);
      if (r.code !== 0) throw new Error(r.text);
      return r.out;
    };

    test("apply a CRD, then an object of its kind", async () => {
      await ok(["create", "namespace", ns]);
      expect(await ok(["apply", "-f", "-"], CRD)).toMatch(/customresourcedefinition.apiextensions.k8s.io\/crontabs.stable.example.com (created|unchanged)/);
      await ok(["wait", "--for=condition=Established", "crd/crontabs.stable.example.com", "--timeout=20s"]);
      expect(await ok(["apply", "-n", ns, "-f", "-"], cronTab("nightly", "{cronSpec: '0 3 * * *', image: backup}"))).toBe("crontab.stable.example.com/nightly created\n");
    });

    test("get shows the printer columns, by plural, short name and category", async () => {
      for (const what of ["crontabs", "ct"]) {
        const lines = (await ok(["get", what, "-n", ns])).trim().split("\n");
        expect(lines.map((l) => l.split(/\s{2,}/))).toEqual([["NAME", "SPEC", "REPLICAS"], ["nightly", "0 3 * * *", "1"]]);
      }
      expect(await ok(["get", "all", "-n", ns, "-o", "name"])).toContain("crontab.stable.example.com/nightly");
    });

    test("explain describes the kind from its schema", async () => {
      const out = await ok(["explain", "crontab.spec"]);
      expect(out).toContain("KIND:");
      expect(out).toContain("CronTab");
      expect(out).toContain("The desired schedule.");
      expect(out).toMatch(/cronSpec\s+<string>/);
      expect(out).toContain("When to run.");
    });

    test("scale writes the replicas path", async () => {
      expect(await ok(["scale", "-n", ns, "crontab/nightly", "--replicas=3"])).toBe("crontab.stable.example.com/nightly scaled\n");
      expect(await ok(["get", "-n", ns, "ct", "nightly", "-o", "jsonpath={.spec.replicas}"])).toBe("3");
    });
  });
}

test("an operator's loop with the Python client: list, watch, patch status", async () => {
  await run([KUBECTL_1_20, `--kubeconfig=${s.kubeconfig}`, "apply", "-f", "-"], CRD);
  const NS = "operator";
  expect((await s.call("POST", "/api/v1/namespaces", { metadata: { name: NS } })).status).toBe(201);
  const base = `/apis/stable.example.com/v1/namespaces/${NS}/crontabs`;
  const make = async (name: string, replicas: number) => {
    const r = await s.call("POST", base, { apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name }, spec: { replicas } });
    if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  await make("first", 2);
  const py = Bun.spawn(["/usr/bin/python3", join(import.meta.dir, "clients", "operator.py"), s.kubeconfig, NS], { stdout: "pipe", stderr: "pipe" });
  // the operator lists, then watches from the list: "second" reaches it either way (listed, or ADDED)
  await until(async () => (await s.call("GET", `${base}/first`)).body.status, "the operator's status write of first");
  await make("second", 4);
  const [out, err, code] = await Promise.all([new Response(py.stdout).text(), new Response(py.stderr).text(), py.exited]);
  if (code !== 0) throw new Error(`operator.py exited ${code}: ${out}\n${err}`);
  const r = JSON.parse(out);
  expect(r.listed).toEqual(["first"]);
  expect(r.patched).toEqual({ first: { replicas: 2 }, second: { replicas: 4 } });
  expect(r.events).toContainEqual(["ADDED", "second"]);
  expect(r.events).toContainEqual(["MODIFIED", "second"]);
  expect(r.final).toEqual({ replicas: 4 });
});
