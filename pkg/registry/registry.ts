// All resource stores of a server, found by URL coordinates.
import type { Store } from "../storage/store.ts";
import { DEFAULT_SERVICE_RANGES, ServiceAllocator, type ServiceRanges } from "./allocators.ts";
import { ConvertedStore } from "./converted.ts";
import { ResourceStore } from "./generic.ts";
import type { Admit, AdmissionHooks, CacheConfig } from "./store-options.ts";
import type { Obj, ResourceDef } from "./types.ts";

export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** Watch cache sizing as the spec's flags give it: --watch-cache, --default-watch-cache-size, --watch-cache-sizes. */
export interface CacheSizing { enabled: boolean; defaultSize: number; sizes: Record<string, number> }

export const DEFAULT_CACHE_SIZING: CacheSizing = { enabled: true, defaultSize: 100, sizes: {} };

function cacheConfigFor(d: ResourceDef, c: CacheSizing): CacheConfig {
  if (!c.enabled) return { capacity: 0 };
  const key = d.group ? `${d.plural}.${d.group}` : d.plural;
  return { capacity: c.sizes[key] ?? c.defaultSize };
}

export interface RegistryOptions {
  etcdPrefix: string;
  /** Where Services' cluster IPs and node ports come from (default: upstream's defaults). */
  serviceRanges?: ServiceRanges;
  caching?: CacheSizing;
  /** Stores for resources given their own etcd servers. */
  overrides?: Map<string, Store>;
  /** Write values in the binary media type. */
  binary?: boolean;
  /** Deletes a delete-collection request runs at once (--delete-collection-workers). */
  deleteCollectionWorkers?: number;
}

export class Registry {
  private byPath = new Map<string, ResourceStore>();
  readonly all: ResourceStore[] = [];
  private storeOf: (d: ResourceDef) => ResourceStore;
  /** The server's admission chain, given to every store (those added later too). */
  private admission?: AdmissionHooks;

  constructor(readonly defs: ResourceDef[], readonly store: Store, o: RegistryOptions) {
    const caching = o.caching ?? DEFAULT_CACHE_SIZING;
    const services = new ServiceAllocator(o.serviceRanges ?? DEFAULT_SERVICE_RANGES);
    // Registry logic that reads stored objects, by kind (upstream's REST storage allocators).
    const admissions: Record<string, (rs: () => ResourceStore) => Admit> = {
      Service: (rs) => async (svc, old, dryRun) => services.admit(svc, old, await this.othersOf(rs(), svc), dryRun),
    };
    this.storeOf = (d) => {
      const st = o.overrides?.get(`${d.group}/${d.plural}`) ?? store;
      const admit = d.custom ? undefined : admissions[d.group ? `${d.kind}.${d.group}` : d.kind]?.(() => rs);
      const rs: ResourceStore = new (d.asyncCodec ? ConvertedStore : ResourceStore)(d, st, { etcdPrefix: o.etcdPrefix, admit, cache: cacheConfigFor(d, caching), binary: o.binary, deleteCollectionWorkers: o.deleteCollectionWorkers });
      rs.admission = this.admission;
      return rs;
    };
    for (const d of defs) this.add(d);
  }

  /** Every write through every store, now and later, passes this admission chain. */
  useAdmission(admission: AdmissionHooks): void {
    this.admission = admission;
    for (const rs of this.all) rs.admission = admission;
  }

  /** Serves a type from now on (a custom resource's version); replaces the store of the same path. */
  add(d: ResourceDef): ResourceStore {
    const path = `${d.group}/${d.version}/${d.plural}`;
    const old = this.byPath.get(path);
    if (old) this.remove(old);
    const rs = this.storeOf(d);
    // a version served through the conversion table makes its hub's caller checks (hubs come first)
    const hub = d.conversion?.hub;
    if (hub) rs.hubStore = this.all.find((h) => h.def.group === hub.group && h.def.version === hub.version && h.def.kind === hub.kind);
    this.byPath.set(path, rs);
    this.all.push(rs);
    return rs;
  }

  /** Stops serving a type added with `add`: its path answers 404 and its watch cache stops. */
  remove(rs: ResourceStore): void {
    const path = `${rs.def.group}/${rs.def.version}/${rs.def.plural}`;
    if (this.byPath.get(path) === rs) this.byPath.delete(path);
    const i = this.all.indexOf(rs);
    if (i >= 0) this.all.splice(i, 1);
    rs.close();
  }

  /** Every stored object of rs's type in every namespace but obj itself. */
  private async othersOf(rs: ResourceStore, obj: Obj): Promise<Obj[]> {
    const list = await rs.list("", {});
    return (list.items as Obj[]).filter((o) => o.metadata?.name !== obj.metadata?.name || o.metadata?.namespace !== obj.metadata?.namespace);
  }

  /** The store serving a kind at an apiVersion (for owner references). */
  byKind(apiVersion: string, kind: string): ResourceStore | undefined {
    return this.all.find((rs) => rs.def.kind === kind && (rs.def.group ? `${rs.def.group}/${rs.def.version}` : rs.def.version) === apiVersion && !rs.def.codec);
  }

  lookup(group: string, version: string, resource: string): ResourceStore | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  get namespaces(): ResourceStore { return this.lookup("", "v1", "namespaces")!; }

  get priorityClasses(): ResourceStore { return this.lookup("scheduling.k8s.io", "v1", "priorityclasses")!; }

  /** The system namespaces exist from the first start. */
  async bootstrap() {
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await this.namespaces.create("", { metadata: { name } });
      } catch (e) {
        if ((e as any).code !== 409) throw e;
      }
    }
  }
}
