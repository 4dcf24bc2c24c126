// Which API servers the `kubernetes` Endpoints list (--endpoint-reconciler-type): with `lease`, every
// server renews a Lease kube-system/kite-apiserver-<id> whose holder is its address:port, and the
// Endpoints list the live ones (upstream keeps the same record as TTL keys under /masterleases/);
// `master-count` lists at most --apiserver-count of them; `none` leaves the Endpoints alone.
import { createHash } from "node:crypto";
import type { ResourceStore } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";
import { microTime } from "../../client/time.ts";
import { current } from "./informer.ts";
import { LEASE_SECONDS } from "./leader.ts";

const NS = "kube-system";
export const LEASE_PREFIX = "kite-apiserver-";

const leaseName = (id: string) => LEASE_PREFIX + createHash("sha256").update(id).digest("hex").slice(0, 16);

/** Records that the server `id` serves at address:port now. */
export async function renewEndpointLease(leases: ResourceStore, id: string, address: string, port: number): Promise<void> {
  const name = leaseName(id);
  const spec = { holderIdentity: `${address}:${port}`, leaseDurationSeconds: LEASE_SECONDS, renewTime: microTime(Date.now()) };
  if (!(await current(leases, NS, name))) {
    await leases.create(NS, { metadata: { name, labels: { "k8s.io/component": "kube-apiserver" } }, spec }, { fieldManager: "kube-apiserver" })
      .catch((e) => { if (e.code !== 409) throw e; });
    return;
  }
  await leases.guaranteedUpdate(NS, name, (cur) => ({ ...cur, spec: { ...cur.spec, ...spec } }), { fieldManager: "kube-apiserver" });
}

/** Hands the record back at shutdown, so the Endpoints drop this server at once. */
export async function dropEndpointLease(leases: ResourceStore, id: string): Promise<void> {
  await leases.delete(NS, leaseName(id), {}).catch(() => {});
}

export const isEndpointLease = (lease: Obj) => lease.metadata.name.startsWith(LEASE_PREFIX);

/** The live servers' address:port, sorted (the Endpoints' order does not flap), at most `max`. */
export async function liveServers(leases: ResourceStore, max: number): Promise<{ ip: string; port: number }[]> {
  const now = Date.now();
  const list = await leases.list(NS);
  const live = (list.items as Obj[]).filter((l) => isEndpointLease(l) && now <= Date.parse(l.spec?.renewTime ?? "") + (l.spec?.leaseDurationSeconds ?? LEASE_SECONDS) * 1000);
  const out = live.map((l) => String(l.spec.holderIdentity)).sort().slice(0, max).map((h) => {
    const i = h.lastIndexOf(":");
    return { ip: h.slice(0, i), port: Number(h.slice(i + 1)) };
  });
  return out;
}
