// The namespace controller: empties a namespace being deleted, then removes its "kubernetes" finalizer.
import { consola } from "consola";
import type { Registry } from "../registry/registry.ts";
import type { Obj } from "../registry/types.ts";

export class NamespaceController {
  private busy = new Set<string>();
  private stopped = false;
  private closeWatch = () => {};

  constructor(private registry: Registry) {}

  async start() {
    const ns = this.registry.namespaces;
    const list = await ns.list("");
    for (const o of list.items) this.enqueue(o);
    const w = await ns.store.watch(ns.collectionPrefix(""), Number(list.metadata.resourceVersion), (ev) => {
      if (ev.type === "PUT") this.enqueue(ns.decode(ev.kv));
    });
    this.closeWatch = () => w.close();
  }

  stop() {
    this.stopped = true;
    this.closeWatch();
  }

  private enqueue(o: Obj) {
    if (!o.metadata.deletionTimestamp || this.busy.has(o.metadata.name)) return;
    this.busy.add(o.metadata.name);
    this.drain(o.metadata.name).catch((e) => consola.warn(`namespace ${o.metadata.name}: ${e.message}`)).finally(() => this.busy.delete(o.metadata.name));
  }

  /** Deletes everything in the namespace until nothing is left, then finalizes it. */
  private async drain(name: string) {
    for (let round = 0; !this.stopped; round++) {
      let left = 0;
      for (const rs of this.registry.all) {
        if (!rs.def.namespaced || rs.def.codec) continue; // a codec type shares storage with another
        const items = (await rs.list(name)).items;
        left += items.length;
        for (const item of items) {
          if (item.metadata.deletionTimestamp) continue;
          await rs.delete(name, item.metadata.name, { gracePeriodSeconds: 0 }).catch(() => {});
        }
      }
      if (left === 0) break;
      await Bun.sleep(Math.min(1000, 50 * 2 ** round));
    }
    if (this.stopped) return;
    const ns = this.registry.namespaces;
    await ns.guaranteedUpdate("", name, (cur) => ({ ...cur, spec: { ...cur.spec, finalizers: [] } }), { sub: "finalize" }).catch((e) => {
      if (e.code !== 404) throw e;
    });
  }
}
