// One priority level's fair queuing: hands of distinct queues, a quiet flow started ahead of a noisy
// flow's backlog (at once when nothing of it waits or runs), the queue length limit, the wait limit, and Reject levels.
import { beforeEach, describe, expect, test } from "bun:test";
import { QueueSet } from "../../pkg/flowcontrol/queueset.ts";

const shape = { limit: 1, reject: false, queues: 16, handSize: 4, queueLengthLimit: 50 };
/** Waits for every pending immediate (the turns in which waiting requests start). */
const turns = async (n = 50) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
/** Keeps the event loop's current turn busy for `ms`: later requests of the turn wait for the next one. */
const spend = (ms: number) => { const t = performance.now(); while (performance.now() - t < ms) { /* busy */ } };

describe("QueueSet", () => {
  // every test starts in a fresh turn of the event loop
  beforeEach(() => turns(2));

  test("a quiet flow's request starts ahead of a noisy flow's backlog", async () => {
    const set = new QueueSet(shape);
    const order: string[] = [];
    // the noisy flow holds the seat and queues 30 more behind it
    const first = set.enter("noisy", 10_000);
    if (first instanceof Promise) throw new Error("the first request should start at once");
    const noisy = Array.from({ length: 30 }, (_, i) => Promise.resolve(set.enter("noisy", 10_000)).then((e) => { order.push(`noisy-${i}`); return e; }));
    const quiet = Promise.resolve(set.enter("quiet", 10_000)).then((e) => { order.push("quiet"); return e; });
    // requests run one at a time: each releases its seat a turn after it started
    first.release();
    for (const p of [...noisy, quiet]) void p.then(async (e) => { await turns(1); e.release(); });
    await Promise.all([...noisy, quiet]);
    // the noisy flow spreads over its hand's queues, each as entitled as the quiet flow's one queue: the
    // quiet request starts within one round of them, not after the backlog of 30
    expect(order.indexOf("quiet")).toBeLessThanOrEqual(shape.handSize);
    expect(order.length).toBe(31);
  });

  test("a request of a flow with nothing waiting or running starts at once, ahead of a backlog; a busy flow's waits", async () => {
    const set = new QueueSet({ ...shape, limit: 16, queues: 64 });
    // more noisy requests than one turn starts: a backlog waits for later turns
    const noisy = Array.from({ length: 20 }, () => (spend(2), set.enter("noisy", 10_000)));
    expect(noisy.filter((e) => e instanceof Promise).length).toBeGreaterThan(0);
    expect(set.waiting).toBeGreaterThan(0);
    // the quiet flow's requests are the ones fair order starts next, one per idle queue of its hand:
    // they do not wait for a turn; once each of those queues runs one, the next queues like any other
    const quiet = Array.from({ length: shape.handSize }, () => set.enter("quiet", 10_000));
    expect(quiet.map((e) => (e as { outcome: string }).outcome)).toEqual(Array(shape.handSize).fill("dispatched"));
    const later = set.enter("quiet", 10_000);
    expect(later).toBeInstanceOf(Promise);
    for (const e of [...noisy, ...quiet, later]) void Promise.resolve(e).then(async (r) => { await turns(1); r.release(); });
    expect((await later).outcome).toBe("dispatched");
    await Promise.all(noisy);
    expect(set.waiting).toBe(0);
  });

  test("service had while nothing waited is no debt: the flow still starts at once once a backlog forms", async () => {
    const set = new QueueSet({ ...shape, limit: 16, queues: 64 });
    // the flow alone for a while: each request holds its seat a few ms
    for (let i = 0; i < 5; i++) {
      const e = set.enter("earlier", 10_000);
      await Bun.sleep(3);
      (await e).release();
    }
    await turns(2);
    const noisy = Array.from({ length: 20 }, () => (spend(2), set.enter("noisy", 10_000)));
    expect(set.waiting).toBeGreaterThan(0);
    expect(set.enter("earlier", 10_000)).toMatchObject({ outcome: "dispatched" });
    for (const e of noisy) void Promise.resolve(e).then(async (r) => { await turns(1); r.release(); });
    await Promise.all(noisy);
  });

  test("a full queue and a wait past the limit turn requests away; Reject levels never queue", async () => {
    const set = new QueueSet({ ...shape, queues: 1, handSize: 1, queueLengthLimit: 2 });
    const held = set.enter("a", 10_000);
    if (held instanceof Promise) throw new Error("the first request should start at once");
    const waiting = [set.enter("a", 50), set.enter("a", 50)];
    expect(await set.enter("a", 50)).toMatchObject({ outcome: "queue-full" });
    expect((await Promise.all(waiting)).map((e) => e.outcome)).toEqual(["time-out", "time-out"]);
    held.release();
    const reject = new QueueSet({ ...shape, reject: true });
    const r1 = reject.enter("a", 10_000);
    expect(r1).toMatchObject({ outcome: "dispatched" });
    expect(reject.enter("b", 10_000)).toMatchObject({ outcome: "concurrency-limit" });
    (r1 as { release(): void }).release();
    expect(reject.enter("b", 10_000)).toMatchObject({ outcome: "dispatched" });
  });

  test("flows are dealt distinct queues, the same each time", async () => {
    const set = new QueueSet({ ...shape, limit: 100, queues: 64, handSize: 6 });
    // hold one seat per request so each pick sees the queues the earlier ones filled
    const picks = new Set<unknown>();
    for (let i = 0; i < 6; i++) {
      const e = set.enter("flow-x", 10_000);
      await turns(2);
      picks.add((set as any).hands.get("flow-x").join(","));
      expect(e).not.toBeInstanceOf(Promise);
    }
    const hand: number[] = (set as any).hands.get("flow-x");
    expect(new Set(hand).size).toBe(6);
    expect(hand.every((i) => i >= 0 && i < 64)).toBe(true);
    expect(picks.size).toBe(1);
  });

  test("a new shape while requests wait (a PriorityLevelConfiguration written): each waiter starts once, then the set serves on", async () => {
    const set = new QueueSet(shape);
    const first = set.enter("a", 10_000);
    if (first instanceof Promise) throw new Error("the first request should start at once");
    const waiting = ["a", "b", "c"].map((f) => Promise.resolve(set.enter(f, 10_000)));
    set.configure({ ...shape, queues: 8 });
    expect(set.waiting).toBe(3);
    first.release();
    for (const p of waiting) void p.then(async (e) => { await turns(1); e.release(); });
    expect((await Promise.all(waiting)).map((e) => e.outcome)).toEqual(["dispatched", "dispatched", "dispatched"]);
    await turns();
    expect([set.waiting, set.executing]).toEqual([0, 0]);
    const after = await set.enter("d", 10_000);
    expect(after.outcome).toBe("dispatched");
    after.release();
  });
});

