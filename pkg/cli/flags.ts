// kubectl-style flags for the client commands: the global connection flags shared by every client command,
// and a pflag-like parser (`-n ns`, `-nns`, `-n=ns`, `--flag value`, `--flag=value`, `-Aw`, `--no-x`,
// repeatable and comma-separated `-f a,b -f c`) on top of citty's declarative tables (used for --help).
import type { ArgsDef } from "citty";
import { formatError } from "../client/errors.ts";
import type { KubeconfigFlags } from "../client/kubeconfig.ts";
import { UsageError, strict } from "./args.ts";
import { finish } from "./output.ts";

type Def = { type?: string; alias?: string | readonly string[]; default?: unknown; multiple?: boolean };

/** kubectl's global flags, spread into every client command's table. */
export const globalArgs = {
  namespace: { type: "string", alias: "n", description: "If present, the namespace scope for this CLI request" },
  kubeconfig: { type: "string", description: "Path to the kubeconfig file to use (default: $KUBECONFIG, else ~/.kube/config, else ~/.kite/kubeconfig.yaml)" },
  context: { type: "string", description: "The name of the kubeconfig context to use" },
  cluster: { type: "string", description: "The name of the kubeconfig cluster to use" },
  user: { type: "string", description: "The name of the kubeconfig user to use" },
  server: { type: "string", alias: "s", description: "The address and port of the Kubernetes API server" },
  token: { type: "string", description: "Bearer token for authentication to the API server" },
  "certificate-authority": { type: "string", description: "Path to a cert file for the certificate authority" },
  "client-certificate": { type: "string", description: "Path to a client certificate file for TLS" },
  "client-key": { type: "string", description: "Path to a client key file for TLS" },
  "insecure-skip-tls-verify": { type: "boolean", description: "If true, the server's certificate will not be checked for validity (insecure)" },
  "cache-dir": { type: "string", description: "Directory of the discovery and kubeconfig caches (default ~/.kite/cache)" },
} as const;

/** The connection settings out of parsed flags. */
export function clientFlags(v: Record<string, any>): KubeconfigFlags {
  return {
    namespace: v.namespace || undefined,
    kubeconfig: v.kubeconfig || undefined,
    context: v.context || undefined,
    cluster: v.cluster || undefined,
    user: v.user || undefined,
    server: v.server || undefined,
    token: v.token || undefined,
    certificateAuthority: v["certificate-authority"] || undefined,
    clientCertificate: v["client-certificate"] || undefined,
    clientKey: v["client-key"] || undefined,
    insecureSkipTlsVerify: v["insecure-skip-tls-verify"],
    cacheDir: v["cache-dir"] || undefined,
  };
}

interface Index { long: Map<string, [string, Def]>; short: Map<string, [string, Def]> }

function index(def: ArgsDef): Index {
  const long = new Map<string, [string, Def]>();
  const short = new Map<string, [string, Def]>();
  for (const [name, d] of Object.entries(def as Record<string, Def>)) {
    if (d.type === "positional") continue;
    long.set(name, [name, d]);
    for (const a of [d.alias ?? []].flat()) (a.length === 1 ? short : long).set(a, [name, d]);
  }
  return { long, short };
}

/**
 * Rewrites short-flag clusters into one flag per argument so that `strict`'s check sees only declared names:
 * `-owide` → `-o=wide`, `-Aw` → `-A -w`. Everything else is left as typed.
 */
export function normalizeArgs(raw: string[], def: ArgsDef): string[] {
  const { short } = index(def);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const a = raw[i];
    if (a === "--") { out.push(...raw.slice(i)); break; }
    if (!/^-[^-]/.test(a) || a.length === 2 || a[2] === "=") { out.push(a); continue; }
    let j = 1;
    for (; j < a.length; j++) {
      const hit = short.get(a[j]);
      if (!hit) { out.push(`-${a.slice(j)}`); break; } // unknown: reported by the flag check
      if (hit[1].type === "boolean") { out.push(`-${a[j]}`); continue; }
      const rest = a.slice(j + 1).replace(/^=/, "");
      out.push(rest ? `-${a[j]}=${rest}` : `-${a[j]}`);
      break;
    }
  }
  return out;
}

/** Whether `arg` (`-n`, `-nprod`, `--kubeconfig=x`) names one of kubectl's global flags. */
export function isGlobalFlag(arg: string): boolean {
  return globalFlag(arg) !== undefined;
}

function globalFlag(arg: string): { def: Def; takesNext: boolean } | undefined {
  const m = /^(--?)([^=]+)(=[\s\S]*)?$/.exec(arg);
  if (!m) return undefined;
  const { long, short } = index(globalArgs);
  const hit = m[1] === "--" ? long.get(m[2]) : short.get(m[2][0]);
  if (!hit) return undefined;
  // `--kubeconfig x` and `-n x` take the next argument; `--kubeconfig=x`, `-nx` and booleans do not.
  return { def: hit[1], takesNext: hit[1].type !== "boolean" && m[3] === undefined && (m[1] === "--" || m[2].length === 1) };
}

/**
 * kubectl reads its global flags before the command too (`kite --kubeconfig x get pods`, `kite -n ns get cm`):
 * those are moved after the command name, where every client command parses them. Anything else (no
 * global flag first, or no command after them) is returned as it came.
 */
export function hoistGlobalFlags(argv: string[]): string[] {
  let i = 0;
  for (let g; i < argv.length && (g = globalFlag(argv[i])); i++) if (g.takesNext) i++;
  if (i === 0 || i >= argv.length) return argv;
  return [argv[i], ...argv.slice(0, i), ...argv.slice(i + 1)];
}

export interface Parsed { values: Record<string, any>; positionals: string[] }

/** Parses (normalized) arguments against a command's table; unknown flags and missing values exit 2. */
export function parseFlags(raw: string[], def: ArgsDef, command: string): Parsed {
  const { long, short } = index(def);
  const values: Record<string, any> = {};
  const positionals: string[] = [];
  for (const [name, d] of Object.entries(def as Record<string, Def>)) {
    if (d.type !== "positional" && d.default !== undefined) values[name] = d.multiple ? [d.default].flat() : d.default;
  }
  const seen = new Set<string>();
  const set = (name: string, d: Def, v: string | boolean) => {
    if (d.multiple) {
      if (!seen.has(name)) values[name] = [];
      values[name].push(...String(v).split(",").filter((s) => s !== ""));
    } else values[name] = v;
    seen.add(name);
  };
  for (let i = 0; i < raw.length; i++) {
    const a = raw[i];
    if (a === "--") { positionals.push(...raw.slice(i + 1)); break; }
    if (a === "-" || !a.startsWith("-")) { positionals.push(a); continue; }
    const m = /^(--?)([^=]+)(?:=([\s\S]*))?$/.exec(a)!;
    const key = m[2];
    let inline: string | undefined = m[3];
    let hit = (m[1] === "-" ? short : long).get(key) ?? (m[1] === "-" ? undefined : long.get(key));
    if (!hit && m[1] === "--" && key.startsWith("no-")) {
      const neg = long.get(key.slice(3));
      if (neg && neg[1].type === "boolean" && inline === undefined) { set(neg[0], neg[1], false); continue; }
    }
    if (!hit) throw new UsageError(`unknown flag: ${m[1]}${key} (see 'kite ${command} --help')`);
    const [name, d] = hit;
    if (d.type === "boolean") {
      if (inline === undefined) set(name, d, true);
      else if (/^(true|1|t|yes)$/i.test(inline)) set(name, d, true);
      else if (/^(false|0|f|no)$/i.test(inline)) set(name, d, false);
      else throw new UsageError(`invalid argument "${inline}" for "${m[1]}${key}" flag: strconv.ParseBool: parsing "${inline}": invalid syntax`);
      continue;
    }
    if (inline === undefined) {
      if (i + 1 >= raw.length) throw new UsageError(`flag needs an argument: ${m[1]}${key} (see 'kite ${command} --help')`);
      inline = raw[++i];
    }
    set(name, d, inline);
  }
  return { values, positionals };
}

/** Runs a client command: flags are normalized and checked (`strict`: unknown flags exit 2), then parsed. */
export function clientCommand(command: string, def: ArgsDef, run: (p: Parsed) => Promise<number | void>) {
  return (ctx: { rawArgs: string[] }) => {
    const rawArgs = normalizeArgs(ctx.rawArgs, def);
    return strict(command, def, async (c: { rawArgs: string[] }) => {
      const parsed = parseFlags(c.rawArgs, def, command);
      let code: number | void = 0;
      try {
        code = await run(parsed);
      } catch (e) {
        if (e instanceof UsageError) throw e;
        await finish(1, formatError(e));
      }
      await finish(code ?? 0);
    })({ ...ctx, rawArgs });
  };
}
