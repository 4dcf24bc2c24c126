// The node agent's service proxy (--proxy-mode=nftables), run as root inside a network namespace this
// test makes (test/helpers/netns.ts), so that no packet-filter rule reaches the machine's own: two server
// pods behind a ClusterIP Service (Endpoints from a real endpoint controller) answer requests to
// ClusterIP:port from the node and from a client pod's namespace, spread round-robin; sessionAffinity
// ClientIP pins a client to one; a NodePort Service answers on the node's address; a deleted Service's
// rules go, and a Service with no ready endpoint is refused at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startComponent, until, type TestComponent } from "../helpers/component.ts";
import { inOwnNetns } from "../helpers/netns.ts";
import { startNodeAgent, uniqueNodeName, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

inOwnNetns(import.meta.path, "the service proxy", tests, { why: Bun.which("nft") ? undefined : `nftables' "nft" is not in $PATH` });

function tests() {
  const NS = "default", PORT = 8080;
  let s: TestServer, agent: TestNodeAgent, manager: TestComponent, work: string;

  beforeAll(async () => {
    s = await startServer();
    work = tempDir("kite-proxy-work-");
    manager = await startComponent(["controller-manager", `--kubeconfig=${s.kubeconfig}`, "--leader-elect=false", "--controllers=endpoint"], "the manager to start", async () => manager === undefined, 10_000);
    agent = await startNodeAgent(s, ["--pod-network=bridge", "--pod-cidr=10.78.0.0/24", "--proxy-mode=nftables"], uniqueNodeName());
    // as a host's default route would: the node's own packets to a cluster IP need a route before NAT
    // (once the agent has made its bridge, a moment after the Node registers)
    await until(async () => Bun.spawnSync(["ip", "route", "replace", "default", "dev", "kite0"], { stderr: "ignore" }).exitCode === 0 || undefined, "a default route via kite0");
    // a client making a new connection per request, so that each is proxied anew
    writeFileSync(join(work, "get.py"), `import sys, urllib.request
for _ in range(int(sys.argv[2])):
    try:
        print(urllib.request.urlopen(sys.argv[1], timeout=3).read().decode().strip(), flush=True)
    except OSError as e:
        print("error", e, flush=True)
`);
    for (const pod of ["web-a", "web-b"]) {
      await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, {
        apiVersion: "v1", kind: "Pod", metadata: { name: pod, labels: { app: "web" } },
        spec: {
          nodeName: agent.name, terminationGracePeriodSeconds: 1,
          containers: [{ name: "web", image: "python:3", ports: [{ containerPort: PORT }], command: ["sh", "-c", `d=${work}/$HOSTNAME; mkdir -p $d; echo $HOSTNAME > $d/index.html; cd $d; exec python3 -m http.server ${PORT} --bind 0.0.0.0`] }],
        },
      });
    }
    await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1", kind: "Pod", metadata: { name: "client" },
      spec: { nodeName: agent.name, terminationGracePeriodSeconds: 1, containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"] }] },
    });
  }, 60_000);
  afterAll(async () => {
    console.error(`agent log:\n${agent?.output()}`);
    await agent?.stop();
    await manager?.stop();
    await s?.stop();
  });

  const service = (name: string, spec: Record<string, unknown>) =>
    ok(s, "POST", `/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: PORT }], ...spec } });
  /** The bodies of `n` requests to `url`, each on a new connection, from the node or from inside `netns`. */
  const get = (url: string, n: number, netns?: string) => {
    const cmd = [...(netns ? ["nsenter", `--net=${netns}`] : []), "python3", join(work, "get.py"), url, String(n)];
    return Bun.spawnSync(cmd).stdout.toString().trim().split("\n");
  };
  const table = () => Bun.spawnSync(["nft", "list", "table", "ip", "kite"]).stdout.toString();
  const netnsOf = async (pod: string) => `/run/netns/kite-${(await ok(s, "GET", `/api/v1/namespaces/${NS}/pods/${pod}`)).metadata.uid}`;
  const readyEndpoints = (name: string) => until(async () => {
    const r = await s.call("GET", `/api/v1/namespaces/${NS}/endpoints/${name}`);
    return r.body?.subsets?.[0]?.addresses?.length === 2 ? r.body : undefined;
  }, `Endpoints ${name} with both pods ready`, 30_000);
  /** Requests until both backends have answered (the rules are written a moment after the Endpoints change). */
  const answered = (url: string, netns?: string) => until(async () => {
    const bodies = get(url, 6, netns);
    return bodies.every((b) => b === "web-a" || b === "web-b") ? bodies : undefined;
  }, `answers at ${url}`, 20_000);

  let clusterIP = "";

  test("requests to ClusterIP:port from the node and from a pod reach both ready pods, round-robin", async () => {
    clusterIP = (await service("web", {})).spec.clusterIP;
    await readyEndpoints("web");
    const fromNode = await answered(`http://${clusterIP}/`);
    expect(new Set(fromNode)).toEqual(new Set(["web-a", "web-b"]));
    // round-robin: no backend twice in a row
    for (let i = 1; i < fromNode.length; i++) expect(fromNode[i]).not.toBe(fromNode[i - 1]);
    const fromPod = await answered(`http://${clusterIP}/`, await netnsOf("client"));
    expect(new Set(fromPod)).toEqual(new Set(["web-a", "web-b"]));
    // a backend reaching its own Service (hairpin) is answered too
    const hairpin = await answered(`http://${clusterIP}/`, await netnsOf("web-a"));
    expect(new Set(hairpin)).toEqual(new Set(["web-a", "web-b"]));
    expect(table()).toContain(`comment "${NS}/web:"`);
  }, 60_000);

  test("sessionAffinity ClientIP pins each client to one pod", async () => {
    const ip = (await service("sticky", { sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } })).spec.clusterIP;
    await readyEndpoints("sticky");
    const fromNode = await answered(`http://${ip}/`);
    expect(new Set(fromNode).size).toBe(1);
    const fromPod = await answered(`http://${ip}/`, await netnsOf("client"));
    expect(new Set(fromPod).size).toBe(1);
    expect(table()).toContain("timeout 1m");
  }, 60_000);

  test("a NodePort Service answers on the node's address at its node port", async () => {
    const svc = await service("web-np", { type: "NodePort" });
    const nodePort = svc.spec.ports[0].nodePort;
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    await readyEndpoints("web-np");
    // the node's address is --node-ip 127.0.0.1; the bridge's is the node's too
    expect(new Set(await answered(`http://127.0.0.1:${nodePort}/`))).toEqual(new Set(["web-a", "web-b"]));
    expect(new Set(await answered(`http://10.78.0.1:${nodePort}/`, await netnsOf("client")))).toEqual(new Set(["web-a", "web-b"]));
  }, 60_000);

  test("a Service with no ready endpoint is refused; a deleted Service's rules go", async () => {
    const empty = (await service("nobody", { selector: { app: "none" } })).spec.clusterIP;
    await until(async () => table().includes(`comment "${NS}/nobody:"`) || undefined, "the reject rule of nobody");
    expect(get(`http://${empty}/`, 1)[0]).toMatch(/^error .*refused/);

    await ok(s, "DELETE", `/api/v1/namespaces/${NS}/services/web`);
    await until(async () => !table().includes(`comment "${NS}/web:"`) || undefined, "the rules of web to go", 20_000);
    const rules = table();
    expect(rules).not.toContain(clusterIP);
    expect(rules).toContain(`comment "${NS}/web-np:"`);
    expect(get(`http://${clusterIP}/`, 1)[0]).toMatch(/^error/);
  }, 60_000);
}
