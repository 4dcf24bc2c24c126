// `kubectl port-forward` end to end: stock kubectl (1.20 and 1.28 over SPDY/3.1, 1.33 tunneling SPDY
// through a WebSocket) → the API server's pods/portforward → the node agent's /portForward → the pod's
// port. Data both ways, concurrent connections, a few MB intact, a Service resolved to its pod, a port
// nothing listens on (upstream's error; kubectl 1.20 keeps the tunnel up, newer builds end), and the
// channel protocol over a WebSocket, SPDY tunneled through one (taken by the TLS front; kubectl 1.33 must
// not fall back to SPDY); every kubectl build (1.20, 1.27–1.33) once. Then faults of every
// stream into pods: 1,000 exec and port-forward sessions leave the API server's and the agent's descriptors and the agent's child
// processes as they were; a node agent killed mid-stream ends kubectl's exec and port-forward with an
// error and frees the API server's side (last: the agent stays dead).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { until } from "../helpers/component.ts";
import { freePort } from "../helpers/server.ts";
import { ok } from "../helpers/scheduler.ts";
import { pingFrame } from "../../pkg/streaming/spdy/frames.ts";
import { TUNNELED_PORTFORWARD_PROTOCOL } from "../../pkg/streaming/portforward.ts";
import { ALL_KUBECTLS, echoContainer, runKubectl, STREAM_KUBECTLS, type StreamCluster, portForward, roundTrip, runningPod, sha, startKubectl, startStreamCluster, versionOf } from "../helpers/streams.ts";

const NS = "default";
const [OLD, NEW] = [STREAM_KUBECTLS[0], STREAM_KUBECTLS.at(-1)!];

let c: StreamCluster, podPort: number, closedPort: number;

beforeAll(async () => {
  c = await startStreamCluster();
  [podPort, closedPort] = [await freePort(), await freePort()];
  await ok(c.s, "POST", `/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "echo" }, ports: [{ port: 80, targetPort: podPort }] } });
  await runningPod(c, NS, "echo", { hostNetwork: true, containers: [echoContainer(podPort)] }, { app: "echo" });
});
afterAll(async () => {
  await c?.agent.stop();
  await c?.s.stop();
});


const forward = (bin: string, target: string, remote: number) => portForward(c.s, bin, NS, target, remote);

for (const bin of STREAM_KUBECTLS) {
  describe(`kubectl ${versionOf(bin)}`, () => {
    test("pod/x: data both ways, concurrent connections, a few MB intact", async () => {
      const { local, k } = await forward(bin, "pod/echo", podPort);
      try {
        const replies = await Promise.all(["one", "two", "three", "four"].map((w) => roundTrip(local, Buffer.from(`hello ${w}\n`))));
        expect(replies.map(String)).toEqual(["one", "two", "three", "four"].map((w) => `hello ${w}\n`));
        const big = Buffer.alloc(4 * 1024 * 1024);
        for (let i = 0; i < big.length; i += 4) big.writeUInt32LE(i, i);
        const back = await roundTrip(local, big);
        expect(back.length).toBe(big.length);
        expect(sha(back)).toBe(sha(big));
      } finally {
        await k.stop();
      }
    });

    test("svc/x: kubectl picks the Service's pod and its target port", async () => {
      const { local, k } = await forward(bin, "svc/web", 80);
      try {
        expect(String(await roundTrip(local, Buffer.from("via the service")))).toBe("via the service");
      } finally {
        await k.stop();
      }
    });

    test("a port nothing listens on: upstream's error, reported by kubectl", async () => {
      const { local, k } = await forward(bin, "pod/echo", closedPort);
      try {
        expect((await roundTrip(local, Buffer.from("anyone?"))).length).toBe(0);
        // (1.33 logs it structured, its quotes escaped)
        await k.waitFor(new RegExp(`an error occurred forwarding ${local} -> ${closedPort}: error forwarding port ${closedPort} to pod [0-9a-f-]+, uid : failed to connect to localhost:${closedPort} inside namespace \\\\?"[0-9a-f-]+\\\\?", IPv4: dial tcp4 127.0.0.1:${closedPort}: connect: connection refused`), "kubectl's error");
        // kubectl 1.20 keeps the tunnel up for the next connection; newer builds end on the error
        if (versionOf(bin) === "1.20") {
          expect(String(await roundTrip(local, Buffer.from("")))).toBe("");
          expect(k.proc.exitCode).toBeNull();
        } else {
          await k.waitFor("lost connection to pod", "kubectl's end");
          expect(await k.proc.exited).not.toBe(0);
        }
      } finally {
        await k.stop();
      }
    });
  });
}

test("every kubectl build: exec with stdin and its exit code, and a port-forwarded connection", async () => {
  expect(ALL_KUBECTLS.length).toBeGreaterThanOrEqual(8);
  const results = await Promise.all(ALL_KUBECTLS.map(async (bin) => {
    const v = versionOf(bin);
    const [exec, echoed] = await Promise.all([
      runKubectl(c.s, bin, ["-n", NS, "exec", "-i", "echo", "--", "sh", "-c", "cat; exit 3"], `stdin of ${v}`),
      (async () => {
        const { local, k } = await forward(bin, "pod/echo", podPort);
        try {
          return String(await roundTrip(local, Buffer.from(`forwarded by ${v}`)));
        } finally {
          await k.stop();
        }
      })(),
    ]);
    return { v, out: exec.out, code: exec.code, exitMessage: exec.err.includes("command terminated with exit code 3"), echoed };
  }));
  expect(results).toEqual(ALL_KUBECTLS.map(versionOf).map((v) => ({ v, out: `stdin of ${v}`, code: 3, exitMessage: true, echoed: `forwarded by ${v}` })));
});

test("the channel protocol over a WebSocket: port prefixes, then the connection's bytes", async () => {
  const url = `${c.s.url.replace(/^https/, "wss")}/api/v1/namespaces/${NS}/pods/echo/portforward?ports=${podPort}`;
  const ws = new WebSocket(url, { protocols: ["v4.channel.k8s.io"], headers: { Authorization: "Bearer test" }, tls: { rejectUnauthorized: false } } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const got: Buffer[] = [];
  const closed = new Promise((r) => { ws.onclose = r; });
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  expect(ws.protocol).toBe("v4.channel.k8s.io");
  ws.onmessage = (e) => {
    got.push(Buffer.from(e.data as ArrayBuffer));
    if (Buffer.concat(got.filter((m) => m[0] === 0).map((m) => m.subarray(1))).toString().includes("ping")) ws.close();
  };
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from("ping")]));
  await closed;
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16LE(podPort);
  expect(got[0]).toEqual(Buffer.concat([Buffer.from([0]), prefix]));
  expect(got[1]).toEqual(Buffer.concat([Buffer.from([1]), prefix]));
  expect(Buffer.concat(got.slice(2).map((m) => m.subarray(1))).toString()).toBe("ping");
});

test("SPDY tunneled through a WebSocket (kubectl 1.31+): the subprotocol accepted by the front, SPDY frames both ways, a clean close", async () => {
  const url = `${c.s.url.replace(/^https/, "wss")}/api/v1/namespaces/${NS}/pods/echo/portforward`;
  // as a header: the WebSocket API refuses a subprotocol with a "/"
  const ws = new WebSocket(url, { headers: { Authorization: "Bearer test", "Sec-WebSocket-Protocol": TUNNELED_PORTFORWARD_PROTOCOL }, tls: { rejectUnauthorized: false } } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const got: Buffer[] = [];
  const closed = new Promise<number>((r) => { ws.onclose = (e) => r(e.code); });
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  expect(ws.protocol).toBe(TUNNELED_PORTFORWARD_PROTOCOL);
  const pings = [pingFrame(1), pingFrame(3)];
  ws.onmessage = (e) => {
    got.push(Buffer.from(e.data as ArrayBuffer));
    if (got.length === pings.length) ws.close();
  };
  // the second ping split over two messages: the tunnel is a byte stream
  ws.send(pings[0]);
  ws.send(pings[1].subarray(0, 5));
  ws.send(pings[1].subarray(5));
  expect(await closed).toBe(1000);
  expect(got).toEqual(pings);
});

test(`kubectl ${versionOf(NEW)} forwards through the WebSocket tunnel, without falling back to SPDY`, async () => {
  const local = await freePort();
  const k = startKubectl(c.s, NEW, ["-v=6", "-n", NS, "port-forward", "pod/echo", `${local}:${podPort}`]);
  try {
    await k.waitFor(`Forwarding from 127.0.0.1:${local}`, "kubectl forwarding");
    expect(String(await roundTrip(local, Buffer.from("tunneled")))).toBe("tunneled");
    expect(k.err).toContain("negotiated protocol: portforward.k8s.io");
    expect(k.err).not.toContain("fallback");
  } finally {
    await k.stop();
  }
});

/** The Python client's portforward (kubernetes.stream): the channel protocol with its port prefixes. */
const PYTHON_FORWARD = `
import sys
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config(sys.argv[1])
port = int(sys.argv[2])
pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, "echo", "default", ports=str(port))
s = pf.socket(port)
s.setblocking(True)
s.sendall(b"from python")
print(s.recv(100).decode())
s.close()
print("error:", pf.error(port))
`;
const hasPythonClient = Bun.spawnSync(["/usr/bin/python3", "-c", "import kubernetes"]).exitCode === 0;

test.skipIf(!hasPythonClient)("the Python client's portforward", async () => {
  const p = Bun.spawn(["/usr/bin/python3", "-c", PYTHON_FORWARD, c.s.kubeconfig, String(podPort)], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect({ out, err: err.slice(-500) }).toEqual({ out: "from python\nerror: None\n", err: "" });
});

test("without an upgrade, or without ports, upstream's 400s", async () => {
  expect((await c.s.call("POST", `/api/v1/namespaces/${NS}/pods/echo/portforward?ports=${podPort}`)).body).toMatchObject({ code: 400, message: "Upgrade request required" });
});

/** Opens a WebSocket to a pod's subresource as the test's admin. */
function socket(path: string, protocol: string): Promise<{ ws: WebSocket; messages: Buffer[]; closed: Promise<void> }> {
  const ws = new WebSocket(`${c.s.url.replace(/^https/, "wss")}/api/v1/namespaces/${NS}/pods/${path}`, { protocols: [protocol], headers: { Authorization: "Bearer test" }, tls: { rejectUnauthorized: false } } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const messages: Buffer[] = [];
  ws.onmessage = (e) => messages.push(Buffer.from(e.data as ArrayBuffer));
  const closed = new Promise<void>((r) => { ws.onclose = () => r(); });
  return new Promise((resolve, reject) => { ws.onopen = () => resolve({ ws, messages, closed }); ws.onerror = reject; });
}

/** One exec of `cat` over WebSocket v5: stdin in, closed, stdout back, Success on the error channel. */
async function wsExec(i: number) {
  const { ws, messages, closed } = await socket("echo/exec?command=cat&stdin=1&stdout=1", "v5.channel.k8s.io");
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(`exec ${i}`)]));
  ws.send(Buffer.from([255, 0]));
  await closed;
  expect(messages.filter((m) => m[0] === 1).map((m) => m.subarray(1).toString()).join("")).toBe(`exec ${i}`);
  expect(JSON.parse(messages.find((m) => m[0] === 3)!.subarray(1).toString()).status).toBe("Success");
}

/** One port-forward over the channel protocol: a line through the echo server and back. */
async function wsForward(i: number) {
  const { ws, messages, closed } = await socket(`echo/portforward?ports=${podPort}`, "v4.channel.k8s.io");
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(`forward ${i}`)]));
  await until(async () => (messages.filter((m) => m[0] === 0).slice(1).map((m) => m.subarray(1).toString()).join("") === `forward ${i}`) || undefined, `the echo of ${i}`);
  ws.close();
  await closed;
}

async function inBatches(n: number, width: number, f: (i: number) => Promise<unknown>) {
  for (let i = 0; i < n; i += width) await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => f(i + j)));
}

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const children = (pid: number) => readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
  try { return readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ")[1] === String(pid); } catch { return false; }
}).length;
const held = () => ({ server: fds(c.s.proc.pid), agent: fds(c.agent.proc.pid), kids: children(c.agent.proc.pid) });
const settled = (before: ReturnType<typeof held>) => until(async () => {
  const now = held();
  return (now.server <= before.server + 3 && now.agent <= before.agent + 3 && now.kids <= before.kids) || undefined;
  // (a close handshake a loaded machine left hanging ends at Bun's 30 s WebSocket close timeout)
}, `descriptors and processes back to ${JSON.stringify(before)} (now ${JSON.stringify(held())})`, 35_000);

test("1,000 exec and port-forward sessions free every descriptor and process they held", async () => {
  await wsExec(-1);
  await wsForward(-1);
  const before = held();
  // 500 execs and 400 port-forwards straight over WebSockets, side by side, 25 at a time each; and 50
  // connections through kubectl's SPDY (1.20) and 50 through SPDY tunneled in a WebSocket (1.33)
  await Promise.all([
    inBatches(500, 25, wsExec),
    inBatches(400, 25, wsForward),
    ...[OLD, NEW].map(async (bin) => {
      const { local, k } = await portForward(c.s, bin, NS, "pod/echo", podPort);
      try {
        await inBatches(50, 10, async (i) => expect(String(await roundTrip(local, Buffer.from(`via kubectl ${i}`)))).toBe(`via kubectl ${i}`));
      } finally {
        await k.stop();
      }
    }),
  ]);
  await settled(before);
}, 120_000);

test("a node agent killed mid-stream: kubectl's exec and port-forward end with an error, the API server lets go", async () => {
  const before = held();
  const execs = [OLD, NEW].map((bin) => startKubectl(c.s, bin, ["-n", NS, "exec", "echo", "--", "sh", "-c", "echo started; sleep 60"]));
  for (const e of execs) await e.waitFor("started", "the exec to run");
  const fwd = await portForward(c.s, NEW, NS, "pod/echo", podPort);
  const serverFds = fds(c.s.proc.pid);
  c.agent.proc.kill("SIGKILL");
  await c.agent.proc.exited;
  for (const e of execs) {
    expect(await e.proc.exited).not.toBe(0);
    expect(e.err).toContain("error reading from the node agent");
  }
  // a new connection through the tunnel finds no agent: kubectl says so and ends
  await roundTrip(fwd.local, Buffer.from("anyone?"));
  await fwd.k.waitFor(/could not reach the node agent|lost connection to pod/, "kubectl's error");
  await fwd.k.stop();
  await until(async () => fds(c.s.proc.pid) <= Math.min(serverFds, before.server + 3) || undefined, `the API server's descriptors back (${fds(c.s.proc.pid)} > ${before.server})`, 15_000);
});
