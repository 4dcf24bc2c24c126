// `kite up --pod-network=bridge` end to end, run whole inside a network namespace the test makes first
// (test/helpers/netns.ts): the replicas of a Deployment get their own addresses on bridge kite0, a
// headless Service's Endpoints and EndpointSlices list them, a pod resolves that Service and a ClusterIP
// one by name through the cluster DNS `kite up` runs on the bridge's address and gets an answer from a
// replica (directly, and through the service proxy's rules); scaling down shrinks the Endpoints;
// deleting everything leaves no process of the pods.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { kiteUp } from "../helpers/kite.ts";
import { IN_OWN_NETNS, ownNetnsSkipReason, runInOwnNetns } from "../helpers/netns.ts";
import { alive, containerPids } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { until } from "../helpers/scheduler.ts";
import { freePort } from "../helpers/server.ts";

if (!IN_OWN_NETNS) {
  const why = ownNetnsSkipReason();
  if (why) console.warn(`up-network.test.ts skipped: ${why}`);
  test.skipIf(why !== undefined)(`kite up's pod network and cluster DNS, tested inside a network namespace of the test's own${why ? ` (skipped: ${why})` : ""}`, async () => {
    const r = await runInOwnNetns(import.meta.path);
    console.error(r.output);
    expect(r.code).toBe(0);
  }, 150_000);
} else {
  tests();
}

function tests() {
  const POD_CIDR = "10.88.0.0/24", GATEWAY = "10.88.0.1";
  let up: Subprocess<"ignore", "pipe", "pipe">, dir: string, kubeconfig: string;
  let log = "";

  beforeAll(async () => {
    dir = tempDir("kite-up-net-");
    kubeconfig = join(dir, "kubeconfig.yaml");
    up = await kiteUp(dir, await freePort(), ["--pod-network=bridge", `--pod-cidr=${POD_CIDR}`, "--node-name=net-node"]);
    // kept for a failure's reader, and read so that a full pipe never stops the cluster
    for (const stream of [up.stdout, up.stderr]) void (async () => { for await (const chunk of stream) log += new TextDecoder().decode(chunk); })();
  }, 30_000);
  afterAll(async () => {
    up?.kill("SIGINT");
    await up?.exited;
    console.error(`kite up's log:\n${log}`);
  });

  const kubectl = async (args: string[], stdin?: string) => {
    const p = Bun.spawn(["kubectl", `--kubeconfig=${kubeconfig}`, ...args], { stdin: stdin ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, out, err };
  };
  const json = async (args: string[]) => {
    const r = await kubectl([...args, "-o", "json"]);
    return r.code === 0 ? JSON.parse(r.out) : undefined;
  };
  const addresses = async () => {
    const eps = await json(["get", "endpoints", "web"]);
    return (eps?.subsets ?? []).flatMap((s: any) => (s.addresses ?? []).map((a: any) => a.ip)).sort();
  };
  const sliceAddresses = async () => {
    const slices = await json(["get", "endpointslices", "-l", "kubernetes.io/service-name=web"]);
    return (slices?.items ?? []).flatMap((s: any) => (s.endpoints ?? []).flatMap((e: any) => e.addresses)).sort();
  };
  const webPods = async () => (await json(["get", "pods", "-l", "app=web"]))?.items ?? [];
  const ready = (p: any) => p.status?.phase === "Running" && p.status.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");

  const manifest = [
    {
      apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" },
      spec: {
        replicas: 3, selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{
              name: "web", image: "python:3", command: ["python3", "-m", "http.server", "8080"], ports: [{ containerPort: 8080 }],
              readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
            }],
          },
        },
      },
    },
    { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { clusterIP: "None", selector: { app: "web" }, ports: [{ name: "http", port: 8080 }] } },
    { apiVersion: "v1", kind: "Service", metadata: { name: "web-ip" }, spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] } },
  ];
  const pids = new Set<number>();

  test("three replicas run Ready at their own addresses on the bridge; the headless Service's Endpoints and EndpointSlices list them", async () => {
    const applied = await kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items: manifest }));
    expect(applied.err).toBe("");
    const pods = await until(async () => {
      const items = await webPods();
      return items.length === 3 && items.every(ready) ? items : undefined;
    }, "3 web pods Running and Ready", 20_000);
    const ips = pods.map((p: any) => p.status.podIP).sort();
    for (const ip of ips) expect(ip).toMatch(/^10\.88\.0\.\d+$/);
    expect(new Set(ips).size).toBe(3);
    expect(ips).not.toContain(GATEWAY);
    await until(async () => JSON.stringify(await addresses()) === JSON.stringify(ips) || undefined, "Endpoints web to list the 3 pods", 10_000);
    await until(async () => JSON.stringify(await sliceAddresses()) === JSON.stringify(ips) || undefined, "EndpointSlices of web to list the 3 pods", 10_000);
    for (const p of pods) for (const pid of containerPids(join(dir, "agent"), p.metadata.uid, "web")) pids.add(pid);
    expect(pids.size).toBeGreaterThanOrEqual(3);
  }, 30_000);

  test("a pod resolves the Services' names through the cluster DNS on the bridge's address and gets 200 from a replica: headless, and by ClusterIP", async () => {
    await until(async () => (await json(["get", "endpoints", "web-ip"]))?.subsets?.[0]?.addresses?.length === 3 || undefined, "Endpoints web-ip to list the 3 pods", 10_000);
    // by the headless Service's name, then by the ClusterIP Service's short name (the search path), which
    // may wait a moment for the proxy's rules to follow its Endpoints
    const script = join(dir, "client.py");
    writeFileSync(script, `import time, urllib.request
print(urllib.request.urlopen("http://web.default.svc.cluster.local:8080/").status)
for attempt in range(50):
    try:
        print(urllib.request.urlopen("http://web-ip/", timeout=2).status)
        break
    except OSError as e:
        if attempt == 49: raise
        time.sleep(0.2)
`);
    const client = {
      apiVersion: "v1", kind: "Pod", metadata: { name: "client" },
      spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 1, containers: [{ name: "client", image: "python:3", command: ["sh", "-c", `cat /etc/resolv.conf; exec python3 ${script}`] }] },
    };
    expect((await kubectl(["apply", "-f", "-"], JSON.stringify(client))).code).toBe(0);
    const phase = await until(async () => {
      const p = (await json(["get", "pod", "client"]))?.status?.phase;
      return p === "Succeeded" || p === "Failed" ? p : undefined;
    }, "the client pod to finish", 20_000);
    const logs = (await kubectl(["logs", "client"])).out;
    expect(logs).toContain(`nameserver ${GATEWAY}\n`);
    expect(logs).toContain("search default.svc.cluster.local svc.cluster.local cluster.local");
    expect(logs).toContain("options ndots:5\n");
    expect(phase).toBe("Succeeded");
    expect(logs.trim().split("\n").slice(-2)).toEqual(["200", "200"]);
  }, 30_000);

  test("kubectl scale --replicas=1 shrinks the Endpoints to one address", async () => {
    expect((await kubectl(["scale", "deployment", "web", "--replicas=1"])).code).toBe(0);
    const one = await until(async () => {
      const a = await addresses();
      return a.length === 1 ? a : undefined;
    }, "Endpoints web to list 1 address", 15_000);
    await until(async () => JSON.stringify(await sliceAddresses()) === JSON.stringify(one) || undefined, "EndpointSlices of web to list 1 address", 10_000);
    const left = await until(async () => {
      const items = await webPods();
      return items.length === 1 ? items : undefined;
    }, "one web pod left", 15_000);
    expect(left[0].status.podIP).toBe(one[0]);
  }, 30_000);

  test("deleting everything leaves no process of the pods", async () => {
    const r = await kubectl(["delete", "deployment/web", "service/web", "service/web-ip", "pod/client", "--wait=true", "--timeout=20s"]);
    expect(r.err).toBe("");
    await until(async () => (await webPods()).length === 0 || undefined, "the web pods to go", 15_000);
    await until(async () => [...pids].every((pid) => !alive(pid)) || undefined, "the pods' processes to end", 10_000);
    expect((await kubectl(["get", "endpoints", "web"])).code).not.toBe(0);
  }, 30_000);
}
