// Flow control on streams into pods: a fast producer and a reader that stops reading for a while. Exec
// over a raw WebSocket (v5) and through kubectl 1.20 (SPDY via the TLS front), and a port-forward upload
// and download through kubectl 1.33 (SPDY tunneled in a WebSocket): while the readers pause, the API
// server and the agent come to rest with their memory bounded (each hop stops reading its source; `cat
// /dev/zero` would keep them busy otherwise), and once the readers read again every byte arrives.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { freePort } from "../helpers/server.ts";
import { STREAM_KUBECTLS, type StreamCluster, echoContainer, portForward, runningPod, startStreamCluster } from "../helpers/streams.ts";
import { track } from "../helpers/processes.ts";

const NS = "default";
const MB = 64;
const BYTES = MB * 1024 * 1024;
/** Idle: less than IDLE_CPU CPU seconds in IDLE_WINDOW tenths of a second. */
const IDLE_WINDOW = 5, IDLE_CPU = 0.05;
/** However loaded the machine, the buffers on the way fill well within this. */
const STALL_DEADLINE_S = 45;

let c: StreamCluster, podPort: number;

beforeAll(async () => {
  c = await startStreamCluster();
  podPort = await freePort();
  await runningPod(c, NS, "flow", { hostNetwork: true, containers: [echoContainer(podPort)] });
});
afterAll(async () => {
  await c?.agent.stop();
  await c?.s.stop();
});

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
/** CPU seconds a process has used. */
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) / 100; };

/**
 * While the readers pause: waits until the server and the agent are idle (every buffer on the way full,
 * every hop no longer reading: with `cat /dev/zero` producing, nothing else lets them rest), and returns
 * how much their RSS grew, in MB, by then (what passed until then churned the heap; what stays is held).
 */
async function untilStalled(base: { server: number; agent: number }) {
  const pids = [c.s.proc.pid, c.agent.proc.pid];
  let last = pids.map(cpu);
  for (let i = 1; ; i++) {
    await Bun.sleep(100);
    if (i % IDLE_WINDOW) continue;
    const now = pids.map(cpu);
    if (now.every((t, j) => t - last[j] < IDLE_CPU)) break;
    if (i > STALL_DEADLINE_S * 10) throw new Error(`the API server and the agent kept working for ${STALL_DEADLINE_S} s with every reader paused: some hop keeps reading`);
    last = now;
  }
  return { server: (rss(pids[0]) - base.server) >> 20, agent: (rss(pids[1]) - base.agent) >> 20 };
}

/**
 * exec of `cat /dev/zero` (no end) over a raw WebSocket, not read until `go`; then BYTES read, and the
 * client closes: resolves to the bytes read.
 */
function wsExec(go: Promise<void>): Promise<number> {
  const url = `${c.s.url.replace(/^https/, "wss")}/api/v1/namespaces/${NS}/pods/flow/exec?command=cat&command=/dev/zero&stdout=1`;
  const ws = new WebSocket(url, { protocols: ["v5.channel.k8s.io"], headers: { Authorization: "Bearer test" }, tls: { rejectUnauthorized: false } } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  ws.pause();
  void go.then(() => ws.resume());
  let n = 0;
  ws.onmessage = (e) => {
    const m = new Uint8Array(e.data as ArrayBuffer);
    if (m[0] === 1) n += m.length - 1;
    if (n >= BYTES && ws.readyState === WebSocket.OPEN) ws.close();
  };
  return new Promise((resolve, reject) => {
    ws.onclose = () => resolve(n);
    ws.onerror = reject;
  });
}

/** The same through kubectl 1.20, its stdout a pipe not read until `go`. */
async function kubectlExec(go: Promise<void>): Promise<number> {
  const p = Bun.spawn([STREAM_KUBECTLS[0], `--kubeconfig=${c.s.kubeconfig}`, "-n", NS, "exec", "flow", "--", "head", "-c", String(BYTES), "/dev/zero"], { stdout: "pipe", stderr: "pipe" });
  track(p);
  await go;
  let n = 0;
  for await (const chunk of p.stdout) n += chunk.length;
  expect(await p.exited).toBe(0);
  return n;
}

/** BYTES through kubectl 1.33's port-forward and the echo server, the reply not read until `go`. */
async function forwardEcho(go: Promise<void>): Promise<number> {
  const { local, k } = await portForward(c.s, STREAM_KUBECTLS.at(-1)!, NS, "pod/flow", podPort);
  try {
    return await new Promise<number>((resolve, reject) => {
      let n = 0;
      const sock = connect(local, "127.0.0.1", () => sock.end(Buffer.alloc(BYTES, 7)));
      sock.pause();
      void go.then(() => sock.resume());
      sock.on("data", (d: Buffer) => (n += d.length));
      sock.on("close", () => resolve(n));
      sock.on("error", reject);
    });
  } finally {
    await k.stop();
  }
}

test("readers that pause: the producers stop, memory stays bounded; then every byte arrives", async () => {
  const base = { server: rss(c.s.proc.pid), agent: rss(c.agent.proc.pid) };
  let go!: () => void;
  const resumed = new Promise<void>((r) => { go = r; });
  const streams = Promise.all([wsExec(resumed), kubectlExec(resumed), forwardEcho(resumed)]);
  const growth = await untilStalled(base);
  go();
  const [fromZero, ...exact] = await streams;
  expect(fromZero).toBeGreaterThanOrEqual(BYTES);
  expect(exact).toEqual([BYTES, BYTES]);
  // three streams held back at every hop: a few MB each, not the 64 MB (or unending) they carry
  expect(growth.server).toBeLessThan(64);
  expect(growth.agent).toBeLessThan(64);
}, 90_000);
