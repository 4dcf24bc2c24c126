// Client configuration as kubectl loads it: --kubeconfig, else $KUBECONFIG (colon-separated files merged,
// the first value of each key wins), else ~/.kube/config, else ~/.kite/kubeconfig.yaml; then a context,
// its cluster and user, and kubectl's global flags on top.
//
// Parsed kubeconfigs are cached as JSON under the cache dir (keyed by the file's path, checked against a hash
// of its text), so a command does not pay for loading the YAML parser on every run. The read path uses Bun's
// file API only (no node:fs/node:path), which keeps a client command's start-up short.
import { CliError } from "./errors.ts";

/** kubectl's global flags (all optional). */
export interface KubeconfigFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  server?: string;
  token?: string;
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  insecureSkipTlsVerify?: boolean;
  namespace?: string;
  cacheDir?: string;
}

/** Everything needed to talk to one API server. */
export interface ClientConfig {
  server: string;
  /** A Unix socket to reach `server` through (an http:// URL): the API server's own loopback client. */
  unix?: string;
  ca?: string;
  cert?: string;
  key?: string;
  insecure: boolean;
  token?: string;
  username?: string;
  password?: string;
  /** The namespace of -n, else the context's, else "default". */
  namespace: string;
  /** True when -n/--namespace was given. */
  explicitNamespace: boolean;
  context?: string;
  /** Where the settings came from, for error messages: "kubeconfig /path" or "the --server flag". */
  source: string;
  cacheDir: string;
  /** Client-side rate limit (--kube-api-qps / --kube-api-burst); unset means none, as the CLI runs. */
  qps?: number;
  burst?: number;
  /**
   * At most this many requests waiting for their answer's headers at once (unset: no limit). Each request
   * in flight over HTTP/1.1 holds a connection of its own: a burst of hundreds would open (and pay the TLS
   * handshake of) as many; a few connections kept alive serve it as fast.
   */
  maxInFlight?: number;
  /**
   * The kubeconfig's exec credential plugin and the cluster it is told about, when the credentials came from
   * one: the transport runs it again when `expiresAt` (the ExecCredential's expirationTimestamp) has passed or
   * the server answers 401, as client-go does.
   */
  exec?: { plugin: Dict; cluster: Dict; expiresAt?: number };
}

type Dict = Record<string, any>;

interface Merged {
  clusters: Map<string, Dict>;
  users: Map<string, Dict>;
  contexts: Map<string, Dict>;
  currentContext?: string;
  files: string[];
}

const delimiter = process.platform === "win32" ? ";" : ":";
const isAbsolute = (p: string) => p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p);
const join = (...parts: string[]) => parts.join("/").replace(/\/+/g, "/");
const resolve = (base: string, p: string) => (isAbsolute(p) ? p : join(base, p));
const dirname = (p: string) => (p.lastIndexOf("/") > 0 ? p.slice(0, p.lastIndexOf("/")) : "/");
const exists = (p: string) => Bun.file(p).exists();

/** The user's home directory ($HOME, else the OS's idea of it). */
export async function homeDir(): Promise<string> {
  return process.env.HOME || (await import("node:os")).homedir();
}

export const defaultCacheDir = (home: string) => join(home, ".kite", "cache");

/** The kubeconfig files in use, in precedence order (what kubectl's loading rules pick). */
export async function kubeconfigFiles(flags: KubeconfigFlags, env: Record<string, string | undefined>, home: string): Promise<string[]> {
  const cwd = process.cwd();
  if (flags.kubeconfig) {
    if (!(await exists(flags.kubeconfig))) throw new CliError(`stat ${flags.kubeconfig}: no such file or directory`);
    return [resolve(cwd, flags.kubeconfig)];
  }
  if (env.KUBECONFIG) {
    const seen = new Set<string>();
    for (const p of env.KUBECONFIG.split(delimiter)) {
      if (p && !seen.has(resolve(cwd, p)) && (await exists(p))) seen.add(resolve(cwd, p));
    }
    return [...seen];
  }
  for (const p of [join(home, ".kube", "config"), join(home, ".kite", "kubeconfig.yaml")]) {
    if (await exists(p)) return [p];
  }
  return [];
}

/** Parses one kubeconfig file (YAML or JSON), through the JSON cache when it is current. */
export async function readKubeconfigFile(path: string, cacheDir: string): Promise<Dict> {
  const text = await Bun.file(path).text();
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{")) return JSON.parse(text);
  if (!trimmed) return {};
  const hash = Bun.hash(text).toString(36);
  const cacheFile = join(cacheDir, "kubeconfig", `${Bun.hash(path).toString(36)}.json`);
  try {
    const c = JSON.parse(await Bun.file(cacheFile).text());
    if (c.hash === hash) return c.data;
  } catch { /* no cache yet */ }
  // YAML 1.1, as client-go reads kubeconfigs; the fast reader covers what kubectl and kite write.
  let data: Dict;
  const fast = (await import("../yaml/fast.ts")).parseYamlFast(text);
  if (fast && fast.length === 1) data = (fast[0] ?? {}) as Dict;
  else {
    const YAML = (await import("yaml")).default;
    try {
      data = (YAML.parse(text, { version: "1.1" } as never) ?? {}) as Dict;
    } catch (e) {
      throw new CliError(`error loading config file "${path}": ${(e as Error).message.split("\n")[0]}`);
    }
  }
  try {
    // The cache holds what the kubeconfig holds (credentials too): private, like the file itself.
    const fs = await import("node:fs");
    fs.mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    fs.writeFileSync(cacheFile, JSON.stringify({ path, hash, data }), { mode: 0o600 });
  } catch { /* the cache is an optimisation only */ }
  return data;
}

const PATH_FIELDS = {
  cluster: ["certificate-authority"],
  user: ["client-certificate", "client-key", "tokenFile"],
};

/** Merges files as kubectl does: for every named entry and for current-context, the first file wins. */
export async function loadMerged(files: string[], cacheDir: string): Promise<Merged> {
  const m: Merged = { clusters: new Map(), users: new Map(), contexts: new Map(), files };
  for (const file of files) {
    const cfg = await readKubeconfigFile(file, cacheDir);
    const base = dirname(file);
    const add = (list: unknown, key: "cluster" | "user" | "context", into: Map<string, Dict>) => {
      if (!Array.isArray(list)) return;
      for (const entry of list) {
        if (!entry?.name || into.has(entry.name)) continue;
        const v: Dict = { ...(entry[key] ?? {}) };
        for (const f of (PATH_FIELDS as Record<string, string[]>)[key] ?? []) {
          if (typeof v[f] === "string" && v[f]) v[f] = resolve(base, v[f]);
        }
        if (key === "user" && v.exec?.command && v.exec.command.includes("/") && !isAbsolute(v.exec.command)) {
          v.exec = { ...v.exec, command: resolve(base, v.exec.command) };
        }
        into.set(entry.name, v);
      }
    };
    add(cfg.clusters, "cluster", m.clusters);
    add(cfg.users, "user", m.users);
    add(cfg.contexts, "context", m.contexts);
    if (!m.currentContext && cfg["current-context"]) m.currentContext = cfg["current-context"];
  }
  return m;
}

const readText = async (path: string, what: string) => {
  try {
    return await Bun.file(path).text();
  } catch (e) {
    throw new CliError(`unable to read ${what} ${path}: ${(e as Error).message}`);
  }
};
const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");

/** Resolves flags + kubeconfig files into the settings of one server, as kubectl does. */
export async function loadClientConfig(flags: KubeconfigFlags = {}, env: Record<string, string | undefined> = process.env, home?: string): Promise<ClientConfig> {
  home ??= await homeDir();
  const cacheDir = flags.cacheDir || defaultCacheDir(home);
  const files = await kubeconfigFiles(flags, env, home);
  const m = await loadMerged(files, cacheDir);
  const contextName = flags.context || m.currentContext;
  const ctx = contextName ? m.contexts.get(contextName) : undefined;
  if (flags.context && !ctx) throw new CliError(`context "${flags.context}" does not exist`);
  const clusterName = flags.cluster || ctx?.cluster;
  const userName = flags.user || ctx?.user;
  if (flags.cluster && !m.clusters.has(flags.cluster)) throw new CliError(`cluster "${flags.cluster}" does not exist`);
  const cluster: Dict = (clusterName && m.clusters.get(clusterName)) || {};
  const user: Dict = (userName && m.users.get(userName)) || {};
  const source = files.length ? `kubeconfig ${files.join(delimiter)}` : "no kubeconfig";
  let server: string | undefined = flags.server || cluster.server;
  if (!server) {
    if (files.length === 0) {
      throw new CliError("no configuration found: pass --kubeconfig or --server, set KUBECONFIG, or start a cluster with 'kite up' (looked for ~/.kube/config and ~/.kite/kubeconfig.yaml)");
    }
    if (contextName && !ctx) throw new CliError(`context was not found for specified context: ${contextName} (${source})`);
    throw new CliError(`no server found for cluster "${clusterName ?? ""}" (${source})`);
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) server = `https://${server}`;
  server = server.replace(/\/+$/, "");

  const insecure = flags.insecureSkipTlsVerify ?? cluster["insecure-skip-tls-verify"] === true;
  let ca: string | undefined;
  if (flags.certificateAuthority) ca = (await readText(flags.certificateAuthority, "certificate authority"));
  else if (!flags.insecureSkipTlsVerify) {
    if (cluster["certificate-authority-data"]) ca = b64(cluster["certificate-authority-data"]);
    else if (cluster["certificate-authority"]) ca = (await readText(cluster["certificate-authority"], "certificate authority"));
  }
  if (insecure && ca && flags.certificateAuthority) {
    throw new CliError("specifying a root certificates file with the insecure flag is not allowed");
  }

  let cert: string | undefined, key: string | undefined;
  if (flags.clientCertificate) cert = (await readText(flags.clientCertificate, "client certificate"));
  else if (user["client-certificate-data"]) cert = b64(user["client-certificate-data"]);
  else if (user["client-certificate"]) cert = (await readText(user["client-certificate"], "client certificate"));
  if (flags.clientKey) key = (await readText(flags.clientKey, "client key"));
  else if (user["client-key-data"]) key = b64(user["client-key-data"]);
  else if (user["client-key"]) key = (await readText(user["client-key"], "client key"));

  let token: string | undefined = flags.token || user.token;
  if (!token && user.tokenFile) token = (await readText(user.tokenFile, "token file")).trim();
  if (!token && !flags.token && user["auth-provider"]?.config) {
    const c = user["auth-provider"].config;
    token = c["id-token"] || c["access-token"] || undefined;
  }
  let exec: ClientConfig["exec"];
  if (!flags.token && !token && user.exec?.command) {
    const execCluster = { server, ...(ca ? { "certificate-authority-data": Buffer.from(ca).toString("base64") } : {}), ...(insecure ? { "insecure-skip-tls-verify": true } : {}) };
    const cred = execCredential(user.exec, execCluster);
    token = cred.token ?? token;
    cert = cred.cert ?? cert;
    key = cred.key ?? key;
    exec = { plugin: user.exec, cluster: execCluster, expiresAt: cred.expiresAt };
  }

  return {
    server, ca, cert, key, insecure, token,
    username: user.username, password: user.password,
    namespace: flags.namespace || ctx?.namespace || "default",
    explicitNamespace: !!flags.namespace,
    context: contextName,
    source: flags.server ? `the --server flag${files.length ? ` and ${source}` : ""}` : source,
    cacheDir,
    ...(exec ? { exec } : {}),
  };
}

/** What an exec plugin's answer gives a client: its token or certificate pair, and when they expire. */
export interface ExecCredential { token?: string; cert?: string; key?: string; expiresAt?: number }

/** Runs the exec plugin and returns the credentials it gave. */
export function execCredential(plugin: Dict, cluster: Dict): ExecCredential {
  const status = runExecPlugin(plugin, cluster);
  const expiresAt = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : undefined;
  return {
    token: status.token || undefined, cert: status.clientCertificateData || undefined, key: status.clientKeyData || undefined,
    ...(expiresAt !== undefined && !Number.isNaN(expiresAt) ? { expiresAt } : {}),
  };
}

/** The ExecCredential versions client-go speaks. */
const EXEC_API_VERSIONS = ["client.authentication.k8s.io/v1alpha1", "client.authentication.k8s.io/v1beta1", "client.authentication.k8s.io/v1"];

/** Runs a client-go exec credential plugin and returns its ExecCredential status. */
function runExecPlugin(exec: Dict, cluster: Dict): Dict {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const e of exec.env ?? []) env[e.name] = e.value;
  const asked = exec.apiVersion ?? "client.authentication.k8s.io/v1";
  if (!EXEC_API_VERSIONS.includes(asked)) throw new CliError(`getting credentials: exec plugin: invalid apiVersion ${JSON.stringify(asked)}`);
  env.KUBERNETES_EXEC_INFO = JSON.stringify({
    apiVersion: asked,
    kind: "ExecCredential",
    spec: { interactive: false, ...(exec.provideClusterInfo ? { cluster } : {}) },
  });
  let p: ReturnType<typeof Bun.spawnSync>;
  try {
    p = Bun.spawnSync([exec.command, ...(exec.args ?? [])], { env, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  } catch (e) {
    throw new CliError(`getting credentials: exec: executable ${exec.command} not found${exec.installHint ? `\n\n${exec.installHint}` : ""}`);
  }
  if (p.exitCode !== 0) throw new CliError(`getting credentials: exec: executable ${exec.command} failed with exit code ${p.exitCode}`);
  let cred: Dict;
  try {
    cred = JSON.parse(p.stdout!.toString());
  } catch {
    throw new CliError(`getting credentials: decoding stdout of ${exec.command}: not an ExecCredential`);
  }
  // client-go's checks of the answer, in its words
  const fail = (why: string) => new CliError(`getting credentials: ${why}`);
  if (cred?.apiVersion !== asked) throw fail(`exec plugin is configured to use API version ${asked}, plugin returned version ${cred?.apiVersion ?? ""}`);
  const status = cred.status;
  if (!status) throw fail("exec plugin didn't return a status field");
  if (!status.token && !status.clientCertificateData && !status.clientKeyData) throw fail("exec plugin didn't return a token or cert/key pair");
  if (!status.clientCertificateData !== !status.clientKeyData) throw fail("exec plugin returned only certificate or key, not both");
  return status;
}
