// `kite up --pod-network=bridge` end to end (issue 17's scenario), run whole inside a network namespace the
// test makes first (test/helpers/netns.ts): a Deployment of 3 HTTP servers gets its own addresses on bridge
// kite0; a headless, a ClusterIP and a NodePort Service reach them (spread over the 3), a client
// Deployment calls them by DNS name through the cluster DNS `kite up` runs on the bridge's address; a
// rolling update keeps maxSurge/maxUnavailable at every step, `rollout undo` and `scale` work; a Job, a
// CronJob and a StatefulSet run; `kubectl drain` honours a PodDisruptionBudget; deleting everything
// leaves no process and nothing of the pods on the node.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keptLog, kiteUp } from "../helpers/kite.ts";
import { inOwnNetns } from "../helpers/netns.ts";
import { alive, containerPids } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { until } from "../helpers/scheduler.ts";
import { freePort, kubectlWith } from "../helpers/server.ts";

inOwnNetns(import.meta.path, "kite up's whole cluster with pod networks, Services and DNS", tests, { timeoutMs: 240_000 });

function tests() {
  const POD_CIDR = "10.88.0.0/24", GATEWAY = "10.88.0.1", NODE = "net-node";
  let dir: string, kubeconfig: string;
  let kept: ReturnType<typeof keptLog> | undefined;

  beforeAll(async () => {
    dir = tempDir("kite-up-net-");
    kubeconfig = join(dir, "kubeconfig.yaml");
    kept = keptLog(await kiteUp(dir, await freePort(), ["--pod-network=bridge", `--pod-cidr=${POD_CIDR}`, `--node-name=${NODE}`]));
    // as a host's default route would: the node's own packets to a cluster IP need a route before NAT
    await until(async () => Bun.spawnSync(["ip", "route", "replace", "default", "dev", "kite0"], { stderr: "ignore" }).exitCode === 0 || undefined, "a default route via kite0", 10_000);
  }, 30_000);
  afterAll(() => kept?.stop());

  const kubectl = (args: string[], stdin?: string) => kubectlWith(kubeconfig, args, stdin);
  const apply = async (...objects: object[]) => {
    const r = await kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }));
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
  };
  const json = async (args: string[]) => {
    const r = await kubectl([...args, "-o", "json"]);
    return r.code === 0 ? JSON.parse(r.out) : undefined;
  };
  const addresses = async (svc: string) => {
    const eps = await json(["get", "endpoints", svc]);
    return (eps?.subsets ?? []).flatMap((s: any) => (s.addresses ?? []).map((a: any) => a.ip)).sort();
  };
  const sliceAddresses = async () => {
    const slices = await json(["get", "endpointslices", "-l", "kubernetes.io/service-name=web"]);
    return (slices?.items ?? []).flatMap((s: any) => (s.endpoints ?? []).flatMap((e: any) => e.addresses)).sort();
  };
  const pods = async (selector: string) => (await json(["get", "pods", "-l", selector]))?.items ?? [];
  const ready = (p: any) => p.status?.phase === "Running" && p.status.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");
  const live = (p: any) => !p.metadata.deletionTimestamp && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed";
  /** The bodies of `n` requests, each on a new connection (the proxy picks a backend per connection). */
  const ask = async (url: string, n: number) => {
    const bodies: string[] = [];
    for (let i = 0; i < n; i++) bodies.push(await (await fetch(url, { headers: { connection: "close" } })).text());
    return bodies;
  };

  // Each replica answers with its name and its template's VERSION: which pod answered, and from which rollout.
  const server = () => {
    const f = join(dir, "server.py");
    writeFileSync(f, `import http.server, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = (os.environ["POD_NAME"] + " " + os.environ["VERSION"]).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
http.server.HTTPServer(("", 8080), H).serve_forever()
`);
    return f;
  };
  const web = (version: string) => ({
    apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" },
    spec: {
      replicas: 3, selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{
            name: "web", image: "python:3", command: ["python3", server()], ports: [{ containerPort: 8080 }],
            env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }, { name: "VERSION", value: version }],
            readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
          }],
        },
      },
    },
  });
  const services = [
    { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { clusterIP: "None", selector: { app: "web" }, ports: [{ name: "http", port: 8080 }] } },
    { apiVersion: "v1", kind: "Service", metadata: { name: "web-ip" }, spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] } },
    { apiVersion: "v1", kind: "Service", metadata: { name: "web-np" }, spec: { type: "NodePort", selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] } },
  ];
  // A CronJob made first, checked near the end: its schedule fires once a minute.
  const cronjob = {
    apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "tick" },
    spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 1, containers: [{ name: "tick", image: "busybox", command: ["echo", "tick"] }] } } } } },
  };
  const pids = new Set<number>();
  const track = (items: any[], container: string) => {
    for (const p of items) for (const pid of containerPids(join(dir, "agent"), p.metadata.uid, container)) pids.add(pid);
  };

  test("three replicas run Ready at their own addresses on the bridge; the headless Service's Endpoints and EndpointSlices list them", async () => {
    await apply(cronjob, web("1"), ...services);
    const items = await until(async () => {
      const items = await pods("app=web");
      return items.length === 3 && items.every(ready) ? items : undefined;
    }, "3 web pods Running and Ready", 20_000);
    const ips = items.map((p: any) => p.status.podIP).sort();
    for (const ip of ips) expect(ip).toMatch(/^10\.88\.0\.\d+$/);
    expect(new Set(ips).size).toBe(3);
    expect(ips).not.toContain(GATEWAY);
    await until(async () => JSON.stringify(await addresses("web")) === JSON.stringify(ips) || undefined, "Endpoints web to list the 3 pods", 10_000);
    await until(async () => JSON.stringify(await sliceAddresses()) === JSON.stringify(ips) || undefined, "EndpointSlices of web to list the 3 pods", 10_000);
    track(items, "web");
    expect(pids.size).toBeGreaterThanOrEqual(3);
  }, 30_000);

  test("the ClusterIP and the NodePort answer, spreading requests over the 3 replicas", async () => {
    await until(async () => (await addresses("web-np")).length === 3 || undefined, "Endpoints web-np to list the 3 pods", 10_000);
    const ip = (await json(["get", "service", "web-ip"])).spec.clusterIP;
    const nodePort = (await json(["get", "service", "web-np"])).spec.ports[0].nodePort;
    const names = (await pods("app=web")).map((p: any) => `${p.metadata.name} 1`).sort();
    for (const url of [`http://${ip}/`, `http://127.0.0.1:${nodePort}/`]) {
      // the proxy's rules follow the Endpoints a moment later
      await until(async () => { try { return (await ask(url, 1)).length === 1 || undefined; } catch { return undefined; } }, `${url} to answer`, 10_000);
      const seen = new Set(await ask(url, 30));
      expect([...seen].sort()).toEqual(names);
    }
  }, 30_000);

  test("a client Deployment resolves the Services' names through the cluster DNS on the bridge's address and gets answers", async () => {
    const script = join(dir, "client.py");
    writeFileSync(script, `import time, urllib.request
print(open("/etc/resolv.conf").read(), flush=True)
print("headless", urllib.request.urlopen("http://web.default.svc.cluster.local:8080/", timeout=2).read().decode(), flush=True)
while True:
    try:
        print("clusterip", urllib.request.urlopen("http://web-ip/", timeout=2).read().decode(), flush=True)
    except OSError as e:
        print("error", e, flush=True)
    time.sleep(0.5)
`);
    await apply({
      apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "client" },
      spec: {
        replicas: 1, selector: { matchLabels: { app: "client" } },
        template: { metadata: { labels: { app: "client" } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "client", image: "python:3", command: ["python3", script] }] } },
      },
    });
    const logs = await until(async () => {
      const out = (await kubectl(["logs", "deployment/client"])).out;
      return /^clusterip web-/m.test(out) ? out : undefined;
    }, "the client to reach web-ip by name", 20_000);
    expect(logs).toContain(`nameserver ${GATEWAY}\n`);
    expect(logs).toContain("search default.svc.cluster.local svc.cluster.local cluster.local");
    expect(logs).toContain("options ndots:5\n");
    expect(logs).toMatch(/^headless web-\S+ 1$/m);
    track(await pods("app=client"), "client");
  }, 30_000);

  test("a rolling update keeps maxSurge 1 / maxUnavailable 0 at every step, and `kubectl rollout status` returns 0", async () => {
    const status = kubectl(["rollout", "status", "deployment/web", "--timeout=60s"]);
    let done = false;
    const steps: string[] = [];
    const watch = (async () => {
      while (!done) {
        const items = (await pods("app=web")).filter(live);
        const readyCount = items.filter(ready).length;
        steps.push(`${items.length} live, ${readyCount} ready`);
        expect(items.length).toBeLessThanOrEqual(4); // replicas + maxSurge
        expect(readyCount).toBeGreaterThanOrEqual(3); // replicas - maxUnavailable
      }
    })();
    await apply(web("2"));
    const s = await kubectl(["rollout", "status", "deployment/web", "--timeout=60s"]);
    expect(s.code).toBe(0);
    expect((await status).code).toBe(0);
    done = true;
    await watch;
    expect(steps.some((x) => x.startsWith("4 live"))).toBe(true); // a surge was seen
    const ip = (await json(["get", "service", "web-ip"])).spec.clusterIP;
    await until(async () => (await ask(`http://${ip}/`, 6)).every((b) => b.endsWith(" 2")) || undefined, "every answer from version 2", 10_000);
    track(await pods("app=web"), "web");
  }, 75_000);

  test("`kubectl rollout undo` brings version 1 back; `kubectl scale --replicas=1` shrinks the Endpoints to one address", async () => {
    expect((await kubectl(["rollout", "undo", "deployment/web"])).code).toBe(0);
    expect((await kubectl(["rollout", "status", "deployment/web", "--timeout=60s"])).code).toBe(0);
    const ip = (await json(["get", "service", "web-ip"])).spec.clusterIP;
    await until(async () => (await ask(`http://${ip}/`, 6)).every((b) => b.endsWith(" 1")) || undefined, "every answer from version 1 again", 10_000);
    track(await pods("app=web"), "web");
    expect((await kubectl(["scale", "deployment", "web", "--replicas=1"])).code).toBe(0);
    const one = await until(async () => {
      const a = await addresses("web");
      return a.length === 1 ? a : undefined;
    }, "Endpoints web to list 1 address", 15_000);
    await until(async () => JSON.stringify(await sliceAddresses()) === JSON.stringify(one) || undefined, "EndpointSlices of web to list 1 address", 10_000);
    const left = await until(async () => {
      const items = (await pods("app=web")).filter(live);
      return items.length === 1 && ready(items[0]) ? items : undefined;
    }, "one web pod left", 15_000);
    expect(left[0].status.podIP).toBe(one[0]);
  }, 90_000);

  test("a Job of 5 completions runs at most 2 pods at a time and completes", async () => {
    await apply({
      apiVersion: "batch/v1", kind: "Job", metadata: { name: "five" },
      spec: { completions: 5, parallelism: 2, template: { spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 1, containers: [{ name: "work", image: "busybox", command: ["sleep", "0.3"] }] } } },
    });
    const job = await until(async () => {
      const running = (await pods("job-name=five")).filter(live).length;
      expect(running).toBeLessThanOrEqual(2);
      const j = await json(["get", "job", "five"]);
      return j?.status?.succeeded === 5 ? j : undefined;
    }, "the Job to complete 5 pods", 40_000);
    expect(job.status.conditions?.find((c: any) => c.type === "Complete")?.status).toBe("True");
    expect((await pods("job-name=five")).filter((p: any) => p.status.phase === "Succeeded").length).toBe(5);
  }, 45_000);

  test("a StatefulSet of 3 starts its pods in order, each after the one before is Ready", async () => {
    await apply(
      { apiVersion: "v1", kind: "Service", metadata: { name: "db" }, spec: { clusterIP: "None", selector: { app: "db" }, ports: [{ port: 5432 }] } },
      {
        apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "db" },
        spec: {
          replicas: 3, serviceName: "db", selector: { matchLabels: { app: "db" } },
          template: { metadata: { labels: { app: "db" } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "db", image: "busybox", command: ["sleep", "3600"], readinessProbe: { exec: { command: ["true"] }, periodSeconds: 1 } }] } },
        },
      },
    );
    const items = await until(async () => {
      const items = await pods("app=db");
      const byOrdinal = new Map<number, any>(items.map((p: any) => [Number(p.metadata.name.split("-").pop()), p]));
      // OrderedReady: pod N exists only once pod N-1 is Ready
      for (const [n] of byOrdinal) if (n > 0) expect(ready(byOrdinal.get(n - 1))).toBe(true);
      return items.length === 3 && items.every(ready) ? items : undefined;
    }, "db-0, db-1, db-2 Ready", 30_000);
    expect(items.map((p: any) => p.metadata.name).sort()).toEqual(["db-0", "db-1", "db-2"]);
    track(items, "db");
  }, 40_000);

  test("the CronJob fires: its Job runs to completion", async () => {
    const job = await until(async () => {
      const jobs = (await json(["get", "jobs"]))?.items ?? [];
      return jobs.find((j: any) => j.metadata.ownerReferences?.[0]?.name === "tick" && j.status?.succeeded === 1);
    }, "a completed Job of CronJob tick", 75_000);
    expect(job.metadata.name).toMatch(/^tick-\d+$/);
    const cj = await json(["get", "cronjob", "tick"]);
    expect(cj.status.lastScheduleTime).toBeTruthy();
  }, 80_000);

  test("`kubectl drain` stops at a PodDisruptionBudget it would violate, and evicts everything once it is gone", async () => {
    await apply({ apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "db" }, spec: { minAvailable: 3, selector: { matchLabels: { app: "db" } } } });
    await until(async () => (await json(["get", "pdb", "db"]))?.status?.currentHealthy === 3 || undefined, "the PDB to count 3 healthy pods", 10_000);
    const blocked = await kubectl(["drain", NODE, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=8s"]);
    expect(blocked.code).not.toBe(0);
    expect(blocked.err).toContain("Cannot evict pod as it would violate the pod's disruption budget");
    expect((await pods("app=db")).filter(live).length).toBe(3); // none of the budget's pods went
    expect((await json(["get", "node", NODE])).spec.unschedulable).toBe(true);
    expect((await kubectl(["delete", "pdb", "db"])).code).toBe(0);
    const drained = await kubectl(["drain", NODE, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=30s"]);
    expect(drained.code).toBe(0);
    expect(drained.out).toContain(`node/${NODE} drained`);
    // the controllers make new pods, which wait: the node takes none while cordoned
    const running = (await json(["get", "pods", "--field-selector", `spec.nodeName=${NODE}`]))?.items.filter((p: any) => p.status.phase === "Running") ?? [];
    expect(running.map((p: any) => p.metadata.name)).toEqual([]);
    expect((await kubectl(["uncordon", NODE])).code).toBe(0);
  }, 60_000);

  test("deleting everything leaves no process of the pods and nothing of them on the node", async () => {
    const r = await kubectl(["delete", "deployment,statefulset,job,cronjob,pod", "--all", "--wait=true", "--timeout=30s"]);
    expect(r.err).toBe("");
    expect((await kubectl(["delete", "service", "web", "web-ip", "web-np", "db"])).code).toBe(0);
    await until(async () => ((await json(["get", "pods"]))?.items ?? []).length === 0 || undefined, "every pod to go", 20_000);
    await until(async () => [...pids].every((pid) => !alive(pid)) || undefined, "the pods' processes to end", 10_000);
    await until(async () => readdirSync(join(dir, "agent", "pods")).length === 0 || undefined, "the node's pod folders to go", 10_000);
    expect((await kubectl(["get", "endpoints", "web"])).code).not.toBe(0);
  }, 45_000);
}
