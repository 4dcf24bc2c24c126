// Pods' own networks (run as root, inside a network namespace this test makes: test/helpers/netns.ts):
// replicas of one template listen on one port, each at its own podIP in the node's range; containers of
// a pod share localhost; hostNetwork pods use the host's address; a deleted pod's veth, namespace and
// address go (the address is handed out again); a restarted agent keeps every pod's address and frees
// those of pods deleted while it was down; a pod range the agent cannot use leaves pods on the host's
// network, said in the Node's Ready message.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inOwnNetns } from "../helpers/netns.ts";
import { logOutput, startNodeAgent, uniqueNodeName, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok, until } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

inOwnNetns(import.meta.path, "pods' own networks", tests);

function tests() {
  const NS = "default", NODE_CIDR = "10.77.0.0/24", PORT = 8080;
  let s: TestServer, agent: TestNodeAgent, work: string, rootDir: string;
  const name = uniqueNodeName();
  const agentArgs = ["--pod-network=bridge", "--pod-cidr=10.99.0.0/24"];
  const agents: TestNodeAgent[] = [];

  beforeAll(async () => {
    s = await startServer();
    work = tempDir("kite-net-work-");
    rootDir = tempDir("kite-net-agent-");
    // the Node's spec.podCIDR (as a node IPAM controller sets it) wins over --pod-cidr
    await ok(s, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name }, spec: { podCIDR: NODE_CIDR, podCIDRs: [NODE_CIDR] } });
    agent = await startNodeAgent(s, agentArgs, name, rootDir);
    agents.push(agent);
  });
  afterAll(async () => {
    // what the agents said, for a failure's reader
    for (const a of agents) console.error(`agent log:\n${a.output()}`);
    await agent?.stop();
    await s?.stop();
  });

  const runPod = (pod: string, containers: unknown[], spec: Record<string, unknown> = {}) =>
    ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name: pod, labels: { app: "web" } }, spec: { nodeName: agent.name, containers, terminationGracePeriodSeconds: 1, ...spec } });
  const getPod = async (pod: string) => {
    const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${pod}`);
    return r.status === 200 ? r.body : undefined;
  };
  const running = (pod: string) => until(async () => {
    const p = await getPod(pod);
    return p?.status?.phase === "Running" && p.status.podIP ? p : undefined;
  }, `${pod} Running with a podIP`, 20_000);
  const deleted = async (pod: string) => {
    await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/${pod}`);
    await until(async () => (await getPod(pod)) === undefined || undefined, `${pod} to be gone`, 20_000);
  };
  /** The body at `url`, once something answers there. */
  const body = (url: string) => until(async () => {
    try { const r = await fetch(url); return r.ok ? await r.text() : undefined; } catch { return undefined; }
  }, `an answer at ${url}`, 20_000);
  const refused = async (url: string) => { try { await fetch(url); return false; } catch { return true; } };
  const linkExists = (dev: string) => Bun.spawnSync(["ip", "link", "show", "dev", dev], { stderr: "ignore", stdout: "ignore" }).exitCode === 0;
  const vethOf = (uid: string) => `veth${new Bun.CryptoHasher("sha256").update(uid).digest("hex").slice(0, 11)}`;
  const netnsOf = (uid: string) => `/run/netns/kite-${uid}`;

  /** A replica of one template: serves its own name (the container's HOSTNAME) and status.podIP (its env) on PORT. */
  const replica = () => [{
    name: "web", image: "python:3", env: [{ name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }],
    command: ["sh", "-c", `d=${work}/$HOSTNAME; mkdir -p $d; echo $HOSTNAME $POD_IP > $d/index.html; cd $d; exec python3 -m http.server ${PORT} --bind 0.0.0.0`],
  }];

  const ips = new Map<string, string>();

  test("two replicas listen on one port in their own namespaces, each at its podIP (unique, in the Node's spec.podCIDR, in its env)", async () => {
    await runPod("web-0", replica());
    await runPod("web-1", replica());
    for (const pod of ["web-0", "web-1"]) {
      const p = await running(pod);
      expect(p.status.hostIP).toBe("127.0.0.1");
      expect(p.status.podIP).toMatch(/^10\.77\.0\.\d+$/);
      expect(p.status.podIP).not.toBe("10.77.0.1"); // the bridge's
      expect(p.status.podIPs).toEqual([{ ip: p.status.podIP }]);
      expect(existsSync(netnsOf(p.metadata.uid))).toBe(true);
      expect(linkExists(vethOf(p.metadata.uid))).toBe(true);
      // --hairpin-mode's default, promiscuous-bridge: the pod's bridge port sends back what came in by it
      expect(Bun.spawnSync(["ip", "-d", "link", "show", "dev", vethOf(p.metadata.uid)]).stdout.toString()).toContain("hairpin on");
      expect(await body(`http://${p.status.podIP}:${PORT}/`)).toBe(`${pod} ${p.status.podIP}\n`);
      ips.set(pod, p.status.podIP);
    }
    expect(ips.get("web-0")).not.toBe(ips.get("web-1"));
    // not on the test's (the node's) own loopback
    expect(await refused(`http://127.0.0.1:${PORT}/`)).toBe(true);
    const bridge = Bun.spawnSync(["ip", "-4", "-o", "addr", "show", "dev", "kite0"]).stdout.toString();
    expect(bridge).toContain("10.77.0.1/24");
    expect(Bun.spawnSync(["ip", "-d", "link", "show", "dev", "kite0"]).stdout.toString()).toMatch(/promiscuity [1-9]/);
  }, 60_000);

  test("containers of one pod share localhost", async () => {
    writeFileSync(join(work, "client.py"), `import time, urllib.request
while True:
    try:
        print(urllib.request.urlopen("http://127.0.0.1:8081/").read().decode(), flush=True)
        break
    except OSError:
        time.sleep(0.1)
time.sleep(60)
`);
    const dir = join(work, "shared");
    const p = await runPod("pair", [
      { name: "server", image: "python:3", command: ["sh", "-c", `mkdir -p ${dir}; echo from-server > ${dir}/index.html; cd ${dir}; exec python3 -m http.server 8081 --bind 127.0.0.1`] },
      { name: "client", image: "python:3", command: ["python3", join(work, "client.py")] },
    ]);
    const log = join(rootDir, "pods", p.metadata.uid, "containers", "client", "0.log");
    await until(async () => logOutput(log).includes("from-server") || undefined, "the client to reach the server at 127.0.0.1:8081", 20_000);
    const ip = (await running("pair")).status.podIP;
    expect([...ips.values()]).not.toContain(ip);
    ips.set("pair", ip);
    // the pod's loopback is its own: the test's namespace has nothing on 127.0.0.1:8081
    expect(await refused("http://127.0.0.1:8081/")).toBe(true);
  }, 60_000);

  test("a hostNetwork pod uses the host's network: podIP is hostIP", async () => {
    const created = await runPod("host", [{ name: "c", image: "busybox", command: ["sleep", "60"] }], { hostNetwork: true });
    const p = await running("host");
    expect(p.status.podIP).toBe(p.status.hostIP);
    expect(p.status.podIPs).toEqual([{ ip: "127.0.0.1" }]);
    expect(existsSync(netnsOf(created.metadata.uid))).toBe(false);
  }, 30_000);

  test("deleting a pod removes its veth and namespace; its address goes to the next pod", async () => {
    const p = await running("web-0");
    await deleted("web-0");
    // the status written as its containers stop may already end the pod in the API server; the kernel
    // destroys the veth pair with the namespace, a moment after it is removed
    await until(async () => (!existsSync(netnsOf(p.metadata.uid)) && !linkExists(vethOf(p.metadata.uid))) || undefined, "web-0's namespace and veth to go");
    await runPod("web-2", replica());
    const again = await running("web-2");
    expect(again.status.podIP).toBe(ips.get("web-0"));
    expect(await body(`http://${again.status.podIP}:${PORT}/`)).toBe(`web-2 ${again.status.podIP}\n`);
    ips.delete("web-0");
    ips.set("web-2", again.status.podIP);
  }, 60_000);

  test("a restarted agent keeps every pod's address and frees those of pods deleted while it was down", async () => {
    const gone = await running("web-1");
    expect(await agent.stop()).toBe(0);
    // deleted at once (grace 0) while no agent runs
    await ok(s, "DELETE", `/api/v1/namespaces/${NS}/pods/web-1?gracePeriodSeconds=0`);
    agent = await startNodeAgent(s, agentArgs, name, rootDir);
    agents.push(agent);
    for (const pod of ["web-2", "pair"]) {
      const p = await until(async () => {
        const p = await getPod(pod);
        // the containers run again (the stopped agent stopped them)
        return p?.status?.containerStatuses?.every((c: any) => c.state.running && c.restartCount === 0 && c.containerID) && p.status.phase === "Running" ? p : undefined;
      }, `${pod} running again`, 20_000);
      expect(p.status.podIP).toBe(ips.get(pod));
    }
    expect(await body(`http://${ips.get("web-2")}:${PORT}/`)).toBe(`web-2 ${ips.get("web-2")}\n`);
    await until(async () => (!existsSync(netnsOf(gone.metadata.uid)) && !linkExists(vethOf(gone.metadata.uid))) || undefined, "web-1's network to go", 20_000);
    await runPod("web-3", replica());
    expect((await running("web-3")).status.podIP).toBe(ips.get("web-1"));
  }, 90_000);

  test("a pod range the agent cannot use leaves pods on the host's network, said in the log and the Node's Ready message", async () => {
    const other = uniqueNodeName();
    await ok(s, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: other }, spec: { podCIDR: "10.78.0.0/31" } });
    const second = await startNodeAgent(s, ["--pod-network=bridge", "--node-status-update-frequency=1s"], other);
    try {
      const why = `pods use the host's network: pod range 10.78.0.0/31 from the Node's spec.podCIDR: "10.78.0.0/31" is not an IPv4 CIDR with a prefix of /8 to /30`;
      const node = await until(async () => {
        const n = (await s.call("GET", `/api/v1/nodes/${other}`)).body;
        return n.status?.conditions?.find((c: any) => c.type === "Ready")?.message?.includes("host's network") ? n : undefined;
      }, "the Ready message", 20_000);
      expect(node.status.conditions.find((c: any) => c.type === "Ready")).toMatchObject({ status: "True", reason: "KubeletReady", message: `kubelet is posting ready status. ${why}` });
      expect(second.output().split(why).length - 1).toBe(1);
      await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name: "on-host" }, spec: { nodeName: other, containers: [{ name: "c", image: "busybox", command: ["sleep", "60"] }] } });
      const p = await running("on-host");
      expect(p.status.podIP).toBe("127.0.0.1");
    } finally {
      await second.stop();
    }
  }, 60_000);
}
