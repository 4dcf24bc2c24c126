// What the tests of streams into pods share (exec, attach, cp, port-forward): an API server with a client
// CA (so the TLS front takes SPDY upgrades, as under `kite up`) and one node agent, the kubectl builds on
// the machine, kubectl run against the server, and pods waited for until Running.
import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { generateServingCerts } from "../../pkg/pki/certs.ts";
import { until } from "./component.ts";
import { startNodeAgent, type TestNodeAgent } from "./nodeagent.ts";
import { tempDir, track } from "./processes.ts";
import { ok } from "./scheduler.ts";
import { freePort, startServer, type TestServer } from "./server.ts";

/** 1.20 and 1.28 speak SPDY; 1.33 WebSockets (and tunnels port-forward's SPDY through one). */
export const STREAM_KUBECTLS = ["/opt/kubernetes-client-1.20/usr/bin/kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.28", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"].filter(existsSync);
export const versionOf = (bin: string) => bin.match(/1\.\d+/)![0];
/** Every kubectl build on the machine: 1.20 and 1.27–1.33. */
export const ALL_KUBECTLS = [STREAM_KUBECTLS[0], ...[27, 28, 29, 30, 31, 32, 33].map((m) => `/usr/lib/google-cloud-sdk/bin/kubectl.1.${m}`)].filter(existsSync);

export interface StreamCluster { s: TestServer; agent: TestNodeAgent }

export async function startStreamCluster(agentArgs: string[] = []): Promise<StreamCluster> {
  const ca = join(tempDir("kite-streams-"), "client-ca.crt");
  writeFileSync(ca, generateServingCerts("streams-test-ca", "unused", ["localhost"]).ca);
  const s = await startServer(["--kubelet-preferred-address-types=InternalIP,Hostname", `--client-ca-file=${ca}`]);
  const agent = await startNodeAgent(s, agentArgs);
  return { s, agent };
}

/** Creates a pod on the agent's node and waits until it runs and is ready. */
export async function runningPod(c: StreamCluster, ns: string, name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) {
  await ok(c.s, "POST", `/api/v1/namespaces/${ns}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name, labels }, spec: { nodeName: c.agent.name, terminationGracePeriodSeconds: 1, ...spec } });
  const ready = (p: any) => p?.status?.phase === "Running" && p.status.conditions?.some((x: any) => x.type === "Ready" && x.status === "True");
  await until(async () => ready((await c.s.call("GET", `/api/v1/namespaces/${ns}/pods/${name}`)).body) || undefined, `${name} running and ready`, 20_000);
}

/** Runs kubectl `bin` against the server to its end. */
export async function runKubectl(s: TestServer, bin: string, args: string[], stdin?: string | Uint8Array) {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: stdin === undefined ? "ignore" : new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
  track(p);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

/** A kubectl left running (port-forward, attach): its output so far, and its end. */
export function startKubectl(s: TestServer, bin: string, args: string[]) {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  track(p);
  let out = "", err = "";
  void (async () => { for await (const c of p.stdout) out += Buffer.from(c).toString(); })();
  void (async () => { for await (const c of p.stderr) err += Buffer.from(c).toString(); })();
  return {
    proc: p,
    get out() { return out; },
    get err() { return err; },
    /** Waits until stdout or stderr shows `want`. */
    waitFor: (want: string | RegExp, what: string, ms = 15_000) =>
      until(async () => ((typeof want === "string" ? (out + err).includes(want) : want.test(out + err)) ? true : undefined), `${what} (out: ${out} err: ${err})`, ms),
    stop: async () => { p.kill(); await p.exited; },
  };
}

/** A python3 program (argv: the port): echoes each connection's bytes until the client half-closes, then closes. */
export const ECHO = `
import socket, sys, threading
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1]))); srv.listen(64)
def serve(c):
    while True:
        b = c.recv(65536)
        if not b: break
        c.sendall(b)
    c.close()
while True:
    threading.Thread(target=serve, args=(srv.accept()[0],), daemon=True).start()
`;

/** The container of a pod that runs ECHO on `port`, ready once it listens. */
export const echoContainer = (port: number) => ({
  name: "main", image: "python", command: ["python3", "-c", ECHO, String(port)], ports: [{ containerPort: port }],
  // on the pod's localhost (where ECHO listens; a tcpSocket probe would dial the pod's IP)
  readinessProbe: { exec: { command: ["python3", "-c", `import socket; socket.create_connection(("127.0.0.1", ${port})).close()`] }, periodSeconds: 1 },
});

/** Sends `data` through 127.0.0.1:port, half-closes, and resolves to what came back before the close. */
export function roundTrip(port: number, data: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const got: Buffer[] = [];
    const sock = connect(port, "127.0.0.1", () => sock.end(data));
    sock.on("data", (d: Buffer) => got.push(d));
    sock.on("close", () => resolve(Buffer.concat(got)));
    sock.on("error", reject);
  });
}

export const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** `kubectl port-forward TARGET LOCAL:remote` on a free local port, once it forwards. */
export async function portForward(s: TestServer, bin: string, ns: string, target: string, remote: number) {
  const local = await freePort();
  const k = startKubectl(s, bin, ["-n", ns, "port-forward", target, `${local}:${remote}`]);
  await k.waitFor(`Forwarding from 127.0.0.1:${local}`, "kubectl forwarding");
  return { local, k };
}
