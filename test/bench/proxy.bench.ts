// The userspace service proxy's cost (pkg/nodeagent/proxy/tcprelay.ts, udprelay.ts) against a direct
// connection on the same run: a server process on loopback, the proxy in this process (as in the agent),
// a client process. Throughput: MB bytes from the server to the client over one connection; connections:
// N sequential connect + 1-byte exchange + close; UDP: N sequential 64-byte datagram round trips. Rounds
// alternate direct and proxied. This process's CPU while proxying is reported too.
// Run: bun test/bench/proxy.bench.ts   (MB, N, ROUNDS override)
import type { Socket } from "bun";
import { RoundRobin } from "../../pkg/nodeagent/proxy/balancer.ts";
import { listenTCP } from "../../pkg/nodeagent/proxy/tcprelay.ts";
import { listenUDP } from "../../pkg/nodeagent/proxy/udprelay.ts";

const MB = Number(process.env.MB ?? 512);
const N = Number(process.env.N ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const [role, a1, a2] = process.argv.slice(2);
const CHUNK = new Uint8Array(64 * 1024).fill(120);

if (role === "server") {
  // 'D': MB MiB then close; 'E': one byte then close. UDP: every datagram echoed.
  const send = (s: Socket<{ left: number }>) => {
    while (s.data.left > 0) {
      const want = Math.min(CHUNK.length, s.data.left);
      const n = Math.max(s.write(CHUNK.subarray(0, want)), 0);
      s.data.left -= n;
      if (n < want) return;
    }
    s.end();
  };
  const listener = Bun.listen<{ left: number }>({
    hostname: "127.0.0.1", port: 0,
    socket: {
      open(s) { s.data = { left: 0 }; },
      data(s, d) {
        if (d[0] === 69) return void (s.write("e"), s.end());
        s.data.left = MB * 1024 * 1024;
        send(s);
      },
      drain(s) { if (s.data.left > 0) send(s); },
    },
  });
  const udp = await Bun.udpSocket({ hostname: "127.0.0.1", port: 0, socket: { data(sock, d, port, address) { sock.send(d, port, address); } } });
  console.log(JSON.stringify({ tcp: listener.port, udp: udp.port }));
} else if (role === "client") {
  const port = Number(a1), udpPort = Number(a2);
  const once = (first: string) => new Promise<number>((resolve, reject) => {
    let bytes = 0;
    Bun.connect({ hostname: "127.0.0.1", port, socket: {
      open(s) { s.write(first); },
      data(_s, d) { bytes += d.length; },
      close() { resolve(bytes); },
      connectError(_s, e) { reject(e); },
    } }).catch(reject);
  });
  let t = performance.now();
  const bytes = await once("D");
  const mbps = bytes / 1024 / 1024 / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < N; i++) await once("E");
  const conns = N / ((performance.now() - t) / 1000);
  let pending: (() => void) | undefined;
  const client = await Bun.udpSocket({ socket: { data() { pending?.(); } } });
  const datagram = new Uint8Array(64);
  t = performance.now();
  for (let i = 0; i < N; i++) await new Promise<void>((resolve) => { pending = resolve; client.send(datagram, udpPort, "127.0.0.1"); });
  const udpRate = N / ((performance.now() - t) / 1000);
  client.close();
  console.log(JSON.stringify({ bytes, mbps, conns, udpRate }));
} else {
  const server = Bun.spawn(["bun", import.meta.path, "server"], { stdout: "pipe", stderr: "inherit", env: { ...process.env, MB: String(MB) } });
  const reader = server.stdout.getReader();
  const ports = JSON.parse(new TextDecoder().decode((await reader.read()).value)) as { tcp: number; udp: number };
  const tcpBalancer = new RoundRobin(), udpBalancer = new RoundRobin();
  tcpBalancer.update([{ ip: "127.0.0.1", port: ports.tcp }], 0);
  udpBalancer.update([{ ip: "127.0.0.1", port: ports.udp }], 0);
  const tcpProxy = listenTCP("127.0.0.1", 0, tcpBalancer, "bench");
  const udpProxy = await listenUDP("127.0.0.1", 0, udpBalancer, "bench");
  const run = async (tcp: number, udp: number) => {
    const p = Bun.spawn(["bun", import.meta.path, "client", String(tcp), String(udp)], { stdout: "pipe", stderr: "inherit", env: { ...process.env, N: String(N) } });
    // the client runs in its own process while this one relays: read its answer without blocking the loop
    return JSON.parse(await new Response(p.stdout).text()) as { bytes: number; mbps: number; conns: number; udpRate: number };
  };
  const rows: string[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const direct = await run(ports.tcp, ports.udp);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const proxied = await run(tcpProxy.port, udpProxy.port);
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    if (proxied.bytes !== MB * 1024 * 1024) throw new Error(`proxied ${proxied.bytes} bytes, not ${MB} MiB`);
    rows.push(`| ${r + 1} | ${direct.mbps.toFixed(0)} / ${proxied.mbps.toFixed(0)} MiB/s | ${direct.conns.toFixed(0)} / ${proxied.conns.toFixed(0)} | ${direct.udpRate.toFixed(0)} / ${proxied.udpRate.toFixed(0)} | ${(((cpu.user + cpu.system) / 1000 / wall) * 100).toFixed(0)} % |`);
  }
  console.log(`MB=${MB} N=${N}, load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`);
  console.log("| round | TCP throughput direct / proxied | connections/s direct / proxied | UDP round trips/s direct / proxied | proxy CPU while proxied |\n|---|---|---|---|---|");
  console.log(rows.join("\n"));
  tcpProxy.stop(true);
  udpProxy.stop();
  server.kill();
}
