// All resource stores of a server, found by URL coordinates.
import { forbidden, notFound } from "../api/status.ts";
import type { Store } from "../storage/store.ts";
import { DEFAULT_SERVICE_RANGES, ServiceAllocator, type ServiceRanges } from "./allocators.ts";
import { type Admit, type CacheConfig, ResourceStore } from "./generic.ts";
import { admitPodPriority, admitPriorityClass } from "./priority.ts";
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
}

export class Registry {
  private byPath = new Map<string, ResourceStore>();
  readonly all: ResourceStore[] = [];

  constructor(readonly defs: ResourceDef[], readonly store: Store, o: RegistryOptions) {
    const namespaceCheck = (ns: string, def: ResourceDef) => this.admitNamespace(ns, def);
    const caching = o.caching ?? DEFAULT_CACHE_SIZING;
    const services = new ServiceAllocator(o.serviceRanges ?? DEFAULT_SERVICE_RANGES);
    const nothingHeld = () => {};
    // Admission that reads stored objects, by kind (upstream's plugins that read informers).
    const admissions: Record<string, (rs: () => ResourceStore) => Admit> = {
      Service: (rs) => async (svc, old, dryRun) => services.admit(svc, old, await this.othersOf(rs(), svc), dryRun),
      Pod: () => async (pod, old) => {
        if (!old) await admitPodPriority(pod, this.priorityClasses);
        return nothingHeld;
      },
      "PriorityClass.scheduling.k8s.io": () => async (pc, old) => {
        await admitPriorityClass(pc, old, this.priorityClasses);
        return nothingHeld;
      },
    };
    for (const d of defs) {
      const st = o.overrides?.get(`${d.group}/${d.plural}`) ?? store;
      const admit = admissions[d.group ? `${d.kind}.${d.group}` : d.kind]?.(() => rs);
      const rs: ResourceStore = new ResourceStore(d, st, { etcdPrefix: o.etcdPrefix, namespaceCheck, admit, cache: cacheConfigFor(d, caching), binary: o.binary });
      this.byPath.set(`${d.group}/${d.version}/${d.plural}`, rs);
      this.all.push(rs);
    }
    for (const rs of this.all) {
      const hub = rs.def.conversion?.hub;
      if (hub) rs.hubStore = this.all.find((h) => h.def.group === hub.group && h.def.version === hub.version && h.def.kind === hub.kind);
    }
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

  /** NamespaceLifecycle admission: content goes only into namespaces that exist and are not terminating. */
  private async admitNamespace(ns: string, def: ResourceDef) {
    // From the watch cache first, as upstream's admission reads its informer; a miss is confirmed
    // with a consistent read, since the namespace may have been created a moment ago.
    const lookup = (rv: string) => this.namespaces.get("", ns, rv).catch((e) => {
      if ((e as any).code === 404) return null;
      throw e;
    });
    const nsObj = (await lookup("0")) ?? (await lookup(""));
    if (!nsObj) throw notFound({ group: "", resource: "namespaces" }, ns);
    if (nsObj.status?.phase === "Terminating" || nsObj.metadata.deletionTimestamp) {
      throw forbidden({ group: def.group, resource: def.plural }, "", `unable to create new content in namespace ${ns} because it is being terminated`);
    }
  }

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
