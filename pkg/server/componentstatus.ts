// componentstatuses (v1 ComponentStatus, deprecated in v1.19): computed on each read, as upstream's
// apiserver probes its components. Kite's one component behind the API server is its store: etcd-N per
// store (the main one first, then the --etcd-servers-overrides ones), healthy when it answers in time.
import { EtcdStore } from "../storage/etcd.ts";
import type { Store } from "../storage/store.ts";
import type { Obj } from "../registry/types.ts";

/** What etcd's /health answers when healthy; upstream shows it as the message. */
const HEALTHY = JSON.stringify({ health: "true" });

async function probe(st: Store, timeoutMs: number): Promise<Obj> {
  try {
    if (st instanceof EtcdStore) await st.healthy(timeoutMs);
    else await st.currentRevision();
    return { type: "Healthy", status: "True", message: HEALTHY };
  } catch (e) {
    return { type: "Healthy", status: "False", error: (e as Error).message };
  }
}

export function componentStatuses(stores: () => Store[], timeoutMs: number): () => Promise<Obj[]> {
  return async () => Promise.all(stores().map(async (st, i) => ({
    kind: "ComponentStatus",
    apiVersion: "v1",
    metadata: { name: `etcd-${i}`, creationTimestamp: null },
    conditions: [await probe(st, timeoutMs)],
  })));
}
