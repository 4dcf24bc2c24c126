// kite up: ready fast, writes a kubeconfig that stock kubectl uses, stops on Ctrl-C, resumes its state.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { KITE, freePort } from "../helpers/server.ts";
import { containerPids } from "../helpers/nodeagent.ts";
import { tempDir, track } from "../helpers/processes.ts";

/** `kite up`; its pods on the host's network: a test never makes bridges in the machine's own namespace. */
async function up(dir: string, port: number, extra: string[] = []) {
  const t0 = performance.now();
  const p = Bun.spawn([...KITE, "up", `--data-dir=${dir}`, `--secure-port=${port}`, "--pod-network=host", "--proxy-mode=none", "--node-ip=127.0.0.1", ...extra], { stdout: "pipe", stderr: "pipe" });
  track(p);
  const reader = p.stdout.getReader();
  let out = "";
  while (!out.includes("Ctrl-C")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`kite up exited: ${await new Response(p.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  return { p, out, ms: performance.now() - t0 };
}

const kubectl = (kubeconfig: string, args: string[]) => {
  const r = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, ...args]);
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
};

test("kite up serves kubectl through its kubeconfig, stops on SIGINT and resumes the same state", async () => {
  const dir = tempDir("kite-up-");
  const port = await freePort();
  const first = await up(dir, port);
  const kubeconfig = join(dir, "kubeconfig.yaml");
  expect(first.out).toContain(`export KUBECONFIG=${kubeconfig}`);
  expect(first.out).toContain(`https://127.0.0.1:${port}`);
  expect(kubectl(kubeconfig, ["create", "configmap", "kept", "--from-literal=a=b"]).code).toBe(0);
  first.p.kill("SIGINT");
  expect(await first.p.exited).toBe(0);

  const second = await up(dir, port);
  expect(second.ms).toBeLessThan(3000); // (the product target is ≤ 1 s; the test allows a loaded CI machine)
  const r = kubectl(kubeconfig, ["get", "configmap", "kept", "-o", "jsonpath={.data.a}"]);
  expect(r.out).toBe("b");
  second.p.kill("SIGINT");
  expect(await second.p.exited).toBe(0);
}, 60_000);

test("kite up is secure by default: the kubeconfig's certificate is a cluster admin, anyone else gets only what RBAC grants", async () => {
  const dir = tempDir("kite-up-secure-");
  const port = await freePort();
  const cluster = await up(dir, port);
  const kubeconfig = join(dir, "kubeconfig.yaml");
  try {
    const cfg = await Bun.file(kubeconfig).text();
    expect(cfg).toContain("client-certificate-data");
    expect(cfg).not.toContain("token");
    expect(kubectl(kubeconfig, ["auth", "can-i", "*", "*", "--all-namespaces"]).out.trim()).toBe("yes");
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(cfg)![1], "base64").toString();
    const anon = (path: string) => fetch(`https://127.0.0.1:${port}${path}`, { tls: { ca } } as RequestInit);
    // system:public-info-viewer lets anyone read the version and health; nothing else
    expect((await anon("/version")).status).toBe(200);
    expect((await anon("/readyz")).status).toBe(200);
    const denied = await anon("/api/v1/namespaces/default/secrets");
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { message: string }).message).toBe(`secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "default"`);
  } finally {
    cluster.p.kill("SIGINT");
    expect(await cluster.p.exited).toBe(0);
  }
}, 60_000);

test("kite up runs pods: one created with kubectl is scheduled to this machine's Node and runs as a process, kubectl logs shows its output, a Deployment and a Job run; Ctrl-C stops them", async () => {
  const dir = tempDir("kite-up-pods-");
  const port = await freePort();
  const cluster = await up(dir, port, ["--node-name=e2e-node"]);
  const kubeconfig = join(dir, "kubeconfig.yaml");
  try {
    const create = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, "create", "-f", "-"], {
      stdin: new Blob([JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "web", image: "busybox", command: ["sleep", "3600"] }] } })]),
    });
    expect(create.exitCode).toBe(0);
    let phase = "";
    for (const deadline = Date.now() + 20_000; phase !== "Running" && Date.now() < deadline; await Bun.sleep(100)) {
      phase = kubectl(kubeconfig, ["get", "pod", "web", "-o", "jsonpath={.status.phase}"]).out;
    }
    expect(phase).toBe("Running");
    expect(kubectl(kubeconfig, ["get", "pod", "web", "-o", "jsonpath={.spec.nodeName}"]).out).toBe("e2e-node");
    // the Node is the embedded agent's, registered under its own identity
    expect(kubectl(kubeconfig, ["get", "node", "e2e-node", "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}"]).out).toBe("True");
    const events = kubectl(kubeconfig, ["get", "events.events.k8s.io", "-o", "jsonpath={range .items[*]}{.reason} {.reportingController} {.note}{\"\\n\"}{end}"]).out;
    expect(events).toContain("Scheduled default-scheduler Successfully assigned default/web to e2e-node");
    // kubectl logs reaches the agent through the API server
    const created = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, "run", "hello", "--image=busybox", "--restart=Never", "--command", "--", "sh", "-c", "echo hello from kite"]);
    expect(created.exitCode).toBe(0);
    let logs = "";
    for (const deadline = Date.now() + 20_000; !logs.includes("hello from kite") && Date.now() < deadline; await Bun.sleep(200)) {
      logs = kubectl(kubeconfig, ["logs", "hello"]).out;
    }
    expect(logs).toBe("hello from kite\n");
    // the controllers run inside, each as its own ServiceAccount under RBAC: a Deployment and a Job run
    expect(kubectl(kubeconfig, ["create", "deployment", "app", "--image=busybox", "--replicas=2", "--", "sleep", "3600"]).code).toBe(0);
    expect(kubectl(kubeconfig, ["create", "job", "once", "--image=busybox", "--", "sh", "-c", "echo done"]).code).toBe(0);
    let available = "", succeeded = "";
    for (const deadline = Date.now() + 30_000; (available !== "2" || succeeded !== "1") && Date.now() < deadline; await Bun.sleep(200)) {
      available = kubectl(kubeconfig, ["get", "deployment", "app", "-o", "jsonpath={.status.availableReplicas}"]).out;
      succeeded = kubectl(kubeconfig, ["get", "job", "once", "-o", "jsonpath={.status.succeeded}"]).out;
    }
    expect([available, succeeded]).toEqual(["2", "1"]);
    // the garbage collector and the namespace controller run among them, as API clients
    expect(kubectl(kubeconfig, ["delete", "deployment", "app"]).code).toBe(0);
    // its ReplicaSet goes, and its pods are being deleted (they stop within their 30 s grace period)
    let left = "x";
    for (const deadline = Date.now() + 20_000; left && Date.now() < deadline; await Bun.sleep(200)) {
      const rs = kubectl(kubeconfig, ["get", "replicasets", "-l", "app=app", "-o", "name"]).out.trim();
      const pods = JSON.parse(kubectl(kubeconfig, ["get", "pods", "-l", "app=app", "-o", "json"]).out).items;
      const running = pods.filter((p: any) => !p.metadata.deletionTimestamp).map((p: any) => p.metadata.name).join();
      left = rs + running;
    }
    expect(left).toBe("");
    expect(kubectl(kubeconfig, ["create", "namespace", "scratch"]).code).toBe(0);
    expect(kubectl(kubeconfig, ["-n", "scratch", "create", "configmap", "c", "--from-literal=a=b"]).code).toBe(0);
    expect(kubectl(kubeconfig, ["delete", "namespace", "scratch", "--timeout=20s"]).code).toBe(0);
    expect(kubectl(kubeconfig, ["get", "namespace", "scratch"]).code).not.toBe(0);
    const uid = kubectl(kubeconfig, ["get", "pod", "web", "-o", "jsonpath={.metadata.uid}"]).out;
    const pids = containerPids(join(dir, "agent"), uid, "web");
    expect(pids.length).toBeGreaterThan(0);
    cluster.p.kill("SIGINT");
    expect(await cluster.p.exited).toBe(0);
    // the whole cluster stopped: the pod's processes too
    expect(pids.filter((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } })).toEqual([]);
  } finally {
    cluster.p.kill("SIGINT");
    await cluster.p.exited;
  }
}, 60_000);
