// The garbage collector: follows owner references when owners are deleted through this server.
// Background: dependents whose owners are all gone are deleted. Orphan: dependents lose the owner
// reference, then the owner's "orphan" finalizer is removed. Foreground: dependents are deleted first,
// then the owner's "foregroundDeletion" finalizer is removed.
import { consola } from "consola";
import type { ResourceStore } from "../registry/generic.ts";
import type { Registry } from "../registry/registry.ts";
import type { Obj } from "../registry/types.ts";

const refsTo = (o: Obj, uid: string) => (o.metadata.ownerReferences ?? []).some((r: Obj) => r?.uid === uid);

export class GarbageCollector {
  private stopped = false;

  constructor(private registry: Registry) {
    const observer = {
      deleted: (rs: ResourceStore, o: Obj) => this.run(() => this.collect(rs, o)),
      deleting: (rs: ResourceStore, o: Obj) => this.run(() => this.finalize(rs, o)),
    };
    for (const rs of registry.all) rs.observer = observer;
  }

  stop() { this.stopped = true; }

  private run(job: () => Promise<void>) {
    // Deletions answer their client first; collection follows.
    setImmediate(() => job().catch((e) => consola.warn(`garbage collector: ${e.message}`)));
  }

  /** Objects that name `owner` in their ownerReferences. */
  private async dependents(ownerRS: ResourceStore, owner: Obj): Promise<[ResourceStore, Obj][]> {
    const out: [ResourceStore, Obj][] = [];
    const ns = owner.metadata.namespace ?? "";
    for (const rs of this.registry.all) {
      if (rs.def.codec || rs.def.computed || (ownerRS.def.namespaced && !rs.def.namespaced)) continue;
      const list = await rs.list(rs.def.namespaced ? ns : "");
      for (const item of list.items) if (refsTo(item, owner.metadata.uid)) out.push([rs, item]);
    }
    return out;
  }

  /** Does the object an owner reference names still exist (same uid)? */
  private async exists(ns: string, ref: Obj): Promise<boolean> {
    const rs = this.registry.byKind(ref.apiVersion, ref.kind);
    if (!rs) return false;
    const o = await rs.get(rs.def.namespaced ? ns : "", ref.name).catch(() => null);
    return !!o && o.metadata.uid === ref.uid;
  }

  /** Background deletion: dependents left with no living owner go too. */
  private async collect(rs: ResourceStore, owner: Obj) {
    for (const [drs, dep] of await this.dependents(rs, owner)) {
      if (this.stopped) return;
      const others = (dep.metadata.ownerReferences as Obj[]).filter((r) => r.uid !== owner.metadata.uid);
      const alive = (await Promise.all(others.map((r) => this.exists(dep.metadata.namespace ?? "", r)))).some(Boolean);
      const ns = dep.metadata.namespace ?? "";
      if (alive) await this.dropOwner(drs, dep, owner.metadata.uid);
      else await drs.delete(ns, dep.metadata.name, { propagationPolicy: "Background" }).catch(ignoreGone);
    }
  }

  /** Orphan or foreground deletion of an owner that holds the matching finalizer. */
  private async finalize(rs: ResourceStore, owner: Obj) {
    const fins: string[] = owner.metadata.finalizers ?? [];
    const uid = owner.metadata.uid;
    if (fins.includes("orphan")) {
      for (const [drs, dep] of await this.dependents(rs, owner)) await this.dropOwner(drs, dep, uid);
      await this.removeFinalizer(rs, owner, "orphan");
    } else if (fins.includes("foregroundDeletion")) {
      for (let round = 0; !this.stopped; round++) {
        const deps = await this.dependents(rs, owner);
        if (deps.length === 0) break;
        for (const [drs, dep] of deps) {
          if (!dep.metadata.deletionTimestamp) await drs.delete(dep.metadata.namespace ?? "", dep.metadata.name, { propagationPolicy: "Foreground" }).catch(ignoreGone);
        }
        await Bun.sleep(Math.min(1000, 50 * 2 ** round));
      }
      await this.removeFinalizer(rs, owner, "foregroundDeletion");
    }
  }

  private async dropOwner(rs: ResourceStore, dep: Obj, uid: string) {
    await rs.guaranteedUpdate(dep.metadata.namespace ?? "", dep.metadata.name, (cur) => {
      const refs = (cur.metadata.ownerReferences ?? []).filter((r: Obj) => r.uid !== uid);
      if (refs.length) cur.metadata.ownerReferences = refs;
      else delete cur.metadata.ownerReferences;
      return cur;
    }, { fieldManager: "kite-garbage-collector" }).catch(ignoreGone);
  }

  private async removeFinalizer(rs: ResourceStore, owner: Obj, fin: string) {
    await rs.guaranteedUpdate(owner.metadata.namespace ?? "", owner.metadata.name, (cur) => {
      if (cur.metadata.uid !== owner.metadata.uid) return cur;
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f: string) => f !== fin);
      return cur;
    }).catch(ignoreGone);
  }
}

function ignoreGone(e: { code?: number }) {
  if (e?.code !== 404) throw e;
}
