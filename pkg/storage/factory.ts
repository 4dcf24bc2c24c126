// Picks and opens the store a server runs on: the embedded SQLite file, or etcd v3.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EtcdStore } from "./etcd.ts";
import { SqliteStore } from "./sqlite.ts";
import { checkSqliteFile } from "./sqlitecheck.ts";
import type { Store } from "./store.ts";

export interface StorageOptions {
  backend: "sqlite" | "etcd3";
  dataDir: string;
  etcdServers: string[];
  etcdCAFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** Per-resource servers: `group/resource` (core: `/resource`) → URLs. */
  etcdServersOverrides: Record<string, string[]>;
  requestTimeoutMs: number;
  /** Run SQLite's quick_check before opening the file (a server does; an export reads what it can). */
  check?: boolean;
}

function sqlite(o: StorageOptions): Store {
  const file = join(o.dataDir, "state.db");
  if (o.check) checkSqliteFile(file);
  return new SqliteStore(file);
}

function etcd(o: StorageOptions, servers: string[]): Store {
  const read = (f?: string) => (f ? readFileSync(f, "utf8") : undefined);
  const tls = o.etcdCAFile || o.etcdCertFile ? { ca: read(o.etcdCAFile), cert: read(o.etcdCertFile), key: read(o.etcdKeyFile) } : undefined;
  return new EtcdStore({ endpoints: servers, requestTimeoutMs: o.requestTimeoutMs, tls });
}

/** Opens the main store and one store per overridden resource. */
export function openStores(o: StorageOptions): { main: Store; overrides: Map<string, Store> } {
  const main = o.backend === "etcd3" ? etcd(o, o.etcdServers) : sqlite(o);
  const overrides = new Map<string, Store>();
  for (const [res, servers] of Object.entries(o.etcdServersOverrides)) overrides.set(res, etcd(o, servers));
  return { main, overrides };
}

/** Parses --etcd-servers-overrides: `group/resource#servers;servers`, comma-separated (core group empty). */
export function parseServersOverrides(v: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const item of v.split(",").filter(Boolean)) {
    const [res, servers] = item.split("#");
    if (!res?.includes("/") || !servers) throw new Error(`expected group/resource#servers, got "${item}"`);
    out[res] = servers.split(";").filter(Boolean);
  }
  return out;
}
