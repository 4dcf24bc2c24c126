import { expect, test } from "bun:test";
import { WorkQueue } from "../../pkg/client/workqueue.ts";
import { ItemExponentialFailureRateLimiter } from "../../pkg/client/ratelimiters.ts";

test("an item queued twice is handed out once", async () => {
  const q = new WorkQueue<string>();
  q.add("a"); q.add("b"); q.add("a");
  expect(q.len()).toBe(2);
  expect(await q.get()).toBe("a");
  expect(await q.get()).toBe("b");
  expect(q.len()).toBe(0);
});

test("an item being processed is not handed out again until done", async () => {
  const q = new WorkQueue<string>();
  q.add("a");
  const a = await q.get();
  q.add("a");
  expect(q.len()).toBe(0);
  let second: string | undefined;
  const pending = q.get().then((v) => { second = v; });
  await Bun.sleep(5);
  expect(second).toBeUndefined();
  q.done(a!);
  await pending;
  expect(second).toBe("a");
});

test("a waiting get is served by the next add, in order", async () => {
  const q = new WorkQueue<number>();
  const got = [q.get(), q.get()];
  q.add(1); q.add(2);
  expect(await Promise.all(got)).toEqual([1, 2]);
});

test("addAfter holds the item; the earlier of two times wins", async () => {
  const q = new WorkQueue<string>();
  const t0 = performance.now();
  q.addAfter("x", 200);
  q.addAfter("x", 30);
  q.addAfter("x", 300);
  expect(q.len()).toBe(0);
  expect(await q.get()).toBe("x");
  const waited = performance.now() - t0;
  expect(waited).toBeGreaterThanOrEqual(25);
  expect(waited).toBeLessThan(190);
  q.done("x");
  await Bun.sleep(200);
  expect(q.len()).toBe(0); // the later times were dropped, not queued again
});

test("addRateLimited backs off per item; forget resets it", async () => {
  const q = new WorkQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter<string>(20, 1000) });
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    q.addRateLimited("k");
    expect(await q.get()).toBe("k");
    times.push(performance.now() - t0);
    q.done("k");
  }
  expect(q.numRequeues("k")).toBe(3);
  expect(times[0]).toBeGreaterThanOrEqual(15); // 20 ms
  expect(times[2]).toBeGreaterThanOrEqual(75); // 80 ms
  q.forget("k");
  expect(q.numRequeues("k")).toBe(0);
});

test("shutDown hands out what is queued, then undefined; adds are ignored", async () => {
  const q = new WorkQueue<string>();
  const waiting = new WorkQueue<string>();
  const blocked = waiting.get();
  waiting.shutDown();
  expect(await blocked).toBeUndefined();
  q.add("a");
  q.shutDown();
  q.add("b");
  q.addAfter("c", 1);
  expect(q.shuttingDown()).toBe(true);
  expect(await q.get()).toBe("a");
  expect(await q.get()).toBeUndefined();
});

test("shutDownWithDrain waits until items handed out are done", async () => {
  const q = new WorkQueue<string>();
  q.add("a");
  const a = await q.get();
  let drained = false;
  const d = q.shutDownWithDrain().then(() => { drained = true; });
  await Bun.sleep(10);
  expect(drained).toBe(false);
  q.done(a!);
  await d;
  expect(drained).toBe(true);
});
