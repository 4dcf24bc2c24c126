// The node's heartbeat: the Lease kube-node-lease/<node>, renewed every quarter of its duration (40 s,
// or nodeLeaseDurationSeconds of --config; as upstream's nodelease controller), owned by the Node so it
// goes when the Node goes.
import { consola } from "consola";
import { isConflict, isNotFound, type Client, type Obj } from "../client/client.ts";
import { sleep } from "../client/ratelimit.ts";
import { RESOURCES } from "../client/resources.ts";
import { microTimeNow } from "../client/time.ts";

export const NODE_LEASE_NAMESPACE = "kube-node-lease";

export class NodeLease {
  private latest?: Obj;

  /** nodeUid() is the registered Node's uid, or undefined while it is not known. */
  constructor(private readonly client: Client, private readonly nodeName: string, private readonly nodeUid: () => string | undefined, private readonly durationSeconds = 40) {}

  /** The spec and owner a renewal writes (the owner only once the Node's uid is known). */
  private stamp(lease: Obj): Obj {
    const uid = this.nodeUid();
    const next = structuredClone(lease);
    next.spec = { ...next.spec, holderIdentity: this.nodeName, leaseDurationSeconds: this.durationSeconds, renewTime: microTimeNow() };
    if (uid && !(next.metadata.ownerReferences ?? []).some((r: Obj) => r.uid === uid)) {
      next.metadata.ownerReferences = [{ apiVersion: "v1", kind: "Node", name: this.nodeName, uid }];
    }
    return next;
  }

  /** One renewal: updates the Lease last written (after a conflict, the one read again), creating it when absent. */
  async renew(): Promise<void> {
    const ns = NODE_LEASE_NAMESPACE;
    for (let attempt = 0; ; attempt++) {
      try {
        this.latest ??= await this.client.get(RESOURCES.leases, this.nodeName, { namespace: ns });
        this.latest = await this.client.update(RESOURCES.leases, this.stamp(this.latest!), { namespace: ns });
        return;
      } catch (e) {
        this.latest = undefined;
        if (isConflict(e) && attempt === 0) continue;
        if (!isNotFound(e)) throw e;
        const fresh = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: this.nodeName, namespace: ns } };
        this.latest = await this.client.create(RESOURCES.leases, this.stamp(fresh), { namespace: ns });
        return;
      }
    }
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.renew();
      } catch (e) {
        if (!signal.aborted) consola.warn(`failed to update lease ${NODE_LEASE_NAMESPACE}/${this.nodeName}: ${(e as Error).message}`);
      }
      try { await sleep(this.durationSeconds * 1000 / 4, signal); } catch { return; }
    }
  }
}
