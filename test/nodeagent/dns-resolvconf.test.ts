// Pods' /etc/resolv.conf through their mount namespace: the node agent with --cluster-dns and
// --cluster-domain gives a ClusterFirst pod the cluster's resolver and search path, a Default pod the
// node's --resolv-conf, without touching the host's file; the pod's copy goes with the pod.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProcessRuntime } from "../../pkg/nodeagent/runtime/runtime.ts";
import { logFile, logOutputWhen, startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const isolated = !!new ProcessRuntime({ rootDir: tempDir("kite-probe-"), podMaxPids: -1 }).sandbox.unshare;
const skip = isolated ? "" : " (skipped: needs root and unshare)";
let s: TestServer;
let agent: TestNodeAgent;
const hostFile = join(tempDir("kite-resolv-"), "resolv.conf");
const hostBefore = readFileSync("/etc/resolv.conf", "utf8");

beforeAll(async () => {
  if (!isolated) return;
  writeFileSync(hostFile, "nameserver 192.0.2.53\nsearch corp.example\noptions timeout:1\n");
  s = await startServer();
  agent = await startNodeAgent(s, ["--cluster-dns=10.96.0.10", "--cluster-domain=cluster.local", `--resolv-conf=${hostFile}`]);
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

async function resolvConfOf(name: string, dnsPolicy: string): Promise<{ uid: string; text: string }> {
  const r = await s.call("POST", "/api/v1/namespaces/default/pods", {
    metadata: { name },
    spec: {
      nodeName: agent.name, dnsPolicy, terminationGracePeriodSeconds: 1,
      containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "cat /etc/resolv.conf; sleep 3600"] }],
    },
  });
  expect(r.status).toBe(201);
  const uid = r.body.metadata.uid;
  const text = await until(async () => {
    const t = await logOutputWhen(logFile(agent, uid, "c"), (x) => x.includes("nameserver"));
    return t.includes("nameserver") ? t : undefined;
  }, `${name}'s output`, 20_000);
  return { uid, text };
}

test(`a ClusterFirst pod reads the cluster's resolver and search path at /etc/resolv.conf${skip}`, async () => {
  if (!isolated) return;
  const { uid, text } = await resolvConfOf("cluster-first", "ClusterFirst");
  expect(text).toBe("search default.svc.cluster.local svc.cluster.local cluster.local corp.example\nnameserver 10.96.0.10\noptions ndots:5\n");
  expect(readFileSync("/etc/resolv.conf", "utf8")).toBe(hostBefore);
  // deleted, the pod's copy is gone with its folder
  expect((await s.call("DELETE", "/api/v1/namespaces/default/pods/cluster-first?gracePeriodSeconds=0")).status).toBe(200);
  await until(async () => !existsSync(join(agent.rootDir, "pods", uid, "resolv.conf")) || undefined, "the pod's resolv.conf to go", 20_000);
});

test(`a Default pod reads the node's --resolv-conf${skip}`, async () => {
  if (!isolated) return;
  const { text } = await resolvConfOf("default-dns", "Default");
  expect(text).toBe("search corp.example\nnameserver 192.0.2.53\noptions timeout:1\n");
});
