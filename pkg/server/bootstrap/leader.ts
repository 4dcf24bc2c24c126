// Which API server keeps the built-in objects when several share one store: the holder of the Lease
// kube-system/kite-bootstrap (as upstream's controller-manager is leader-elected). Servers with their own
// CA or port would otherwise rewrite each other's kube-root-ca.crt and kubernetes Endpoints for ever.
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type { ResourceStore } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";
import { microTime } from "../../client/time.ts";
import { current } from "./informer.ts";

const NAME = "kite-bootstrap";
const NS = "kube-system";
/** A holder silent for this long loses the lease; an API server in the `kubernetes` Endpoints is left out after it too (upstream's master lease TTL is 15 s). */
export const LEASE_SECONDS = 15;
export const RENEW_MS = 5000;


/** This server's identity: stable across restarts on the same data dir, different for every data dir. */
export function identity(dataDir: string): string {
  return `${hostname()}_${createHash("sha256").update(dataDir).digest("hex").slice(0, 12)}`;
}

function expired(lease: Obj, now: number): boolean {
  if (!lease.spec?.holderIdentity) return true; // handed back
  const renewed = Date.parse(lease.spec?.renewTime ?? lease.spec?.acquireTime ?? "");
  return !Number.isFinite(renewed) || now > renewed + (lease.spec?.leaseDurationSeconds ?? LEASE_SECONDS) * 1000;
}

/** Takes or renews the lease; true when this server holds it afterwards. */
export async function holdLease(leases: ResourceStore, id: string): Promise<boolean> {
  const now = Date.now();
  const lease = await current(leases, NS, NAME);
  if (lease && lease.spec?.holderIdentity !== id && !expired(lease, now)) return false;
  const spec = (cur?: Obj) => ({
    holderIdentity: id,
    leaseDurationSeconds: LEASE_SECONDS,
    acquireTime: cur?.holderIdentity === id ? cur.acquireTime : microTime(now),
    renewTime: microTime(now),
    leaseTransitions: (cur?.leaseTransitions ?? 0) + (cur && cur.holderIdentity !== id ? 1 : 0),
  });
  try {
    if (!lease) await leases.create(NS, { metadata: { name: NAME }, spec: spec() }, { fieldManager: "kube-apiserver" });
    // The lease's resourceVersion is the precondition: of two servers taking it over, one wins.
    else await leases.guaranteedUpdate(NS, NAME, (cur) => ({ ...cur, metadata: { ...cur.metadata, resourceVersion: lease.metadata.resourceVersion }, spec: spec(lease.spec) }), { fieldManager: "kube-apiserver" });
    return true;
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (code === 409 || code === 403 || code === 404) return false;
    throw e;
  }
}

/** Hands the lease back at shutdown (upstream's ReleaseOnCancel), so the next server need not wait it out. */
export async function releaseLease(leases: ResourceStore, id: string): Promise<void> {
  await leases.guaranteedUpdate(NS, NAME, (cur) => {
    if (cur.spec?.holderIdentity !== id) return cur;
    return { ...cur, spec: { ...cur.spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: microTime(Date.now()) } };
  }, { fieldManager: "kube-apiserver" }).catch(() => {});
}
