// kubectl's --validate=strict|warn|ignore against the server's fieldValidation: every kubectl build from
// 1.27 found on the machine (they decide on server-side validation from the OpenAPI operations) runs
// `create -f` and `apply -f` of manifests with a typo at the top and deep in a pod template. kubectl 1.20
// sends no fieldValidation at all.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";

setDefaultTimeout(120_000);

const SDK_BIN = "/usr/lib/google-cloud-sdk/bin";
const BUILDS = existsSync(SDK_BIN)
  ? readdirSync(SDK_BIN).filter((f) => /^kubectl\.1\.\d+$/.test(f) && Number(f.split(".")[2]) >= 27).sort()
  : [];

let s: TestServer;
let dir: string;
beforeAll(async () => {
  s = await startServer();
  dir = tempDir("kubectl-validate-");
}, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

async function run(bin: string, args: string[]) {
  const p = Bun.spawn([join(SDK_BIN, bin), `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

const configMap = (ns: string, name: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
dataa:
  key: value
`;
const deployment = (ns: string, name: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: web
        image: nginx:1.21
        imagee: nginx:1.22
`;
const CM_TYPO = `unknown field "dataa"`;
const DEPLOY_TYPO = `unknown field "spec.template.spec.containers[0].imagee"`;

describe.skipIf(BUILDS.length === 0)("kubectl --validate", () => {
  for (const bin of BUILDS) {
    for (const verb of ["create", "apply"]) {
      test(`${bin} ${verb} -f`, async () => {
        const ns = `v-${bin.replace(/\D/g, "")}-${verb}`;
        expect((await run(bin, ["create", "namespace", ns])).code).toBe(0);
        const file = (what: string, text: string) => { const f = join(dir, `${ns}-${what}.yaml`); writeFileSync(f, text); return f; };
        for (const [kind, make, typo] of [["configmap", configMap, CM_TYPO], ["deployment", deployment, DEPLOY_TYPO]] as const) {
          // strict (the default): refused with the server's message, nothing created
          const strict = await run(bin, [verb, "-f", file(`${kind}-strict`, make(ns, `${kind}-strict`))]);
          expect(strict.code).toBe(1);
          expect(strict.err).toContain(`Error from server (BadRequest)`);
          expect(strict.err).toContain(`strict decoding error: ${typo}`);
          expect((await run(bin, ["get", kind, `${kind}-strict`, "-n", ns])).code).toBe(1);
          // warn: warned and created, without the typo
          const warn = await run(bin, [verb, "--validate=warn", "-f", file(`${kind}-warn`, make(ns, `${kind}-warn`))]);
          expect(warn.code).toBe(0);
          expect(warn.err).toContain(`Warning: ${typo}`);
          const got = await run(bin, ["get", kind, `${kind}-warn`, "-n", ns, "-o", "json"]);
          expect(got.code).toBe(0);
          // (apply's last-applied-configuration annotation keeps the manifest as written, as upstream's does)
          const obj = JSON.parse(got.out);
          expect(obj.dataa).toBeUndefined();
          expect(obj.spec?.template.spec.containers[0].imagee).toBeUndefined();
          // ignore: created, no warning
          const ignore = await run(bin, [verb, "--validate=ignore", "-f", file(`${kind}-ignore`, make(ns, `${kind}-ignore`))]);
          expect(ignore.code).toBe(0);
          expect(ignore.err).not.toContain("unknown field");
        }
      });
    }
  }
});
