// kite datastore export|import: flags → options, files and stdio, progress and the exit code.
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError, duration, int } from "../cli/args.ts";
import { parseServersOverrides } from "../storage/factory.ts";
import { CorruptStoreError, checkSqliteFile } from "../storage/sqlitecheck.ts";
import { exportTarget } from "./export.ts";
import { FormatError } from "./format.ts";
import { NotEmptyError, importFile } from "./import.ts";
import { salvageExport } from "./salvage.ts";
import { Target, type TargetOptions } from "./target.ts";
import { commaList } from "../util/commalist.ts";

export const DEFAULT_DATA_DIR = join(homedir(), ".kite", "server");

/** Flags shared by export and import (the store's coordinates, as `kite apiserver` takes them). */
export const storeArgs = {
  "data-dir": { type: "string", description: `Directory of the SQLite store (state.db), as 'kite apiserver --data-dir' (default ${DEFAULT_DATA_DIR}); not with --etcd-servers` },
  "etcd-servers": { type: "string", description: "Comma-separated etcd client URLs: use etcd (as 'kite apiserver --etcd-servers') instead of a data dir" },
  "etcd-prefix": { type: "string", default: "/registry", description: "The prefix every object's key lies under" },
  "etcd-servers-overrides": { type: "string", description: "Per-resource etcd servers, as the apiserver flag: group/resource#servers, comma-separated; servers separated by ';'" },
  "etcd-cafile": { type: "string", description: "SSL Certificate Authority file used to secure etcd communication" },
  "etcd-certfile": { type: "string", description: "SSL certification file used to secure etcd communication" },
  "etcd-keyfile": { type: "string", description: "SSL key file used to secure etcd communication" },
  "request-timeout": { type: "string", default: "30s", description: "Deadline of one etcd request, retries included" },
  "progress-every": { type: "string", default: "1000", description: "Print a progress line on stderr every this many objects (0: only the summary)" },
} as const;

export const FORMAT_HELP =
  'Format: newline-delimited JSON, one stored object per line, in key order (per store), {"key":"/registry/<resource>/[<namespace>/]<name>","value":{<the object as stored>}} ' +
  '(a value that is not canonical JSON is kept verbatim as {"key":"...","raw":"<string>"}). resourceVersions are not carried: the target numbers its writes anew; uid, creationTimestamp and everything else stored come back as they were.';

function targetOptions(a: Record<string, any>): TargetOptions {
  const etcdServers = commaList(a["etcd-servers"]);
  if (a["etcd-servers"] !== undefined && !etcdServers.length) throw new UsageError(`invalid argument "" for "--etcd-servers" flag: expected http(s)://host:port`);
  for (const u of etcdServers) if (!/^https?:\/\/[^/]+/.test(u)) throw new UsageError(`invalid argument "${u}" for "--etcd-servers" flag: expected http(s)://host:port`);
  if (etcdServers.length && a["data-dir"] !== undefined) throw new UsageError("give --data-dir (SQLite) or --etcd-servers (etcd), not both");
  let overrides: Record<string, string[]>;
  try { overrides = parseServersOverrides(a["etcd-servers-overrides"] ?? ""); } catch (e) { throw new UsageError(`invalid argument for "--etcd-servers-overrides" flag: ${(e as Error).message}`); }
  const prefix = String(a["etcd-prefix"] ?? "/registry");
  if (!prefix.startsWith("/") || prefix.replace(/\/+$/, "") === "") throw new UsageError(`invalid argument "${prefix}" for "--etcd-prefix" flag: expected an absolute key prefix such as /registry`);
  return {
    dataDir: a["data-dir"] ?? DEFAULT_DATA_DIR,
    etcdServers,
    etcdPrefix: prefix,
    etcdCAFile: a["etcd-cafile"],
    etcdCertFile: a["etcd-certfile"],
    etcdKeyFile: a["etcd-keyfile"],
    etcdServersOverrides: overrides,
    requestTimeoutMs: duration("request-timeout", a["request-timeout"] ?? "30s"),
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const perResource = (r: Record<string, number>) => Object.entries(r).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(" ");

/** Prints an error (no stack for the expected kinds) and returns exit code 1. */
function failed(e: unknown): number {
  if (e instanceof UsageError) throw e;
  const msg = e instanceof Error ? e.message : String(e);
  log(`Error: ${msg}`);
  if (!(e instanceof NotEmptyError || e instanceof FormatError) && process.env.KITE_DEBUG && e instanceof Error) log(e.stack ?? "");
  return 1;
}

/** kite datastore export; returns the exit code (usage errors throw UsageError). */
export async function runExport(a: Record<string, any>): Promise<number> {
  const opts = targetOptions(a);
  // SQLite pages cost more the further they start from the end of the range: fewer, larger ones there.
  const chunkSize = int("chunk-size", String(a["chunk-size"] ?? (opts.etcdServers.length ? "500" : "5000")), 1);
  const progressEvery = int("progress-every", String(a["progress-every"] ?? "1000"), 0);
  const file: string | undefined = a.output && a.output !== "-" ? a.output : undefined;
  let t: Target | undefined;
  // A file is written next to its final name and renamed at the end: a failed export leaves no file that looks whole.
  const partial = file ? `${file}.partial` : undefined;
  try {
    // A damaged SQLite file (which a server refuses) is read row by row, around the damage.
    const sqlite = !opts.etcdServers.length && !Object.keys(opts.etcdServersOverrides).length;
    const damage = sqlite ? damageOf(join(opts.dataDir, "state.db")) : undefined;
    if (damage) log(`${damage.message}: exporting what can still be read`);
    else t = Target.open(opts, true);
    const sink = partial ? Bun.file(partial).writer() : Bun.stdout.writer();
    const o = { chunkSize, progressEvery, log };
    const salvaged = damage && await salvageExport(damage.file, `${opts.etcdPrefix.replace(/\/+$/, "")}/`, sink, o);
    const sum = salvaged || await exportTarget(t!, sink, o);
    await sink.end();
    if (file) renameSync(partial!, file);
    const where = t?.where ?? `sqlite ${damage!.file}`;
    log(`exported ${sum.objects} objects (${(sum.bytes / 1024).toFixed(1)} KiB) from ${where} at revision ${sum.revisions.join(",")} to ${file ?? "stdout"} in ${secs(sum.ms)}`);
    if (sum.objects) log(`  by resource: ${perResource(sum.resources)}`);
    if (salvaged?.damaged || salvaged?.unreadable) {
      log(`  damaged: ${salvaged.damaged} stretch(es) of rows could not be read and ${salvaged.unreadable} object(s) not in full; objects whose newest versions lay there are missing or older`);
    } else if (salvaged) {
      log("  every stored row could be read: the damage lies elsewhere (an index or free pages)");
    }
    return 0;
  } catch (e) {
    if (partial) rmSync(partial, { force: true });
    return failed(e);
  } finally {
    await t?.close();
  }
}

function damageOf(file: string): CorruptStoreError | undefined {
  try {
    checkSqliteFile(file);
  } catch (e) {
    if (e instanceof CorruptStoreError) return e;
    throw e;
  }
}

/** kite datastore import; returns the exit code (usage errors throw UsageError). */
export async function runImport(a: Record<string, any>): Promise<number> {
  const opts = targetOptions(a);
  const progressEvery = int("progress-every", String(a["progress-every"] ?? "1000"), 0);
  const concurrency = int("concurrency", String(a.concurrency ?? "64"), 1);
  const fromStdin = !a.filename || a.filename === "-";
  let path: string = a.filename;
  let spool: string | undefined;
  let t: Target | undefined;
  try {
    if (fromStdin) {
      // The input is read twice (checked, then written): stdin is kept in a temp file for that.
      spool = mkdtempSync(join(tmpdir(), "kite-import-"));
      path = join(spool, "stdin.jsonl");
      await Bun.write(path, Bun.stdin);
    } else if (!(await Bun.file(path).exists())) {
      throw new FormatError(`${path}: no such file`);
    }
    t = Target.open(opts, false);
    const sum = await importFile(t, path, fromStdin ? "stdin" : path, { progressEvery, concurrency, log });
    log(`imported ${sum.objects} objects into ${t.where} (now at revision ${sum.revisions.join(",")}) in ${secs(sum.ms)}`);
    if (sum.objects) log(`  by resource: ${perResource(sum.resources)}`);
    return 0;
  } catch (e) {
    return failed(e);
  } finally {
    await t?.close();
    if (spool) rmSync(spool, { recursive: true, force: true });
  }
}
