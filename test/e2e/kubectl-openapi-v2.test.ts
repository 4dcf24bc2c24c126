// kubectl builds that read /openapi/v2 (1.20 for everything; 1.27 and 1.28 for apply, diff and create;
// 1.29+ only when /openapi/v3 does not answer for a kind, e.g. a `List` or an unknown kind) against a
// real `kite apiserver`: explain, apply, diff, create -f of a List, and the unknown-kind message.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { tempDir } from "../helpers/processes.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(60_000);

const SDK_BIN = "/usr/lib/google-cloud-sdk/bin";
/** Debian's kubernetes-client 1.20, unpacked beside the system's kubectl by .ci/run. */
const KUBECTL_1_20 = process.env.KUBECTL_1_20 ?? "/opt/kubernetes-client-1.20/usr/bin/kubectl";
const BUILDS: [string, string][] = [
  ["1.20", KUBECTL_1_20],
  ...["1.27", "1.28", "1.29", "1.33"].map((v): [string, string] => [v, `${SDK_BIN}/kubectl.${v}`]),
];

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

interface Run { code: number; out: string; err: string }

const deployment = (name: string, replicas: number, containers = ["nginx"]) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: "25%"}}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
${containers.map((c) => `      - name: ${c}
        image: ${c}:1.21
        ports: [{containerPort: 80, name: http}]
        resources: {requests: {cpu: 100m, memory: 64Mi}}
        readinessProbe: {httpGet: {path: /, port: http}}`).join("\n")}
`;

const list = (replicas: number) => `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: listed}
  data: {A: "1"}
- apiVersion: v1
  kind: Service
  metadata: {name: listed}
  spec:
    selector: {app: listed}
    ports: [{name: http, port: 80, targetPort: http}]
- ${deployment("listed", replicas).trimEnd().split("\n").join("\n  ")}
`;

const WIDGET = "apiVersion: v1\nkind: Widget\nmetadata: {name: w}\n";

for (const [version, bin] of BUILDS) {
  describe(`kubectl ${version}`, () => {
    const ns = `openapi-v2-${version.replace(".", "-")}`;
    // A home of its own: no discovery or HTTP cache shared with other builds or runs.
    const home = tempDir("kite-kubectl-home-");

    async function run(args: string[], stdin?: string): Promise<Run> {
      const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, "-n", ns, ...args], {
        stdin: stdin ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, HOME: home },
      });
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { code, out, err };
    }
    async function ok(args: string[], stdin?: string, codes = [0]): Promise<string> {
      const r = await run(args, stdin);
      if (!codes.includes(r.code)) throw new Error(`kubectl ${version} ${args.join(" ")} exited ${r.code}\nstdout: ${r.out}\nstderr: ${r.err}`);
      return r.out;
    }
    const get = async (path: string) => (await s.call("GET", path)).body;

    beforeAll(async () => {
      expect(existsSync(bin)).toBe(true);
      expect((await s.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })).status).toBe(201);
    });

    test("explain deployment.spec.strategy", async () => {
      const out = await ok(["explain", "deployment.spec.strategy"]);
      expect(out).toMatch(/KIND:\s+Deployment/);
      expect(out).toMatch(/VERSION:\s+(apps\/)?v1/);
      expect(out).toContain("How old pods are replaced by new ones.");
      expect(out).toMatch(/^\s+rollingUpdate\s+<(Object|RollingUpdateDeployment)>/m);
      expect(out).toMatch(/^\s+type\s+<string>/m);
    });

    test("apply, apply a change, diff", async () => {
      expect(await ok(["apply", "-f", "-"], deployment("web", 1))).toContain("deployment.apps/web created");
      expect(await ok(["apply", "-f", "-"], deployment("web", 2, ["nginx", "sidecar"]))).toContain("deployment.apps/web configured");
      const live = await get(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
      expect(live.spec.replicas).toBe(2);
      expect(live.spec.template.spec.containers.map((c: { name: string }) => c.name).sort()).toEqual(["nginx", "sidecar"]);
      expect(live.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: "25%" });
      // diff exits 1 when there are differences.
      const diff = await ok(["diff", "-f", "-"], deployment("web", 3, ["nginx", "sidecar"]), [1]);
      expect(diff).toMatch(/^-\s+replicas: 2$/m);
      expect(diff).toMatch(/^\+\s+replicas: 3$/m);
      expect(await ok(["diff", "-f", "-"], deployment("web", 2, ["nginx", "sidecar"]))).toBe("");
    });

    test("create -f, apply and diff of a List", async () => {
      const created = await ok(["create", "-f", "-"], list(1));
      for (const what of ["configmap/listed created", "service/listed created", "deployment.apps/listed created"]) expect(created).toContain(what);
      expect(await ok(["apply", "-f", "-"], list(2))).toContain("deployment.apps/listed configured");
      expect((await get(`/apis/apps/v1/namespaces/${ns}/deployments/listed`)).spec.replicas).toBe(2);
      expect(await ok(["diff", "-f", "-"], list(4), [1])).toMatch(/^\+\s+replicas: 4$/m);
    });

    test("an unknown kind: no matches for kind", async () => {
      for (const verb of ["apply", "create"]) {
        const r = await run([verb, "-f", "-"], WIDGET);
        expect(r.code).not.toBe(0);
        expect(r.err).toContain('no matches for kind "Widget" in version "v1"');
      }
    });

    if (version === "1.20") {
      // 1.20 validates on the client, against the protobuf document's definitions.
      test("validation reads the definitions: unknown fields and wrong types", async () => {
        const typo = await run(["create", "-f", "-"], deployment("typo", 1).replace("image:", "imagee:"));
        expect(typo.code).not.toBe(0);
        expect(typo.err).toContain('unknown field "imagee" in io.k8s.api.core.v1.Container');
        const wrong = await run(["apply", "-f", "-"], deployment("wrong", 1).replace("replicas: 1", 'replicas: "three"'));
        expect(wrong.code).not.toBe(0);
        expect(wrong.err).toContain('invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer"');
        expect((await s.call("GET", `/apis/apps/v1/namespaces/${ns}/deployments/typo`)).status).toBe(404);
      });
    }
  });
}
