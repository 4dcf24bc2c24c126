// The Store conformance suite: every backend runs exactly these tests (DESIGN.md §3).
// A backend's test file is a few lines: runStoreConformance("name", () => newStore()).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Store, StoreError, type WatchEvent } from "../../pkg/storage/store.ts";

const code = async (p: Promise<unknown>) => {
  try { await p; } catch (e) { return e instanceof StoreError ? e.code : `other: ${e}`; }
  return "ok";
};

export function runStoreConformance(name: string, newStore: () => Promise<Store>) {
  describe(`Store conformance: ${name}`, () => {
    let s: Store;
    beforeEach(async () => { s = await newStore(); });
    afterEach(async () => { await s.close(); });

    test("create then get returns the value with its revisions", async () => {
      const kv = await s.create("/r/a/1", '{"v":1}');
      expect(kv.modRevision).toBe(kv.createRevision);
      expect(await s.get("/r/a/1")).toEqual(kv);
      expect(await s.currentRevision()).toBe(kv.modRevision);
    });

    test("create of a live key fails with KeyExists and consumes no revision", async () => {
      await s.create("/r/a/1", "1");
      const rev = await s.currentRevision();
      expect(await code(s.create("/r/a/1", "2"))).toBe("KeyExists");
      expect(await s.currentRevision()).toBe(rev);
    });

    test("update is a compare-and-swap on the key's revision", async () => {
      const a = await s.create("/r/a/1", "1");
      const b = await s.update("/r/a/1", "2", a.modRevision);
      expect(b.modRevision).toBeGreaterThan(a.modRevision);
      expect(b.createRevision).toBe(a.createRevision);
      expect(await code(s.update("/r/a/1", "3", a.modRevision))).toBe("Conflict");
      expect((await s.get("/r/a/1"))!.value).toBe("2");
      expect(await code(s.update("/r/a/missing", "3", 1))).toBe("NotFound");
    });

    test("concurrent updates from one revision: exactly one wins", async () => {
      const a = await s.create("/r/a/1", "0");
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => code(s.update("/r/a/1", String(i + 1), a.modRevision))));
      expect(results.filter((r) => r === "ok").length).toBe(1);
      expect(results.filter((r) => r === "Conflict").length).toBe(9);
    });

    test("delete leaves a tombstone: gone now, readable at older revisions", async () => {
      const a = await s.create("/r/a/1", "1");
      const d = await s.delete("/r/a/1");
      expect(d.value).toBe("1");
      expect(await s.get("/r/a/1")).toBeNull();
      expect((await s.get("/r/a/1", a.modRevision))!.value).toBe("1");
      expect(await code(s.delete("/r/a/1"))).toBe("NotFound");
      const again = await s.create("/r/a/1", "new");
      expect(again.createRevision).toBe(again.modRevision);
    });

    test("delete with a stale expected revision is refused", async () => {
      const a = await s.create("/r/a/1", "1");
      await s.update("/r/a/1", "2", a.modRevision);
      expect(await code(s.delete("/r/a/1", a.modRevision))).toBe("Conflict");
      expect(await s.get("/r/a/1")).not.toBeNull();
    });

    test("list is ordered by key, scoped by prefix, and reads at a revision", async () => {
      await s.create("/r/a/2", "2");
      await s.create("/r/a/1", "1");
      await s.create("/r/ab/1", "x"); // shares a string prefix with /r/a but not the '/r/a/' prefix
      const mid = await s.currentRevision();
      await s.create("/r/a/3", "3");
      await s.delete("/r/a/1");
      const now = await s.list("/r/a/");
      expect(now.items.map((i) => i.key)).toEqual(["/r/a/2", "/r/a/3"]);
      const then = await s.list("/r/a/", { revision: mid });
      expect(then.items.map((i) => i.key)).toEqual(["/r/a/1", "/r/a/2"]);
      expect(then.revision).toBe(mid);
    });

    test("list pages with limit and startKey, counting what remains", async () => {
      for (let i = 0; i < 7; i++) await s.create(`/r/p/${i}`, String(i));
      const p1 = await s.list("/r/p/", { limit: 3 });
      expect(p1.items.map((i) => i.value)).toEqual(["0", "1", "2"]);
      expect(p1.more).toBe(true);
      expect(p1.remaining).toBe(4);
      const p2 = await s.list("/r/p/", { limit: 3, startKey: p1.items[2].key + "\x00", revision: p1.revision });
      expect(p2.items.map((i) => i.value)).toEqual(["3", "4", "5"]);
      const p3 = await s.list("/r/p/", { limit: 3, startKey: p2.items[2].key + "\x00", revision: p1.revision });
      expect(p3.items.map((i) => i.value)).toEqual(["6"]);
      expect(p3.more).toBe(false);
      expect(await s.count("/r/p/")).toBe(7);
    });

    test("watch replays history after a revision, then streams live changes in order", async () => {
      const a = await s.create("/r/w/1", "1");
      await s.update("/r/w/1", "2", a.modRevision);
      await s.create("/r/x/1", "other prefix");
      const events: WatchEvent[] = [];
      const w = await s.watch("/r/w/", a.modRevision - 1, (e) => events.push(e));
      await s.delete("/r/w/1");
      await s.create("/r/w/2", "3");
      await Bun.sleep(50);
      w.close();
      expect(events.map((e) => [e.type, e.kv.value, e.created])).toEqual([
        ["PUT", "1", true], ["PUT", "2", false], ["DELETE", "2", false], ["PUT", "3", true],
      ]);
      expect(events[1].prev?.value).toBe("1");
      const revs = events.map((e) => e.kv.modRevision);
      expect([...revs].sort((x, y) => x - y)).toEqual(revs);
    });

    test("compaction drops superseded history but keeps live values", async () => {
      const a = await s.create("/r/c/1", "1");
      const b = await s.update("/r/c/1", "2", a.modRevision);
      await s.create("/r/c/2", "x");
      await s.delete("/r/c/2");
      await s.compact(await s.currentRevision());
      expect(await code(s.get("/r/c/1", a.modRevision))).toBe("Compacted");
      expect(await code(s.watch("/r/c/", a.modRevision, () => {}))).toBe("Compacted");
      expect((await s.get("/r/c/1"))!.modRevision).toBe(b.modRevision);
      expect((await s.list("/r/c/")).items.map((i) => i.key)).toEqual(["/r/c/1"]);
    });

    test("a read at a future revision fails with FutureRevision", async () => {
      await s.create("/r/f/1", "1");
      expect(await code(s.list("/r/f/", { revision: (await s.currentRevision()) + 100 }))).toBe("FutureRevision");
    });
  });
}
