// Which store(s) `kite datastore` reads or writes: the SQLite file in a data dir, or etcd — with
// --etcd-servers-overrides, several etcds, each holding some resources, as `kite apiserver` lays them out.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN } from "../registry/builtin.ts";
import { openStores } from "../storage/factory.ts";
import type { Store } from "../storage/store.ts";

export interface TargetOptions {
  /** The data dir of a SQLite store (used when etcdServers is empty). */
  dataDir: string;
  etcdServers: string[];
  /** Key prefix, as --etcd-prefix (default /registry); every object lives under `<prefix>/`. */
  etcdPrefix: string;
  etcdCAFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** `group/resource` (core: `/resource`) → etcd URLs, as --etcd-servers-overrides. */
  etcdServersOverrides: Record<string, string[]>;
  /** Deadline of one etcd request, retries included. */
  requestTimeoutMs: number;
}

/** One store and the keys it holds: everything under `prefix` except what lies under `exclude`. */
export interface Route {
  prefix: string;
  exclude: string[];
  store: Store;
  /** For messages: "sqlite /x/state.db", "etcd http://...". */
  where: string;
}

export class Target {
  private constructor(readonly routes: Route[], readonly where: string, readonly prefix: string) {}

  /**
   * Opens the stores. `mustExist`: a SQLite data dir without state.db is an error (export), rather than
   * a new empty store (import).
   */
  static open(o: TargetOptions, mustExist: boolean): Target {
    const prefix = `${o.etcdPrefix.replace(/\/+$/, "")}/`;
    if (!o.etcdServers.length) {
      const file = join(o.dataDir, "state.db");
      if (mustExist && !existsSync(file)) throw new Error(`no store at ${file} (no state.db in --data-dir ${o.dataDir})`);
      if (Object.keys(o.etcdServersOverrides).length) throw new Error("--etcd-servers-overrides needs --etcd-servers");
    }
    // Each override holds the keys of one resource: find its storage prefix as the apiserver does.
    const overridePrefixes: [string, string][] = [];
    for (const res of Object.keys(o.etcdServersOverrides)) {
      const [group, plural] = res.split("/");
      const d = BUILTIN.find((x) => x.group === group && x.plural === plural);
      if (!d) throw new Error(`--etcd-servers-overrides: unknown resource "${res}" (group/resource; the core group is empty: /pods)`);
      overridePrefixes.push([res, `${prefix}${d.storageResource ?? d.plural}/`]);
    }
    const { main, overrides } = openStores({
      backend: o.etcdServers.length ? "etcd3" : "sqlite",
      dataDir: o.dataDir,
      etcdServers: o.etcdServers,
      etcdCAFile: o.etcdCAFile,
      etcdCertFile: o.etcdCertFile,
      etcdKeyFile: o.etcdKeyFile,
      etcdServersOverrides: o.etcdServersOverrides,
      requestTimeoutMs: o.requestTimeoutMs,
    });
    const mainWhere = o.etcdServers.length ? `etcd ${o.etcdServers.join(",")}` : `sqlite ${join(o.dataDir, "state.db")}`;
    const routes: Route[] = [];
    for (const [res, p] of overridePrefixes) {
      const servers = o.etcdServersOverrides[res];
      const same = routes.find((r) => r.prefix === p);
      if (same) {
        // Two groups' names for one storage (events and events.k8s.io events): one route, when they agree.
        if (same.where !== `etcd ${servers.join(",")}`) throw new Error(`--etcd-servers-overrides: ${p} is given two different servers`);
        void overrides.get(res)!.close();
        continue;
      }
      routes.push({ prefix: p, exclude: [], store: overrides.get(res)!, where: `etcd ${servers.join(",")}` });
    }
    routes.unshift({ prefix, exclude: routes.map((r) => r.prefix), store: main, where: mainWhere });
    const where = routes.length === 1 ? mainWhere : `${mainWhere} (+ ${routes.slice(1).map((r) => `${r.prefix} on ${r.where}`).join(", ")})`;
    return new Target(routes, where, prefix);
  }

  /** The route that holds key, or undefined when the key lies outside the prefix. */
  routeOf(key: string): Route | undefined {
    let best: Route | undefined;
    for (const r of this.routes) if (key.startsWith(r.prefix) && (!best || r.prefix.length > best.prefix.length)) best = r;
    return best;
  }

  /** Live keys per route (the main route without the overridden prefixes, should they share a store). */
  async counts(): Promise<number[]> {
    return Promise.all(this.routes.map(async (r) => {
      let n = await r.store.count(r.prefix);
      for (const x of r.exclude) n -= await r.store.count(x);
      return n;
    }));
  }

  async close(): Promise<void> {
    await Promise.all(this.routes.map((r) => r.store.close()));
  }
}
