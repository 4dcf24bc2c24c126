// Controller ownerReferences (upstream's ControllerRefManager): an object has at most one owner with
// `controller: true`. A controller claims the objects its selector matches — adopting orphans with a
// patch that adds its reference, releasing objects it owns that no longer match — and leaves objects
// other controllers own alone. Adoption first re-reads the owner from the API, so an owner being
// deleted never adopts.
import { ApiError, isNotFound, type Client, type Obj } from "../client/client.ts";
import type { ResourceRef } from "../client/resources.ts";
import type { Store } from "../client/store.ts";
import type { Selector } from "../scheduler/framework/selectors.ts";

export interface OwnerReference { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }

/** The object's controller reference, if any (GetControllerOf). */
export const controllerOf = (obj: Obj): OwnerReference | undefined => (obj.metadata?.ownerReferences ?? []).find((r: OwnerReference) => r.controller === true);

/** The reference an owned object carries to its controller (NewControllerRef). */
export const controllerRefTo = (owner: Obj, apiVersion: string, kind: string): OwnerReference =>
  ({ apiVersion, kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true });

/** The controller in `store` that `ref` names, if it is of `kind` and still the same object (resolveControllerRef). */
export function resolveControllerRef(store: Store, namespace: string, ref: OwnerReference | undefined, kind: string): Obj | undefined {
  if (!ref || ref.kind !== kind) return undefined;
  const owner = store.get(`${namespace}/${ref.name}`);
  return owner && owner.metadata.uid === ref.uid ? owner : undefined;
}

/** An index of objects by their controller's uid: what a controller owns, without scanning. */
export const CONTROLLER_UID_INDEX = "controllerUID";
export const controllerUIDIndex = (obj: Obj): string[] => {
  const ref = controllerOf(obj);
  return ref ? [ref.uid] : [];
};

/** True for an error that says the object changed under us or is gone (nothing to release). */
const isGoneOrInvalid = (e: unknown) => isNotFound(e) || (e instanceof ApiError && e.code === 422);

/**
 * Claims objects of one resource for one controller. `ownerRef` reads the owner's apiVersion and kind;
 * `freshOwner` re-reads the owner from the API (once per claim) before the first adoption.
 */
export class ClaimManager {
  private checked?: Promise<void>;

  constructor(
    private readonly client: Client,
    private readonly resource: ResourceRef,
    private readonly owner: Obj,
    private readonly ownerRef: OwnerReference,
    private readonly selector: Selector,
    private readonly freshOwner: () => Promise<Obj>,
  ) {}

  /** The objects that are (now) the owner's, of `objs`. */
  async claim(objs: Obj[]): Promise<Obj[]> {
    const claimed: Obj[] = [];
    const errors: Error[] = [];
    await Promise.all(objs.map(async (o) => {
      try {
        if (await this.claimOne(o)) claimed.push(o);
      } catch (e) {
        errors.push(e as Error);
      }
    }));
    if (errors.length) throw errors[0];
    return claimed;
  }

  private async claimOne(o: Obj): Promise<boolean> {
    const ref = controllerOf(o);
    const match = this.selector.matches(o.metadata.labels);
    const ownerGoing = !!this.owner.metadata.deletionTimestamp;
    if (ref) {
      if (ref.uid !== this.owner.metadata.uid) return false;
      if (match) return true;
      if (ownerGoing) return false;
      await this.release(o);
      return false;
    }
    if (ownerGoing || !match || o.metadata.deletionTimestamp || o.metadata.namespace !== this.owner.metadata.namespace) return false;
    await this.canAdopt();
    try {
      await this.patch(o, [this.ownerRef]);
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
    return true;
  }

  private canAdopt(): Promise<void> {
    this.checked ??= this.freshOwner().then((fresh) => {
      const m = this.owner.metadata;
      if (fresh.metadata.uid !== m.uid) throw new Error(`original ${m.namespace}/${m.name} is gone: got uid ${fresh.metadata.uid}, wanted ${m.uid}`);
      if (fresh.metadata.deletionTimestamp) throw new Error(`${m.namespace}/${m.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    });
    return this.checked;
  }

  private async release(o: Obj): Promise<void> {
    try {
      await this.patch(o, [{ $patch: "delete", uid: this.owner.metadata.uid }]);
    } catch (e) {
      if (!isGoneOrInvalid(e)) throw e;
    }
  }

  /** A strategic merge of ownerReferences (merged by uid), guarded by the object's uid. */
  private patch(o: Obj, refs: Obj[]): Promise<Obj> {
    return this.client.patch(this.resource, o.metadata.name, { metadata: { ownerReferences: refs, uid: o.metadata.uid } }, "strategic", { namespace: o.metadata.namespace });
  }
}
