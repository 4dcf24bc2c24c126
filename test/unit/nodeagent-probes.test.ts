// The node agent's probes and hooks against real processes and a loopback HTTP server: exec (exit code,
// output, timeout), httpGet (status ranges, headers, redirects, errors in Go's words), tcpSocket, named
// ports; the probe worker's thresholds; lifecycle hook failure messages; termination messages.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { runHook } from "../../pkg/nodeagent/hooks.ts";
import { type ContainerTarget, probeURL, resolvePort, runProbe } from "../../pkg/nodeagent/probes/handler.ts";
import { ProbeWorker } from "../../pkg/nodeagent/probes/worker.ts";
import { logTail, terminationMessage } from "../../pkg/nodeagent/termination.ts";
import { until } from "../helpers/component.ts";
import { tempDir } from "../helpers/processes.ts";

let http: ReturnType<typeof Bun.serve>, other: ReturnType<typeof Bun.serve>;
const seen: Record<string, string>[] = [];
const dir = tempDir("kite-probes-");

beforeAll(() => {
  other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("elsewhere", { status: 200 }) });
  http = Bun.serve({
    hostname: "127.0.0.1", port: 0,
    fetch(req) {
      const u = new URL(req.url);
      seen.push(Object.fromEntries(req.headers));
      if (u.pathname === "/ok") return new Response("fine");
      if (u.pathname === "/bad") return new Response("no", { status: 503 });
      if (u.pathname === "/hop") return new Response(null, { status: 302, headers: { location: "/ok" } });
      if (u.pathname === "/loop") return new Response(null, { status: 302, headers: { location: "/loop" } });
      if (u.pathname === "/away") return new Response("moved", { status: 302, headers: { location: `http://localhost:${other.port}/` } });
      return new Response("?", { status: 404 });
    },
  });
});
afterAll(() => { http.stop(true); other.stop(true); });

const pod = { metadata: { name: "p", namespace: "ns", uid: "u1" }, spec: {} };
const target = (container: object = { name: "c" }): ContainerTarget => ({
  pod, container: { name: "c", ...container }, podIP: "127.0.0.1", signal: new AbortController().signal,
  process: { env: { PATH: "/usr/bin:/bin", GREETING: "hi" }, workingDir: dir },
});

test("ports by number, by a container port's name, or a number in a string", () => {
  const c = { ports: [{ name: "web", containerPort: 8080 }] };
  expect(resolvePort(80, c)).toBe(80);
  expect(resolvePort("web", c)).toBe(8080);
  expect(resolvePort("81", c)).toBe(81);
  expect(resolvePort("db", c)).toEqual({ error: "port db not found" });
  expect(resolvePort(0, c)).toEqual({ error: "invalid port number: 0" });
  expect(probeURL("https", "::1", 8443, "/healthz?x=1").href).toBe("https://[::1]:8443/healthz?x=1");
  expect(probeURL("http", "10.0.0.1", 8080).href).toBe("http://10.0.0.1:8080/");
  expect(probeURL("http", "10.0.0.1", 8080, "ready").href).toBe("http://10.0.0.1:8080/ready");
});

test("exec: exit 0 succeeds, else fails with stdout then stderr; $(VAR) from the spec's env values, run in workingDir; a timeout kills it", async () => {
  const withEnv = target({ env: [{ name: "GREETING", value: "hi" }, { name: "FROM", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] });
  expect(await runProbe({ exec: { command: ["sh", "-c", "echo $(GREETING) [$(FROM)] '$(PATH)' $PWD"] } }, withEnv, 1000)).toEqual({ result: "success", output: `hi [] $(PATH) ${dir}\n` });
  expect(await runProbe({ exec: { command: ["sh", "-c", "echo err >&2; echo out; exit 3"] } }, target(), 1000)).toEqual({ result: "failure", output: "out\nerr\n" });
  const t0 = Date.now();
  expect(await runProbe({ exec: { command: ["sh", "-c", "sleep 20 & sleep 20"] } }, target(), 300)).toEqual({ result: "failure", output: 'command "sh -c sleep 20 & sleep 20" timed out' });
  expect(Date.now() - t0).toBeLessThan(15_000);
  expect(await runProbe({ exec: { command: ["no-such-command"] } }, target(), 1000)).toEqual({ error: 'exec: "no-such-command": executable file not found in $PATH' });
});

test("httpGet: 2xx succeeds, 4xx/5xx fail, same-host redirects are followed, another host's ends the probe with a warning", async () => {
  const get = (path: string, extra: object = {}) => runProbe({ httpGet: { path, port: http.port, ...extra } }, target(), 2000);
  expect(await get("/ok")).toEqual({ result: "success", output: "fine" });
  expect(await get("/bad")).toEqual({ result: "failure", output: "HTTP probe failed with statuscode: 503" });
  expect(await get("/hop")).toEqual({ result: "success", output: "fine" });
  expect(await get("/away")).toEqual({ result: "warning", output: "Probe terminated redirects, Response body: moved" });
  expect(await get("/loop")).toEqual({ result: "failure", output: `Get "http://127.0.0.1:${http.port}/loop": stopped after 10 redirects` });
  seen.length = 0;
  expect((await get("/ok", { httpHeaders: [{ name: "X-Probe", value: "yes" }], port: "web" }))).toEqual({ error: "port web not found" });
  const named = await runProbe({ httpGet: { path: "/ok", port: "web", httpHeaders: [{ name: "X-Probe", value: "yes" }] } }, target({ ports: [{ name: "web", containerPort: http.port }] }), 2000);
  expect(named).toEqual({ result: "success", output: "fine" });
  expect(seen[0]).toMatchObject({ "user-agent": "kube-probe/1.21", accept: "*/*", "x-probe": "yes" });
  const refused = await runProbe({ httpGet: { path: "/", port: 1 } }, target(), 2000);
  expect(refused).toEqual({ result: "failure", output: 'Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused' });
});

test("tcpSocket: a connection succeeds, a refused one fails in Go's words", async () => {
  const server: Server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  expect(await runProbe({ tcpSocket: { port } }, target(), 1000)).toEqual({ result: "success", output: "" });
  server.close();
  expect(await runProbe({ tcpSocket: { port } }, target(), 1000)).toEqual({ result: "failure", output: `dial tcp 127.0.0.1:${port}: connect: connection refused` });
});

test("the probe worker: a result counts after successThreshold/failureThreshold in a row; liveness stops at its failure", async () => {
  const script: boolean[] = [false, false, true, false, false, false, true];
  let i = 0;
  const changes: (boolean | undefined)[] = [];
  const fake = async () => ({ result: (script[i++] ?? true) ? "success" as const : "failure" as const, output: "" });
  const w = new ProbeWorker("readiness", { periodSeconds: 0.01, failureThreshold: 3, successThreshold: 1 }, target(), (w) => changes.push(w.result), fake);
  expect(w.result).toBe(false);
  w.start(Date.now());
  await until(async () => (i >= script.length + 1) || undefined, "the script to run");
  w.stop();
  // f f (below 3) → s: ready; f f f: not ready; s: ready
  expect(changes).toEqual([true, false, true]);
  let calls = 0;
  const live = new ProbeWorker("liveness", { periodSeconds: 0.01, failureThreshold: 2 }, target(), (w) => changes.push(w.result), async () => { calls++; return { result: "failure" as const, output: "" }; });
  expect(live.result).toBe(true);
  live.start(Date.now());
  await until(async () => (live.result === false) || undefined, "liveness to fail");
  await Bun.sleep(100);
  expect(calls).toBe(2);
  const startup = new ProbeWorker("startup", { periodSeconds: 0.01, initialDelaySeconds: 0.2 }, target(), () => {}, async () => ({ result: "success" as const, output: "" }));
  expect(startup.result).toBeUndefined();
  const began = Date.now();
  startup.start(began);
  await until(async () => startup.result || undefined, "startup to succeed");
  expect(Date.now() - began).toBeGreaterThanOrEqual(195);
});

test("hooks: success is undefined; a failure is upstream's message", async () => {
  expect(await runHook({ exec: { command: ["true"] } }, target())).toBeUndefined();
  expect(await runHook({ exec: { command: ["sh", "-c", "echo out; echo oops >&2; exit 2"] } }, target())).toBe(
    `Exec lifecycle hook ([sh -c echo out; echo oops >&2; exit 2]) for Container "c" in Pod "p_ns(u1)" failed - error: command 'sh -c echo out; echo oops >&2; exit 2' exited with 2: oops\n, message: "out\\noops\\n"`);
  // any answer is success for an HTTP hook (upstream v1.21 does not look at the status)
  expect(await runHook({ httpGet: { path: "/bad", port: http.port } }, target())).toBeUndefined();
  expect(await runHook({ httpGet: { path: "/x", port: 1 } }, target())).toBe(
    `Http lifecycle hook (/x) for Container "c" in Pod "p_ns(u1)" failed - error: Get "http://127.0.0.1:1/x": dial tcp 127.0.0.1:1: connect: connection refused, message: ""`);
});

test("termination message: the file's last 4 KiB; with fallback and nothing written, the CRI log's last 80 lines / 2 KiB", () => {
  const file = join(dir, "msg"), log = join(dir, "log");
  writeFileSync(file, "x".repeat(5000) + "end");
  expect(terminationMessage(file, log, true)).toBe("x".repeat(4093) + "end");
  writeFileSync(file, "");
  const cri = (s: string) => `2026-01-01T00:00:00.000000000Z stdout F ${s}\n`;
  writeFileSync(log, Array.from({ length: 100 }, (_, i) => cri(`line ${i}`)).join(""));
  expect(terminationMessage(file, log, false)).toBe("");
  expect(terminationMessage(file, log, true)).toBe(Array.from({ length: 80 }, (_, i) => `line ${i + 20}\n`).join(""));
  writeFileSync(log, Array.from({ length: 10 }, () => cri("y".repeat(300))).join(""));
  const t = logTail(log);
  expect(t.length).toBe(2048);
  expect(t.endsWith("y\n")).toBe(true);
});
