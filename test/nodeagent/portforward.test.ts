// `kubectl port-forward` end to end: stock kubectl (1.20 and 1.28 over SPDY/3.1, 1.33 tunneling SPDY
// through a WebSocket) → the API server's pods/portforward → the node agent's /portForward → the pod's
// port. Data both ways, concurrent connections, a few MB intact, a Service resolved to its pod, a port
// nothing listens on (upstream's error; kubectl 1.20 keeps the tunnel up, newer builds end), and the channel protocol over a WebSocket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort } from "../helpers/server.ts";
import { ok } from "../helpers/scheduler.ts";
import { ECHO, STREAM_KUBECTLS, type StreamCluster, portForward, roundTrip, runningPod, sha, startStreamCluster, versionOf } from "../helpers/streams.ts";

const NS = "default";

let c: StreamCluster, podPort: number, closedPort: number;

beforeAll(async () => {
  c = await startStreamCluster();
  [podPort, closedPort] = [await freePort(), await freePort()];
  await ok(c.s, "POST", `/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "echo" }, ports: [{ port: 80, targetPort: podPort }] } });
  await runningPod(c, NS, "echo", { hostNetwork: true, containers: [{ name: "main", image: "python", command: ["python3", "-c", ECHO, String(podPort)], ports: [{ containerPort: podPort }] }] }, { app: "echo" });
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

test("without an upgrade, or without ports, upstream's 400s", async () => {
  expect((await c.s.call("POST", `/api/v1/namespaces/${NS}/pods/echo/portforward?ports=${podPort}`)).body).toMatchObject({ code: 400, message: "Upgrade request required" });
});
