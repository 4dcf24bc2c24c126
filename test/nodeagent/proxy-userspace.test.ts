// The node agent's userspace service proxy chosen by --proxy-mode=auto where the packet filter cannot be
// used, run inside a network namespace this test makes (test/helpers/netns.ts) with a veth address as the
// node's: the agent runs with only `sh` and `perl` (its container shim) in its $PATH (so neither `nft` nor `ip`), as on a host without nftables where it
// may not add cluster IPs either, so it says so in the Node's Ready message and serves node ports and a
// proxy port per Service port on 127.0.0.1 (named in its log). Behind hand-written Endpoints (Services
// without selectors): TCP connections go round-robin and fall over from an endpoint that refuses; UDP
// clients' datagrams reach both echo servers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { inOwnNetns } from "../helpers/netns.ts";
import { startNodeAgent, uniqueNodeName, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { ok } from "../helpers/scheduler.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/component.ts";

inOwnNetns(import.meta.path, "the userspace service proxy chosen without nftables", tests);

function tests() {
  const HOST_IP = "172.31.78.2", NS = "default";
  let s: TestServer, agent: TestNodeAgent;
  const servers: Server<undefined>[] = [];
  const echoes: { close(): void }[] = [];
  let dead = 0;

  beforeAll(async () => {
    expect(Bun.spawnSync(["sh", "-c", `ip link add host0 type veth peer name host1 && ip addr add ${HOST_IP}/24 dev host0 && ip link set host1 up && ip link set host0 up`]).exitCode).toBe(0);
    s = await startServer();
    for (const name of ["a", "b"]) servers.push(Bun.serve({ hostname: HOST_IP, port: 0, fetch: () => new Response(name) }));
    for (const name of ["u1", "u2"]) {
      echoes.push(await Bun.udpSocket({ hostname: HOST_IP, port: 0, socket: { data(sock, _d, port, address) { sock.send(name, port, address); } } }));
    }
    dead = await freePort();
    const service = (name: string, protocol: string, nodePort: number) => ok(s, "POST", `/api/v1/namespaces/${NS}/services`, {
      apiVersion: "v1", kind: "Service", metadata: { name }, spec: { type: "NodePort", ports: [{ name: "p", protocol, port: 80, nodePort }] },
    });
    const endpoints = (name: string, protocol: string, ports: number[]) => ok(s, "POST", `/api/v1/namespaces/${NS}/endpoints`, {
      apiVersion: "v1", kind: "Endpoints", metadata: { name }, subsets: ports.map((port) => ({ addresses: [{ ip: HOST_IP }], ports: [{ name: "p", protocol, port }] })),
    });
    await service("web", "TCP", 30090);
    await endpoints("web", "TCP", [...servers.map((x) => x.port!), dead]);
    await service("echo", "UDP", 30091);
    await endpoints("echo", "UDP", echoes.map((e) => (e as unknown as { port: number }).port));
    // a host without nftables, where the agent may not add addresses either
    const path = process.env.PATH;
    const bin = tempDir("kite-path-");
    for (const tool of ["sh", "perl"]) symlinkSync(Bun.which(tool)!, join(bin, tool));
    process.env.PATH = bin;
    try {
      agent = await startNodeAgent(s, ["--proxy-mode=auto", `--node-ip=${HOST_IP}`, "--node-status-update-frequency=1s"], uniqueNodeName());
    } finally {
      process.env.PATH = path;
    }
  }, 30_000);
  afterAll(async () => {
    await agent?.stop();
    for (const x of servers) x.stop(true);
    for (const e of echoes) e.close();
    await s?.stop();
  });

  /** The bodies of `n` requests to `url`, each on a new connection. */
  const ask = async (url: string, n: number) => {
    const bodies: string[] = [];
    for (let i = 0; i < n; i++) bodies.push(await (await fetch(url, { headers: { connection: "close" } })).text());
    return bodies;
  };

  test("the Node's Ready message and the log say the proxy is in userspace and what it cannot route", async () => {
    const ready = await until(async () => {
      const node = await ok(s, "GET", `/api/v1/nodes/${agent.name}`);
      return node.status?.conditions?.find((c: any) => c.type === "Ready" && c.message?.includes("service proxy"));
    }, "the Node's Ready condition to mention the service proxy", 10_000);
    expect(ready.message).toContain(`service proxy: userspace (nftables' "nft" is not in $PATH), routing node ports on every node address and, as cluster IPs cannot be bound ("ip" is not in $PATH), a proxy port per Service port on 127.0.0.1`);
  }, 20_000);

  test("the node port and the proxy port spread TCP connections over the endpoints, falling over from one that refuses", async () => {
    const proxyPort = await until(async () => Number(/default\/web:p\/tcp at proxy port 127\.0\.0\.1:(\d+)/.exec(agent.output())?.[1]) || undefined, "the proxy port in the log", 10_000);
    for (const url of [`http://127.0.0.1:30090/`, `http://${HOST_IP}:30090/`, `http://127.0.0.1:${proxyPort}/`]) {
      const bodies = await until(async () => {
        const b = await ask(url, 6).catch(() => []);
        return b.length === 6 ? b : undefined;
      }, `answers at ${url}`, 10_000);
      expect(new Set(bodies)).toEqual(new Set(["a", "b"]));
    }
  }, 30_000);

  test("UDP datagrams of new clients go round-robin to the echo servers, replies come back from the node port", async () => {
    const replies = new Set<string>();
    await until(async () => {
      const client = await Bun.udpSocket({ socket: { data(_s, d) { replies.add(d.toString()); } } });
      client.send("hi", 30091, "127.0.0.1");
      await Bun.sleep(50);
      client.close();
      return replies.size === 2 || undefined;
    }, "replies from both echo servers", 10_000);
    expect(replies).toEqual(new Set(["u1", "u2"]));
  }, 20_000);
}
