import { expect, test } from "bun:test";
import { TokenBucket } from "../../pkg/client/ratelimit.ts";
import { BucketRateLimiter, defaultControllerRateLimiter, ItemExponentialFailureRateLimiter, ItemFastSlowRateLimiter, MaxOfRateLimiter } from "../../pkg/client/ratelimiters.ts";

test("a token bucket serves the burst at once, then qps", async () => {
  const b = new TokenBucket(100, 5);
  for (let i = 0; i < 5; i++) expect(b.reserve()).toBe(0);
  const d1 = b.reserve(), d2 = b.reserve();
  expect(d1).toBeGreaterThan(8);
  expect(d1).toBeLessThanOrEqual(10);
  expect(d2).toBeGreaterThan(18);
  expect(b.tryAccept()).toBe(false);
  const t0 = performance.now();
  await b.wait();
  expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
});

test("a token bucket refuses bad settings", () => {
  expect(() => new TokenBucket(0, 1)).toThrow("qps must be greater than zero");
  expect(() => new TokenBucket(1, 0)).toThrow("burst must be at least 1");
});

test("per-item exponential: 5ms doubling, capped, per item", () => {
  const r = new ItemExponentialFailureRateLimiter<string>(5, 1000_000);
  expect([r.when("a"), r.when("a"), r.when("a"), r.when("b")]).toEqual([5, 10, 20, 5]);
  expect(r.numRequeues("a")).toBe(3);
  for (let i = 0; i < 100; i++) r.when("a");
  expect(r.when("a")).toBe(1000_000);
  r.forget("a");
  expect(r.when("a")).toBe(5);
});

test("fast-slow: fast for the first attempts, slow after", () => {
  const r = new ItemFastSlowRateLimiter<string>(5, 10_000, 2);
  expect([r.when("a"), r.when("a"), r.when("a")]).toEqual([5, 5, 10_000]);
});

test("the default controller limiter takes the longer of per-item and overall", () => {
  const r = defaultControllerRateLimiter<string>();
  // 100 distinct items fit the burst: each waits its own 5 ms.
  for (let i = 0; i < 100; i++) expect(r.when(`i${i}`)).toBe(5);
  // The 101st waits for the bucket's 10 qps: ~100 ms.
  const d = r.when("x");
  expect(d).toBeGreaterThan(90);
  expect(d).toBeLessThanOrEqual(100);
  expect(r.numRequeues("i0")).toBe(1);
  r.forget("i0");
  expect(r.numRequeues("i0")).toBe(0);
});

test("max-of counts each failure in every limiter", () => {
  const r = new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(1, 100), new BucketRateLimiter<string>(1000, 1000));
  expect([r.when("a"), r.when("a"), r.when("a")]).toEqual([1, 2, 4]);
});
