// A container's environment from every source a pod names, as a real `sh -c env` prints it: ConfigMaps,
// Secrets, the downward API, resources, envFrom with prefixes, the service links; and a container whose
// ConfigMap is missing waits with upstream's CreateContainerConfigError until the ConfigMap appears.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { logFile, logOutputWhen, startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer, agent: TestNodeAgent;
const NS = "default";
const b64 = (v: string) => Buffer.from(v).toString("base64");

beforeAll(async () => {
  s = await startServer();
  agent = await startNodeAgent(s, ["--sync-frequency=1s"]);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 15_000) =>
  until(async () => { const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`); return r.status === 200 && f(r.body) ? r.body : undefined; }, `${name}: ${what}`, ms);

/** `sh -c env` in a pod bound to the agent: the environment the container saw, once it has Succeeded. */
async function printedEnv(name: string, container: Record<string, unknown>, spec: Record<string, unknown> = {}): Promise<Record<string, string>> {
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, {
    apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "printer" }, annotations: { owner: "team-a" } },
    // named: Kite's API server does not default it (upstream's ServiceAccount admission would)
    spec: { nodeName: agent.name, serviceAccountName: "default", restartPolicy: "Never", containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "env"], ...container }], ...spec },
  });
  const p = await podWhen(name, "Succeeded", (p) => p.status?.phase === "Succeeded");
  const text = await logOutputWhen(logFile(agent, p.metadata.uid, "c"));
  return Object.fromEntries(text.trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}

test("env from every source: valueFrom (ConfigMap, Secret, fieldRef, resourceFieldRef), envFrom with prefix, $(VAR), service links", async () => {
  await ok(s, "POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "settings" }, data: { MODE: "fast", LEVEL: "3", "1ST": "skipped" } });
  await ok(s, "POST", `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: "creds" }, data: { PASSWORD: b64("s3cret"), USER: b64("admin") } });
  const svc = await ok(s, "POST", `/api/v1/namespaces/${NS}/services`, { metadata: { name: "web-api" }, spec: { ports: [{ name: "http", port: 8080 }] } });
  const field = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
  const env = await printedEnv("printer", {
    resources: { limits: { memory: "64Mi" }, requests: { cpu: "250m" } },
    envFrom: [{ configMapRef: { name: "settings" } }, { secretRef: { name: "creds" }, prefix: "DB_" }],
    env: [
      { name: "MODE", value: "override-$(LEVEL)" },
      { name: "KEY", valueFrom: { configMapKeyRef: { name: "settings", key: "LEVEL" } } },
      { name: "PASS", valueFrom: { secretKeyRef: { name: "creds", key: "PASSWORD" } } },
      { name: "MAYBE", valueFrom: { configMapKeyRef: { name: "nowhere", key: "x", optional: true } } },
      { name: "POD_NAME", ...field("metadata.name") }, { name: "POD_NS", ...field("metadata.namespace") }, { name: "POD_UID", ...field("metadata.uid") },
      { name: "APP", ...field("metadata.labels['app']") }, { name: "OWNER", ...field("metadata.annotations['owner']") },
      { name: "NODE", ...field("spec.nodeName") }, { name: "SA", ...field("spec.serviceAccountName") },
      { name: "HOST_IP", ...field("status.hostIP") }, { name: "POD_IP", ...field("status.podIP") }, { name: "POD_IPS", ...field("status.podIPs") },
      { name: "MEM_MI", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
      { name: "CPU_M", valueFrom: { resourceFieldRef: { resource: "requests.cpu", divisor: "1m" } } },
      { name: "CPU_LIMIT", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
      { name: "URL", value: "http://$(WEB_API_SERVICE_HOST):$(WEB_API_SERVICE_PORT)" },
    ],
  });
  const pod = await ok(s, "GET", `/api/v1/namespaces/${NS}/pods/printer`);
  const node = await ok(s, "GET", `/api/v1/nodes/${agent.name}`);
  const ip = svc.spec.clusterIP;
  expect(env).toMatchObject({
    MODE: "override-3", LEVEL: "3", DB_PASSWORD: "s3cret", DB_USER: "admin", KEY: "3", PASS: "s3cret",
    POD_NAME: "printer", POD_NS: NS, POD_UID: pod.metadata.uid, APP: "printer", OWNER: "team-a",
    NODE: agent.name, SA: "default", HOST_IP: "127.0.0.1", POD_IP: "127.0.0.1", POD_IPS: "127.0.0.1",
    MEM_MI: "64", CPU_M: "250", CPU_LIMIT: node.status.allocatable.cpu,
    URL: `http://${ip}:8080`,
    WEB_API_SERVICE_HOST: ip, WEB_API_SERVICE_PORT: "8080", WEB_API_SERVICE_PORT_HTTP: "8080", WEB_API_PORT: `tcp://${ip}:8080`,
    WEB_API_PORT_8080_TCP_ADDR: ip, KUBERNETES_SERVICE_PORT: "443",
  });
  expect(env.KUBERNETES_SERVICE_HOST).toBeString();
  expect(env).not.toContainKey("MAYBE");
  expect(env).not.toContainKey("1ST");
  expect(agent.output()).toContain(`Keys [1ST] from the EnvFrom configMap ${NS}/settings were skipped since they are considered invalid environment variable names.`);
  // enableServiceLinks: false keeps only the master service's variables
  const quiet = await printedEnv("quiet", {}, { enableServiceLinks: false });
  expect(quiet).not.toContainKey("WEB_API_SERVICE_HOST");
  expect(quiet.KUBERNETES_SERVICE_HOST).toBe(env.KUBERNETES_SERVICE_HOST);
});

test("a missing ConfigMap, then a missing key: CreateContainerConfigError with upstream's messages; once there, the container starts", async () => {
  const ref = { name: "late", key: "greeting" };
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, {
    apiVersion: "v1", kind: "Pod", metadata: { name: "waits" },
    spec: { nodeName: agent.name, restartPolicy: "Never", containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "echo $GREETING"], env: [{ name: "GREETING", valueFrom: { configMapKeyRef: ref } }] }] },
  });
  const waiting = (message: string) => (p: any) => p.status?.containerStatuses?.[0]?.state?.waiting?.message === message;
  let p = await podWhen("waits", "no ConfigMap", waiting(`configmap "late" not found`));
  expect(p.status.containerStatuses[0].state.waiting.reason).toBe("CreateContainerConfigError");
  expect(p.status.phase).toBe("Pending");
  await ok(s, "POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "late" }, data: { other: "x" } });
  p = await podWhen("waits", "no key", waiting(`couldn't find key greeting in ConfigMap ${NS}/late`));
  expect(p.status.containerStatuses[0].state.waiting.reason).toBe("CreateContainerConfigError");
  expect((await s.call("PATCH", `/api/v1/namespaces/${NS}/configmaps/late`, { data: { greeting: "finally" } }, { "content-type": "application/merge-patch+json" })).status).toBe(200);
  p = await podWhen("waits", "Succeeded", (p) => p.status?.phase === "Succeeded");
  expect(await logOutputWhen(logFile(agent, p.metadata.uid, "c"), "finally\n")).toBe("finally\n");
});
