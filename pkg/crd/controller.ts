// Serves custom resources: follows the CustomResourceDefinitions through the registry's watch (as upstream's
// apiextensions server follows its informer), keeps each definition's status (accepted names, conditions,
// stored versions), and adds its served versions to the registry and discovery at once. A deleted
// definition first loses its objects (the customresourcecleanup finalizer), then its endpoints.
import { consola } from "consola";
import { WebhookClient } from "../admission/webhook/client.ts";
import type { Discovery } from "../api/discovery.ts";
import { Informer } from "../registry/informer.ts";
import type { ResourceStore } from "../registry/generic.ts";
import { now } from "../registry/metadata-values.ts";
import type { Registry } from "../registry/registry.ts";
import type { Obj, ResourceDef } from "../registry/types.ts";
import { type ServedState, compareVersions, servedDefs } from "./defs.ts";
import { acceptNames, established, setCondition } from "./names.ts";

export const CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

interface Served { key: string; stores: ResourceStore[]; state: ServedState }

export class CustomResources {
  private crds = new Map<string, Obj>();
  private served = new Map<string, Served>();
  /** One reconcile per definition at a time; a change during one runs another after it. */
  private queued = new Map<string, Promise<void>>();
  private dirty = new Set<string>();
  private informer?: Informer;
  private stopped = false;

  /** Calls the definitions' conversion webhooks. */
  private webhooks: WebhookClient;

  constructor(private registry: Registry, private discovery: Discovery) {
    this.webhooks = new WebhookClient(registry);
  }

  private get definitions(): ResourceStore { return this.registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")!; }

  /** Resolves once every stored definition is served. */
  async start(): Promise<void> {
    this.informer = new Informer(this.definitions, {
      upsert: (o) => { this.crds.set(o.metadata.name, o); this.enqueue(o.metadata.name); },
      remove: (o) => { this.crds.delete(o.metadata.name); this.enqueue(o.metadata.name); },
      reset: () => this.crds.clear(),
    });
    await this.informer.start();
    await Promise.all([...this.queued.values()]);
  }

  stop() {
    this.stopped = true;
    this.informer?.close();
  }

  private enqueue(name: string) {
    if (this.queued.has(name)) { this.dirty.add(name); return; }
    const run = async (): Promise<void> => {
      try { await this.reconcile(name); } catch (e) { consola.warn(`custom resources of ${name}: ${(e as Error).message}`); }
      if (this.dirty.delete(name) && !this.stopped) return run();
    };
    const p = run().finally(() => this.queued.delete(name));
    this.queued.set(name, p);
  }

  private async reconcile(name: string) {
    const crd = this.crds.get(name);
    if (!crd) return this.unserve(name);
    // a definition being deleted takes no new objects from now on, before its Terminating condition is written
    const served = this.served.get(name);
    if (served && crd.metadata.deletionTimestamp) served.state.terminating = true;
    const status = this.statusOf(crd);
    if (!Bun.deepEquals(status, crd.status ?? {})) {
      // the next event (this write) reconciles again, with the status written
      await this.definitions.guaranteedUpdate("", name, (cur) => ({ ...cur, status: this.statusOf(cur) }), { sub: "status", serverOwned: true }).catch(ignoreGone);
      return;
    }
    const ok = (t: string) => (status.conditions ?? []).some((c: Obj) => c.type === t && c.status === "True");
    if (ok("Established")) this.serve(crd);
    if (crd.metadata.deletionTimestamp && (crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) await this.cleanUp(crd);
  }

  /** The status a definition should have now. */
  private statusOf(crd: Obj): Obj {
    const naming = acceptNames(crd, [...this.crds.values()]);
    const at = now();
    let conditions: Obj[] = crd.status?.conditions ?? [];
    conditions = setCondition(conditions, naming.namesAccepted, at);
    conditions = setCondition(conditions, established({ ...crd, status: { ...crd.status, conditions } }, naming), at);
    if (crd.metadata.deletionTimestamp) {
      const t = conditions.find((c) => c.type === "Terminating");
      if (!t) conditions = setCondition(conditions, { type: "Terminating", status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" }, at);
    }
    const storage = (crd.spec?.versions ?? []).find((v: Obj) => v.storage)?.name;
    const stored: string[] = [...(crd.status?.storedVersions ?? [])];
    if (storage && !stored.includes(storage)) stored.push(storage);
    return { ...crd.status, conditions, acceptedNames: naming.acceptedNames, storedVersions: stored };
  }

  /** Serves the definition's versions; a definition that did not change keeps its stores (and their watches). */
  private serve(crd: Obj) {
    const name = crd.metadata.name;
    const key = JSON.stringify([crd.spec, crd.status?.acceptedNames]);
    const cur = this.served.get(name);
    const terminating = !!crd.metadata.deletionTimestamp;
    if (cur?.key === key) { cur.state.terminating = terminating; return; }
    const state: ServedState = { terminating };
    for (const rs of cur?.stores ?? []) this.registry.remove(rs);
    // a built-in type keeps its path whatever a definition claims
    const free = (d: ResourceDef) => !!this.registry.lookup(d.group, d.version, d.plural)?.def.custom || !this.registry.lookup(d.group, d.version, d.plural);
    const stores = servedDefs(crd, state, this.webhooks).filter(free).map((d) => this.registry.add(d));
    this.served.set(name, { key, stores, state });
    this.publish();
  }

  private unserve(name: string) {
    const cur = this.served.get(name);
    if (!cur) return;
    for (const rs of cur.stores) this.registry.remove(rs);
    this.served.delete(name);
    this.publish();
  }

  /** Discovery: the built-in types, then the custom groups by name, each group's versions by priority. */
  private publish() {
    const custom: ResourceDef[] = [...this.served.values()].flatMap((s) => s.stores.map((rs) => rs.def));
    custom.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : compareVersions(a.version, b.version)));
    // the built-in types stay as the server gave them (--runtime-config may hide some the registry stores)
    this.discovery.setDefs([...this.discovery.served.filter((d) => !d.custom), ...custom]);
  }

  /** Deletes every object of a definition being deleted, then lets the definition go. */
  private async cleanUp(crd: Obj) {
    const served = this.served.get(crd.metadata.name);
    // the storage version's store reads its objects without a conversion
    const rs = served?.stores.find((s) => !s.def.codec && !s.def.asyncCodec) ?? served?.stores[0];
    for (let round = 0; rs && !this.stopped; round++) {
      const items: Obj[] = (await rs.list("")).items;
      if (!items.length) break;
      for (const o of items) {
        if (o.metadata.deletionTimestamp) continue;
        await rs.delete(o.metadata.namespace ?? "", o.metadata.name, {}).catch(ignoreGone);
      }
      await Bun.sleep(Math.min(1000, 50 * 2 ** round));
    }
    if (this.stopped) return;
    await this.definitions.guaranteedUpdate("", crd.metadata.name, (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f: string) => f !== CLEANUP_FINALIZER);
      return cur;
    }, { serverOwned: true }).catch(ignoreGone);
  }
}

function ignoreGone(e: { code?: number }) {
  if (e.code !== 404) throw e;
}
