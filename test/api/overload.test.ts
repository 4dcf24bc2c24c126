// Overload protection without priority and fairness (--enable-priority-and-fairness=false): the plain
// in-flight limits answer 429 with Retry-After, long-running requests and system:masters are not
// limited, --request-timeout answers 504, --delete-collection-workers deletes side by side,
// --goaway-chance closes some connections, and the options' bad values are refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { KITE, type TestServer } from "../helpers/server.ts";
import { installSlowHook, type SlowHook, slowConfigMap } from "../helpers/slowhook.ts";
import { expectCode, expectStatus, until, useServer } from "./fixtures.ts";

const NS = "overload";
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const tokens = join(tempDir("kite-overload-tokens-"), "tokens.csv");
writeFileSync(tokens, "test,kite-test,kite-test,system:masters\nuser,user,user,\n");
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

let s: TestServer;
let hook: SlowHook;
useServer(NS, (started) => (s = started), [
  `--token-auth-file=${tokens}`, "--enable-priority-and-fairness=false", "--max-requests-inflight=1", "--max-mutating-requests-inflight=1",
  "--request-timeout=2s", "--delete-collection-workers=4", "--goaway-chance=0.02",
]);
beforeAll(async () => {
  hook = await installSlowHook(s);
  await until(async () => {
    const t0 = performance.now();
    await s.call("POST", CMS, slowConfigMap(`warm-${Date.now()}`, 300), as("test"));
    return performance.now() - t0 >= 250;
  }, "slow webhook in effect");
});
afterAll(() => hook?.stop());

describe("--max-mutating-requests-inflight", () => {
  test("a write over the limit gets 429 with Retry-After: 1; system:masters is still served", async () => {
    const slow = s.call("POST", CMS, slowConfigMap("holder", 1500), as("user"));
    await Bun.sleep(300);
    const over = await s.call("POST", CMS, { metadata: { name: "over" } }, as("user"));
    const st = expectStatus(over, 429, "TooManyRequests", "a write while the one slot is held");
    expect(st.message).toBe("Too many requests, please try again later.");
    expect(over.headers.get("retry-after")).toBe("1");
    expectCode(await s.call("POST", CMS, { metadata: { name: "by-admin" } }, as("test")), 201, "system:masters while the slot is held");
    expectCode(await slow, 201, "the slow write");
    expectCode(await s.call("POST", CMS, { metadata: { name: "after" } }, as("user")), 201, "a write once the slot is free");
    const m = ((await s.call("GET", "/metrics", undefined, as("test"))).body as string).split("\n");
    expect(m).toContain('apiserver_dropped_requests_total{request_kind="mutating"} 1');
    expect(m.some((l) => l.startsWith('apiserver_current_inflight_requests{request_kind="readOnly"}'))).toBe(true);
  });

  test("watches hold no slot: several stay open while reads are still served", async () => {
    const aborts = Array.from({ length: 3 }, () => new AbortController());
    const watches = await Promise.all(aborts.map((a) => s.req(`${CMS}?watch=1`, { signal: a.signal, headers: as("user") })));
    expect(watches.map((w) => w.status)).toEqual([200, 200, 200]);
    expectCode(await s.call("GET", CMS, undefined, as("user")), 200, "a list with three watches open");
    aborts.forEach((a) => a.abort());
  });
});

describe("--request-timeout", () => {
  test("a request still running after --request-timeout is answered 504 Timeout", async () => {
    const r = await s.call("POST", CMS, slowConfigMap("too-slow", 4000), as("test"));
    const st = expectStatus(r, 504, "Timeout", "a create longer than --request-timeout=2s");
    expect(st.message).toBe("the server was unable to return a response in the time allotted, but may still be processing the request");
  });
});

describe("--delete-collection-workers", () => {
  test("a collection is deleted whole", async () => {
    for (let i = 0; i < 12; i++) expectCode(await s.call("POST", CMS, { metadata: { name: `many-${i}`, labels: { many: "yes" } } }, as("test")), 201, "create");
    const r = await s.call("DELETE", `${CMS}?labelSelector=many%3Dyes`, undefined, as("test"));
    expectCode(r, 200, "delete the collection");
    expect(r.body.items.map((o: any) => o.metadata.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `many-${i}`).sort());
    expect((await s.call("GET", `${CMS}?labelSelector=many%3Dyes`, undefined, as("test"))).body.items).toEqual([]);
  });
});

describe("--goaway-chance", () => {
  test("about that share of responses close their connections", async () => {
    const replies = await Promise.all(Array.from({ length: 600 }, () => s.req("/readyz")));
    const closing = replies.filter((r) => r.headers.get("connection") === "close").length;
    // 2 % of 600 is 12; none at all would happen once in ~180,000 runs
    expect(closing).toBeGreaterThan(0);
    expect(closing).toBeLessThan(60);
  });
});

describe("option checks", () => {
  test.each([
    [["--goaway-chance=0.5"], "--goaway-chance can not be less than 0 or greater than 0.02"],
    [["--max-requests-inflight=0", "--max-mutating-requests-inflight=0"], "--max-requests-inflight=0 and --max-mutating-requests-inflight=0 must sum to a positive value when --enable-priority-and-fairness is true"],
  ])("%p is refused", async (flags, message) => {
    const p = Bun.spawn([...KITE, "apiserver", `--data-dir=${tempDir("kite-overload-bad-")}`, ...flags], { stdout: "pipe", stderr: "pipe" });
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    expect(code).not.toBe(0);
    expect(err).toContain(message);
  });
});
