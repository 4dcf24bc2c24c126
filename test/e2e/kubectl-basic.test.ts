// Stock kubectl drives the server: the everyday commands of issue 2.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { kubectl, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let manifest: string;
beforeAll(async () => {
  s = await startServer();
  manifest = join(s.dataDir, "objects.yaml");
  writeFileSync(manifest, `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  labels: {app: web, tier: front}
data:
  greeting: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
`);
});
afterAll(() => s.stop());

test("kubectl create -f creates every document", async () => {
  const r = await kubectl(s, ["create", "-f", manifest]);
  expect(r.err).toBe("");
  expect(r.out).toContain("configmap/web-config created");
  expect(r.out).toContain("deployment.apps/web created");
  expect(r.out).toContain("service/web created");
  expect(r.code).toBe(0);
});

test("kubectl get lists them and get -o yaml shows server fields", async () => {
  const r = await kubectl(s, ["get", "configmaps,deployments,services"]);
  expect(r.code).toBe(0);
  expect(r.out).toContain("web-config");
  expect(r.out).toMatch(/deployment\.apps\/web|^web\s/m);
  const y = await kubectl(s, ["get", "deployment", "web", "-o", "yaml"]);
  expect(y.code).toBe(0);
  expect(y.out).toContain("kind: Deployment");
  expect(y.out).toMatch(/uid: [0-9a-f-]{36}/);
  expect(y.out).toMatch(/resourceVersion: "\d+"/);
  expect(y.out).toContain("generation: 1");
  expect(y.out).toContain("revisionHistoryLimit: 10"); // a server default
});

test("kubectl get -l filters by label", async () => {
  const hit = await kubectl(s, ["get", "cm", "-l", "tier=front", "-o", "name"]);
  expect(hit.out.trim()).toBe("configmap/web-config");
  const miss = await kubectl(s, ["get", "cm", "-l", "tier in (back)"]);
  expect(miss.out.trim()).toBe("");
  expect(miss.err).toContain("No resources found in default namespace.");
});

test("kubectl label and annotate change the object", async () => {
  expect((await kubectl(s, ["label", "cm", "web-config", "env=prod"])).out).toContain("configmap/web-config labeled");
  expect((await kubectl(s, ["annotate", "cm", "web-config", "owner=team-a"])).out).toContain("configmap/web-config annotated");
  const r = await s.call("GET", "/api/v1/namespaces/default/configmaps/web-config");
  expect(r.body.metadata.labels).toEqual({ app: "web", tier: "front", env: "prod" });
  expect(r.body.metadata.annotations.owner).toBe("team-a");
  const bad = await kubectl(s, ["label", "cm", "web-config", "bad key=x"]);
  expect(bad.code).not.toBe(0);
});

test("kubectl delete removes the object", async () => {
  const r = await kubectl(s, ["delete", "cm", "web-config"]);
  expect(r.out).toContain(`configmap "web-config" deleted`);
  expect((await s.call("GET", "/api/v1/namespaces/default/configmaps/web-config")).status).toBe(404);
  const again = await kubectl(s, ["delete", "cm", "web-config"]);
  expect(again.code).toBe(1);
  expect(again.err).toContain(`Error from server (NotFound): configmaps "web-config" not found`);
});

test("kubectl api-resources lists the built-in types", async () => {
  const r = await kubectl(s, ["api-resources"]);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
  expect(r.out).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
  expect(r.out).toMatch(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
});

test("kubectl explain reads the OpenAPI schema", async () => {
  const r = await kubectl(s, ["explain", "deployment.spec.replicas"]);
  expect(r.code).toBe(0);
  expect(r.out).toContain("KIND:       Deployment");
  expect(r.out).toMatch(/FIELD:\s+replicas <integer>/);
});

test("kubectl get --raw /readyz?verbose shows the checks", async () => {
  const r = await kubectl(s, ["get", "--raw", "/readyz?verbose"]);
  expect(r.code).toBe(0);
  expect(r.out).toContain("[+]etcd ok");
  expect(r.out.trim().endsWith("readyz check passed")).toBe(true);
});
