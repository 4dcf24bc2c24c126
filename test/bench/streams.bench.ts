// Streams into pods (issue 19 item 7): `kubectl exec pod -- true` round trips (kubectl 1.20 over SPDY, 1.33
// over WebSocket) and the same exec as a raw WebSocket (v5.channel.k8s.io, no kubectl start-up), p50/p99;
// then port-forward throughput against a direct TCP connection to the pod's port on the same run: MB
// through an echo server and back, direct and through `kubectl port-forward` (1.20: SPDY; 1.33: SPDY
// tunneled through a WebSocket).
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/streams.bench.ts   (N_EXEC, N_WS, MB override)
import { readFileSync } from "node:fs";
import { killAll } from "../helpers/processes.ts";
import { freePort } from "../helpers/server.ts";
import { STREAM_KUBECTLS, echoContainer, portForward, roundTrip, runKubectl, runningPod, sha, startStreamCluster, versionOf } from "../helpers/streams.ts";
import { progress } from "./load.ts";

const N_EXEC = Number(process.env.N_EXEC ?? 30);
const N_WS = Number(process.env.N_WS ?? 200);
const MB = Number(process.env.MB ?? 64);
const NS = "default";

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (xs: number[]) => `${pct(xs, 50).toFixed(0)} / ${pct(xs, 99).toFixed(0)} ms`;

const c = await startStreamCluster();
const SKIP_EXEC = process.env.SKIP_EXEC === "1";
const port = await freePort();
await runningPod(c, NS, "echo", { hostNetwork: true, containers: [echoContainer(port)] });
const rows: [string, string][] = [];

for (const bin of SKIP_EXEC ? [] : [STREAM_KUBECTLS[0], STREAM_KUBECTLS.at(-1)!]) {
  progress(`kubectl ${versionOf(bin)} exec`);
  const times: number[] = [];
  for (let i = 0; i < N_EXEC; i++) {
    const t0 = performance.now();
    const r = await runKubectl(c.s, bin, ["-n", NS, "exec", "echo", "--", "true"]);
    if (r.code !== 0) throw new Error(r.err);
    times.push(performance.now() - t0);
  }
  rows.push([`\`kubectl ${versionOf(bin)} exec echo -- true\`, p50 / p99 (${N_EXEC} runs)`, ms(times)]);
}

if (!SKIP_EXEC) {
  progress("raw WebSocket exec");
  const url = `${c.s.url.replace(/^https/, "wss")}/api/v1/namespaces/${NS}/pods/echo/exec?command=true&stdout=1`;
  const times: number[] = [];
  for (let i = 0; i < N_WS; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url, { protocols: ["v5.channel.k8s.io"], headers: { Authorization: "Bearer test" }, tls: { rejectUnauthorized: false } } as unknown as string[]);
      ws.onclose = () => resolve();
      ws.onerror = reject;
    });
    times.push(performance.now() - t0);
  }
  rows.push([`raw WebSocket exec of \`true\` (v5.channel.k8s.io), p50 / p99 (${N_WS} runs)`, ms(times)]);
}

const data = Buffer.alloc(MB * 1024 * 1024);
for (let i = 0; i < data.length; i += 4) data.writeUInt32LE((i * 2654435761) >>> 0, i);
/** CPU seconds a process has used. */
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) / 100; };
const throughput = async (to: number, pids: number[] = []) => {
  const cpu0 = pids.map(cpu);
  const t0 = performance.now();
  const back = await roundTrip(to, data);
  const s = (performance.now() - t0) / 1000;
  if (sha(back) !== sha(data)) throw new Error("the data came back changed");
  if (pids.length) progress(`  CPU seconds (API server, agent, kubectl): ${pids.map((p, i) => (cpu(p) - cpu0[i]).toFixed(2)).join(", ")} in ${s.toFixed(2)} s`);
  return (2 * MB) / s;
};
progress("direct TCP");
await throughput(port);
const direct = await throughput(port);
rows.push([`direct TCP to the pod's port: ${MB} MB echoed (both directions counted)`, `${direct.toFixed(0)} MB/s`]);
const FORWARDS = (process.env.FORWARDS ?? "1.20,1.33").split(",");
for (const bin of STREAM_KUBECTLS.filter((b) => FORWARDS.includes(versionOf(b)))) {
  progress(`kubectl ${versionOf(bin)} port-forward`);
  const { local, k } = await portForward(c.s, bin, NS, "pod/echo", port);
  await throughput(local);
  const through = await throughput(local, [c.s.proc.pid, c.agent.proc.pid, k.proc.pid]);
  await k.stop();
  rows.push([`\`kubectl ${versionOf(bin)} port-forward\`: the same`, `${through.toFixed(0)} MB/s (${((100 * through) / direct).toFixed(0)} % of direct)`]);
}

console.log("| measure | figure |\n|---|---|");
for (const [m, f] of rows) console.log(`| ${m} | ${f} |`);
await c.agent.stop();
await c.s.stop();
killAll();
process.exit(0);
