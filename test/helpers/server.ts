// Starts a real `kite apiserver` process on a free loopback port with a temp data dir.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { track, tempDir } from "./processes.ts";

export const ROOT = resolve(import.meta.dir, "../..");
/** How tests run kite: from source, or a built binary when KITE_BIN names one (the benchmarks do). */
export const KITE = process.env.KITE_BIN ? [process.env.KITE_BIN] : [process.execPath, join(ROOT, "cmd/main.ts")];

/** A launcher for startServer: the API server without its own namespace controller and garbage collector. */
export const APISERVER_ALONE = [process.execPath, join(ROOT, "test/helpers/apiserver-alone.ts")];

export async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/** The bearer token of every test server's kubeconfig. */
export const TEST_TOKEN = "test";

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  ca: string;
  kubeconfig: string;
  proc: Subprocess;
  /** fetch against the server, trusting its CA; path is relative to the server URL. */
  req(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** JSON body and status of a request. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  stop(signal?: NodeJS.Signals | number): Promise<number>;
}

/**
 * KITE_TEST_BACKEND=etcd runs every server of a suite on etcd instead of SQLite: an etcd of its own per
 * data dir (compaction is global in etcd, so servers must not share one), kept for a restart on that dir.
 */
export const BACKEND = process.env.KITE_TEST_BACKEND === "etcd" ? "etcd" : "sqlite";
const etcds = new Map<string, Promise<{ endpoints: string[] }>>();

async function backendArgs(dir: string): Promise<string[]> {
  if (BACKEND !== "etcd") return [];
  const { startEtcd } = await import("./etcd.ts");
  if (!etcds.has(dir)) etcds.set(dir, startEtcd());
  return [`--etcd-servers=${(await etcds.get(dir)!).endpoints.join(",")}`];
}

/**
 * The first server of a test process generates its CA, serving certificate and service-account key (the
 * RSA keys' generation costs ~0.5 s per start); later fresh servers start from a copy of them, as a restarted
 * server starts from its own. Servers given their own certificates or keys generate nothing to share.
 */
let sharedPki: string | undefined;
const OWN_PKI = /^--(cert-dir|tls-|service-account-(signing-)?key-file|advertise-address)/;
const ownsPki = (args: string[]) => args.some((a) => OWN_PKI.test(a));

/** `launcher` is the command that runs kite: KITE, or KITE behind a wrapper such as `prlimit`. */
export async function startServer(extraArgs: string[] = [], dataDir?: string, launcher: string[] = KITE): Promise<TestServer> {
  const dir = dataDir ?? tempDir("kite-test-");
  // A test that names its own store (--etcd-servers, --storage-backend) keeps it.
  if (!extraArgs.some((a) => a.startsWith("--etcd-servers") || a.startsWith("--storage-backend"))) extraArgs = [...(await backendArgs(dir)), ...extraArgs];
  // The kubeconfig written below is an admin's, as kite up's is: its token "test" is kite-test in
  // system:masters. A test that brings its own --token-auth-file lists every token it sends.
  if (!extraArgs.some((a) => a.startsWith("--token-auth-file"))) {
    const tokens = join(tempDir("kite-test-tokens-"), "tokens.csv");
    writeFileSync(tokens, `${TEST_TOKEN},kite-test,kite-test,system:masters\n`);
    extraArgs = [...extraArgs, `--token-auth-file=${tokens}`];
  }
  // Only into an existing data dir: a dir the server creates itself must get the server's own modes.
  if (sharedPki && !ownsPki(extraArgs) && existsSync(dir) && !existsSync(join(dir, "pki"))) cpSync(sharedPki!, join(dir, "pki"), { recursive: true });
  const port = await freePort();
  const proc = Bun.spawn([...launcher, "apiserver", "--bind-address=127.0.0.1", `--secure-port=${port}`, `--data-dir=${dir}`, ...extraArgs], {
    stdout: "pipe", stderr: "pipe",
  });
  track(proc);
  const url = `https://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000; // a loaded machine (CI beside other work) can take this long
  let ca = "";
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`apiserver exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    try {
      ca ||= readFileSync(join(dir, "pki", "ca.crt"), "utf8");
      const r = await fetch(`${url}/readyz`, { tls: { ca } } as RequestInit);
      // 401: the server is up and refuses callers without credentials (--anonymous-auth=false)
      if (r.status === 200 || r.status === 401) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error("apiserver did not become ready");
    await Bun.sleep(25);
  }
  if (!sharedPki && !ownsPki(extraArgs)) {
    sharedPki = join(tempDir("kite-test-pki-"), "pki");
    cpSync(join(dir, "pki"), sharedPki, { recursive: true });
  }
  const kubeconfig = join(dir, "kubeconfig.yaml");
  writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: t, cluster: {server: "${url}", certificate-authority-data: ${Buffer.from(ca).toString("base64")}}}]
users: [{name: t, user: {token: test}}]
contexts: [{name: t, context: {cluster: t, user: t, namespace: default}}]
current-context: t
`);
  const req = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    let body = init.body;
    if (init.json !== undefined) {
      body = typeof init.json === "string" ? init.json : JSON.stringify(init.json);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    return fetch(`${url}${path}`, { ...init, body, headers, tls: { ca } } as RequestInit);
  };
  return {
    url, port, dataDir: dir, ca, kubeconfig, proc, req,
    async call(method, path, body, headers) {
      const r = await req(path, { method, json: body, headers });
      const text = await r.text();
      let parsed: any = text;
      try { parsed = JSON.parse(text); } catch { /* not JSON */ }
      return { status: r.status, body: parsed, headers: r.headers };
    },
    async stop(signal: NodeJS.Signals | number = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

/** Runs stock kubectl against the server; returns exit code and output. */
export function kubectl(s: TestServer, args: string[], stdin?: string) {
  return kubectlWith(s.kubeconfig, args, stdin);
}

/** Runs stock kubectl with a kubeconfig file (kite up's, a user's); returns exit code and output. */
export async function kubectlWith(kubeconfig: string, args: string[], stdin?: string) {
  const p = Bun.spawn(["kubectl", `--kubeconfig=${kubeconfig}`, ...args], { stdin: stdin ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
