// All resource stores of a server, found by URL coordinates.
import { forbidden, notFound } from "../api/status.ts";
import type { Store } from "../storage/store.ts";
import { ResourceStore } from "./generic.ts";
import type { ResourceDef } from "./types.ts";

export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

export class Registry {
  private byPath = new Map<string, ResourceStore>();
  readonly all: ResourceStore[] = [];

  constructor(readonly defs: ResourceDef[], readonly store: Store, etcdPrefix: string) {
    const nsCheck = (ns: string, def: ResourceDef) => this.admitNamespace(ns, def);
    for (const d of defs) {
      const rs = new ResourceStore(d, store, etcdPrefix, nsCheck);
      this.byPath.set(`${d.group}/${d.version}/${d.plural}`, rs);
      this.all.push(rs);
    }
  }

  lookup(group: string, version: string, resource: string): ResourceStore | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  get namespaces(): ResourceStore { return this.lookup("", "v1", "namespaces")!; }

  /** NamespaceLifecycle admission: content goes only into namespaces that exist and are not terminating. */
  private async admitNamespace(ns: string, def: ResourceDef) {
    let nsObj;
    try {
      nsObj = await this.namespaces.get("", ns);
    } catch (e) {
      if ((e as any).code === 404) throw notFound({ group: "", resource: "namespaces" }, ns);
      throw e;
    }
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
