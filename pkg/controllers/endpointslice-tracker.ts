// Which EndpointSlices the endpointslice controller wrote last, and at which resourceVersion (upstream's
// EndpointSliceTracker, on resourceVersions as Kite's slices carry no generation): a slice event that is
// only the echo of our own write needs no sync, and a cache older than our writes must not be acted on.
import type { Obj } from "../client/client.ts";

/** Marks a slice we deleted and are waiting to see go. */
const DELETED = -1n;
const rv = (s: Obj) => BigInt(s.metadata.resourceVersion || "0");

export class SliceTracker {
  /** Service key → slice uid → the resourceVersion we wrote (or DELETED). */
  private readonly byService = new Map<string, Map<string, bigint>>();

  private slices(svcKey: string): Map<string, bigint> {
    let m = this.byService.get(svcKey);
    if (!m) this.byService.set(svcKey, (m = new Map()));
    return m;
  }

  /** We wrote this slice (the server's answer). */
  wrote(svcKey: string, slice: Obj): void { this.slices(svcKey).set(slice.metadata.uid, rv(slice)); }
  deleted(svcKey: string, slice: Obj): void { this.slices(svcKey).set(slice.metadata.uid, DELETED); }
  forgetService(svcKey: string): void { this.byService.delete(svcKey); }

  /** A slice event needs a sync unless it is our own write (or older). */
  shouldSync(svcKey: string, slice: Obj): boolean {
    const v = this.byService.get(svcKey)?.get(slice.metadata.uid);
    return v === undefined || v === DELETED || rv(slice) > v;
  }

  /** A slice is gone; true if that was our delete (then nothing is to be done). */
  handleDeletion(svcKey: string, slice: Obj): boolean {
    const m = this.byService.get(svcKey);
    const expected = m?.get(slice.metadata.uid) === DELETED;
    m?.delete(slice.metadata.uid);
    return expected;
  }

  /** Whether the cache's slices lag behind our writes: a slice we wrote missing or older, or one we deleted still there. */
  stale(svcKey: string, cached: Obj[]): boolean {
    const m = this.byService.get(svcKey);
    if (!m) return false;
    const seen = new Map(cached.map((s) => [s.metadata.uid as string, s]));
    for (const [uid, v] of m) {
      const s = seen.get(uid);
      if (v === DELETED ? s !== undefined : !s || rv(s) < v) return true;
    }
    return false;
  }
}
