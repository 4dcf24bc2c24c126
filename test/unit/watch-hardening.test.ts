// Issue 12, watches, in isolation: the watch cache's fan-out survives a watcher that throws; the
// budget counts shared bytes once and lets go of the biggest holders first; the outbox keeps a stuck
// watcher's backlog by reference, cuts it off past its bound at an event boundary, and disconnects it
// when it still does not read.
import { expect, test } from "bun:test";
import { type CacheWatcher, type CachedEvent, WatchCache } from "../../pkg/storage/cacher.ts";
import type { Store, WatchEvent } from "../../pkg/storage/store.ts";
import { type Holder, REF_COST, WatchBudget, watchBudget } from "../../pkg/api/handlers/watchbudget.ts";
import { MAX_BACKLOG, Outbox, PIECE } from "../../pkg/api/handlers/outbox.ts";

// ---- the watch cache's fan-out

test("a watcher that throws loses its watch; the others get the event, and the store's publish does not throw", async () => {
  let publish!: (ev: WatchEvent) => void;
  const store = {
    list: async () => ({ items: [], revision: 1, more: false, remaining: 0 }),
    watch: async (_p: string, _r: number, onEvent: (ev: WatchEvent) => void) => { publish = onEvent; return { close() {} }; },
  } as unknown as Store;
  const cache = new WatchCache(store, "/registry/x/", 10);
  await cache.whenReady();
  const got: string[] = [];
  const failed: string[] = [];
  const watcher = (name: string, push: (e: CachedEvent) => boolean): CacheWatcher => ({ push, fail: (e) => failed.push(`${name}: ${e.message}`) });
  cache.watch(1, watcher("a", (e) => (got.push(`a ${e.rev}`), true)));
  cache.watch(1, watcher("bad", () => { throw new Error("cannot encode"); }));
  cache.watch(1, watcher("b", (e) => (got.push(`b ${e.rev}`), true)));
  const ev = (rev: number): WatchEvent => ({ type: "PUT", created: true, kv: { key: `/registry/x/o${rev}`, value: "{}", modRevision: rev, createRevision: rev } });
  expect(() => publish(ev(2))).not.toThrow();
  publish(ev(3));
  expect(got).toEqual(["a 2", "b 2", "a 3", "b 3"]);
  expect(failed).toEqual(["bad: cannot encode"]);
  // A watcher that throws while the window is replayed to it is refused the same way.
  cache.watch(1, watcher("late", () => { throw new Error("cannot encode either"); }));
  expect(failed).toEqual(["bad: cannot encode", "late: cannot encode either"]);
  cache.close();
});

// ---- the budget

const holder = (held: number, log: string[], name: string, budget: WatchBudget, free: () => void): Holder & { held: number } => {
  const h = {
    held,
    evict() { log.push(name); free(); budget.leave(h); h.held = 0; },
  };
  budget.enter(h);
  return h;
};

test("the budget counts an array shared by many queues once (plus a slot per queue)", () => {
  const b = new WatchBudget(1 << 30);
  const ev = new Uint8Array(200 * 1024);
  for (let i = 0; i < 2000; i++) b.hold(ev);
  expect(b.total).toBeLessThan(ev.length + 2000 * REF_COST + 1024);
  for (let i = 0; i < 2000; i++) b.release(ev);
  expect(b.total).toBe(0);
});

test("making room lets go of the watchers that hold the most, and of the asker last", () => {
  const b = new WatchBudget(1000);
  const log: string[] = [];
  b.copied(900);
  const small = holder(100, log, "small", b, () => b.copied(-100));
  holder(500, log, "big", b, () => b.copied(-500));
  holder(300, log, "mid", b, () => b.copied(-300));
  const self: Holder = { held: 50, evict() {} };
  expect(b.room(self, 200)).toBe(true); // 900 + 200 > 1000: "big" goes, then it fits
  expect(log).toEqual(["big"]);
  expect(b.room(self, 700)).toBe(false); // 400 + 700 > 1000, and the asker (50 + 700) holds more than "mid" (300)
  expect(log).toEqual(["big"]);
  expect(small.held).toBe(100);
});

// ---- the outbox

/** A direct stream controller whose socket takes `room` bytes, then answers writes with a promise. */
function fakeController(room: number) {
  const c = {
    written: [] as Uint8Array[],
    closed: "" as "" | "closed" | "aborted",
    room,
    drain: () => {},
    write(b: Uint8Array): number | Promise<number> {
      c.written.push(b.slice());
      c.room -= b.length;
      if (c.room >= 0) return b.length;
      return new Promise<number>((r) => (c.drain = () => r(b.length)));
    },
    flush() { return 0; },
    close(e?: Error) { c.closed = e ? "aborted" : "closed"; },
  };
  return c;
}

const tick = () => Bun.sleep(1);
const text = (bs: Uint8Array[]) => Buffer.concat(bs).toString();

test("a stuck watcher keeps its backlog by reference: Bun gets at most one piece, the budget counts shared bytes once", async () => {
  const before = watchBudget.total;
  const ctls = Array.from({ length: 50 }, () => fakeController(100 * 1024));
  const outs = ctls.map((c) => new Outbox(c as unknown as ReadableStreamDirectController, { overflow() {}, finished() {} }));
  const events = Array.from({ length: 20 }, (_, i) => new Uint8Array(100 * 1024).fill(65 + i));
  for (const ev of events) {
    for (const o of outs) o.push(ev);
    await tick();
  }
  for (const c of ctls) {
    // the socket took 100 KB; then one piece was written and is waiting; nothing more was handed over
    expect(c.written.reduce((n, b) => n + b.length, 0)).toBeLessThanOrEqual(100 * 1024 + PIECE);
    for (const b of c.written) expect(b.length).toBeLessThanOrEqual(PIECE);
  }
  // 50 watchers × ~1.9 MB queued, counted as the distinct events once plus the 50 pieces Bun holds
  const counted = watchBudget.total - before;
  expect(counted).toBeLessThan(20 * 100 * 1024 + 50 * PIECE + 50 * 20 * REF_COST + 20 * 1024);
  // the sockets drain: everything arrives, in order, and the budget is back where it was
  for (const c of ctls) { c.room = 1 << 30; c.drain(); }
  const all = 20 * 100 * 1024;
  for (let round = 0; round < 500 && ctls.some((c) => c.written.reduce((n, b) => n + b.length, 0) < all); round++) await tick();
  for (const c of ctls) expect(text(c.written)).toBe(text(events));
  expect(watchBudget.total).toBe(before);
});

test("a watcher past its backlog bound is cut off at an event boundary: the rest of the event, then the ERROR", async () => {
  const c = fakeController(10);
  let out!: Outbox;
  let finished = false;
  out = new Outbox(c as unknown as ReadableStreamDirectController, { overflow: () => out.end(new TextEncoder().encode("ERROR\n")), finished: () => { finished = true; } });
  const line = (ch: string, n: number) => new TextEncoder().encode(ch.repeat(n - 1) + "\n");
  out.push(line("a", PIECE + 100)); // larger than a piece: written in two
  await tick();
  let pushed = 1;
  while (out.push(line("b", 1000))) pushed++;
  expect(pushed * 1000).toBeGreaterThan(MAX_BACKLOG);
  // the client reads again: the rest of the first event, then the ERROR, then the end
  c.room = 1 << 30;
  c.drain();
  await tick();
  await tick();
  expect(text(c.written)).toBe("a".repeat(PIECE + 99) + "\nERROR\n");
  expect(c.closed).toBe("closed");
  expect(finished).toBe(true);
});

test("a watcher cut off that still does not read is disconnected after the drain deadline, and its bytes released", async () => {
  const before = watchBudget.total;
  const c = fakeController(0);
  let finished = false;
  const out = new Outbox(c as unknown as ReadableStreamDirectController, { overflow() {}, finished: () => { finished = true; } }, 50);
  out.push(new Uint8Array(PIECE));
  await tick();
  out.push(new Uint8Array(1000));
  expect(watchBudget.total).toBeGreaterThan(before);
  out.end(new TextEncoder().encode("ERROR\n"));
  await Bun.sleep(100);
  expect(c.closed).toBe("aborted");
  expect(finished).toBe(true);
  expect(watchBudget.total).toBe(before);
});

test("at shutdown a watcher that is behind is disconnected at once; one that keeps up gets its last events", async () => {
  const stuck = fakeController(0), fine = fakeController(1 << 30);
  const a = new Outbox(stuck as unknown as ReadableStreamDirectController, { overflow() {}, finished() {} });
  const b = new Outbox(fine as unknown as ReadableStreamDirectController, { overflow() {}, finished() {} });
  a.push(new Uint8Array(10));
  await tick();
  b.push(new TextEncoder().encode("last\n"));
  a.end(undefined, false);
  b.end(undefined, false);
  await tick();
  expect([stuck.closed, fine.closed, text(fine.written)]).toEqual(["aborted", "closed", "last\n"]);
});

test("past the budget, the stuck watcher holding the most is cut off first (the asker itself when that is it); one let go twice is disconnected", async () => {
  const limit = watchBudget.limit;
  const base = watchBudget.total;
  watchBudget.limit = base + 3 * 1024 * 1024;
  try {
    const cut: string[] = [];
    const make = (name: string) => {
      const c = fakeController(0);
      const out: Outbox = new Outbox(c as unknown as ReadableStreamDirectController, { overflow: () => { cut.push(name); out.end(new TextEncoder().encode("ERROR\n")); }, finished() {} });
      return { c, out };
    };
    const big = make("big"), small = make("small"), asker = make("asker");
    for (const w of [big, small, asker]) w.out.push(new Uint8Array(10));
    await tick(); // each socket is full from its first write on: what follows is counted
    for (let i = 0; i < 4; i++) big.out.push(new Uint8Array(512 * 1024)); // 2 MB of its own events
    small.out.push(new Uint8Array(256 * 1024));
    expect(cut).toEqual([]);
    expect(asker.out.push(new Uint8Array(1024 * 1024))).toBe(true); // over the limit: "big" makes room
    expect(cut).toEqual(["big"]);
    expect(big.c.closed).toBe("");
    expect(watchBudget.total).toBeLessThanOrEqual(watchBudget.limit);
    // "big" now holds only its ERROR event and the write in progress; the asker holds the most
    expect(asker.out.push(new Uint8Array(1024 * 1024))).toBe(true);
    expect(asker.out.push(new Uint8Array(1024 * 1024))).toBe(false);
    expect(cut).toEqual(["big", "asker"]);
    // a watcher already cut off that the budget lets go again is disconnected
    big.out.evict();
    expect(big.c.closed).toBe("aborted");
    for (const w of [small, asker]) { w.c.room = 1 << 30; w.c.drain(); }
    await tick();
    await tick();
    expect([asker.c.closed, small.c.closed]).toEqual(["closed", ""]);
    small.out.end();
    await tick();
  } finally {
    watchBudget.limit = limit;
  }
  expect(watchBudget.total).toBe(base);
});

