// `kite up --pod-network=host --proxy-mode=userspace`, run whole inside a network namespace the test makes
// (test/helpers/netns.ts) with a veth interface holding a private address and the default route, as a
// host's network card would: the node takes that address (upstream's choice: the default route's
// interface), so pods on the host's network have a non-loopback IP and their Endpoints are valid. Three
// HTTP servers on distinct host ports behind a NodePort Service: the node port and the cluster IP answer,
// spread over the 3; sessionAffinity ClientIP pins the client to one; a deleted backend gets no more
// connections.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { keptLog, kiteUp } from "../helpers/kite.ts";
import { inOwnNetns } from "../helpers/netns.ts";
import { tempDir } from "../helpers/processes.ts";
import { until } from "../helpers/scheduler.ts";
import { freePort, kubectlWith } from "../helpers/server.ts";

inOwnNetns(import.meta.path, "kite up's userspace service proxy with pods on the host's network", tests);

function tests() {
  const HOST_IP = "172.31.77.2", NODE = "proxy-node", PORTS = [18081, 18082, 18083];
  const NAMES = PORTS.map((_, i) => `web-${i}`);
  let dir: string, kubeconfig: string;
  let kept: ReturnType<typeof keptLog> | undefined;

  const sh = (cmd: string) => expect(Bun.spawnSync(["sh", "-c", cmd], { stderr: "inherit" }).exitCode).toBe(0);

  beforeAll(async () => {
    sh(`ip link add host0 type veth peer name host1 && ip addr add ${HOST_IP}/24 dev host0 && ip link set host1 up && ip link set host0 up && ip route add default dev host0`);
    dir = tempDir("kite-up-userspace-");
    kubeconfig = join(dir, "kubeconfig.yaml");
    kept = keptLog(await kiteUp(dir, await freePort(), ["--pod-network=host", "--proxy-mode=userspace", `--node-name=${NODE}`]));
  }, 30_000);
  afterAll(() => kept?.stop());

  const kubectl = (args: string[], stdin?: string) => kubectlWith(kubeconfig, args, stdin);
  const json = async (args: string[]) => {
    const r = await kubectl([...args, "-o", "json"]);
    return r.code === 0 ? JSON.parse(r.out) : undefined;
  };
  /** The Endpoints' ready ip:port pairs. */
  const endpoints = async (svc: string) => {
    const eps = await json(["get", "endpoints", svc]);
    return (eps?.subsets ?? []).flatMap((s: any) => (s.addresses ?? []).map((a: any) => `${a.ip}:${s.ports[0].port}`)).sort();
  };
  /** The bodies of `n` requests, each on a new connection (the proxy picks an endpoint per connection). */
  const ask = async (url: string, n: number) => {
    const bodies: string[] = [];
    for (let i = 0; i < n; i++) bodies.push(await (await fetch(url, { headers: { connection: "close" } })).text());
    return bodies;
  };

  test("the node takes the host's address; pods on the host's network have it and their Endpoints list them", async () => {
    const server = join(dir, "server.py");
    writeFileSync(server, `import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = os.environ["POD_NAME"].encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
http.server.HTTPServer(("", int(sys.argv[1])), H).serve_forever()
`);
    const pod = (name: string, port: number) => ({
      apiVersion: "v1", kind: "Pod", metadata: { name, labels: { app: "web" } },
      spec: {
        hostNetwork: true, terminationGracePeriodSeconds: 1,
        containers: [{
          name: "web", image: "python:3", command: ["python3", server, String(port)], ports: [{ name: "http", containerPort: port }],
          env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
          readinessProbe: { tcpSocket: { port }, periodSeconds: 1 },
        }],
      },
    });
    const service = (name: string, nodePort: number, spec: object = {}) => ({
      apiVersion: "v1", kind: "Service", metadata: { name },
      spec: { type: "NodePort", selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http", nodePort }], ...spec },
    });
    const items = [...NAMES.map((n, i) => pod(n, PORTS[i])), service("web", 30080), service("sticky", 30081, { sessionAffinity: "ClientIP" })];
    const r = await kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items }));
    expect(r.err).toBe("");
    const node = await json(["get", "node", NODE]);
    expect(node.status.addresses).toContainEqual({ type: "InternalIP", address: HOST_IP });
    const want = PORTS.map((p) => `${HOST_IP}:${p}`).sort();
    await until(async () => JSON.stringify(await endpoints("web")) === JSON.stringify(want) || undefined, "Endpoints web to list the 3 servers", 20_000);
    const pods = (await json(["get", "pods", "-l", "app=web"])).items;
    for (const p of pods) expect(p.status.podIP).toBe(HOST_IP);
  }, 30_000);

  test("the node port (on the host's address and on loopback) and the cluster IP spread requests over the 3 servers", async () => {
    const clusterIP = (await json(["get", "service", "web"])).spec.clusterIP;
    // as root the proxy makes cluster IPs local, under its own label on the loopback device
    expect(Bun.spawnSync(["ip", "-4", "addr", "show", "dev", "lo", "label", "lo:kite"]).stdout.toString()).toContain(`${clusterIP}/32`);
    for (const url of [`http://${HOST_IP}:30080/`, `http://127.0.0.1:30080/`, `http://${clusterIP}/`]) {
      const bodies = await until(async () => {
        const b = await ask(url, 6).catch(() => []);
        return b.length === 6 ? b : undefined;
      }, `answers at ${url}`, 10_000);
      // round-robin: 6 new connections reach each server twice
      expect(bodies.toSorted()).toEqual(NAMES.flatMap((n) => [n, n]).sort());
    }
  }, 30_000);

  test("sessionAffinity ClientIP sends every connection of a client to the same server", async () => {
    const bodies = await ask(`http://${HOST_IP}:30081/`, 6);
    expect(new Set(bodies).size).toBe(1);
    expect(NAMES).toContain(bodies[0]);
  }, 20_000);

  test("a deleted server gets no more connections", async () => {
    expect((await kubectl(["delete", "pod", "web-1", "--wait=false"])).code).toBe(0);
    await until(async () => (await endpoints("web")).length === 2 || undefined, "Endpoints web without web-1", 10_000);
    // the proxy syncs a moment after the Endpoints change
    await until(async () => !(await ask(`http://${HOST_IP}:30080/`, 6)).includes("web-1") || undefined, "no answer from web-1", 10_000);
    // the rotation goes on over the 2 left
    expect((await ask(`http://${HOST_IP}:30080/`, 6)).toSorted()).toEqual(["web-0", "web-0", "web-0", "web-2", "web-2", "web-2"]);
  }, 30_000);
}
