// The client-side rate limit (--kube-api-qps / --kube-api-burst) on real requests.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RESOURCES } from "../../pkg/client/resources.ts";
import { clientFor } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 60_000);
afterAll(async () => { await s?.stop(); });

const gets = async (client: Awaited<ReturnType<typeof clientFor>>, n: number) => {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, () => client.get(RESOURCES.namespaces, "default")));
  return performance.now() - t0;
};

test("requests beyond the burst go out at qps", async () => {
  const limited = await clientFor(s, { qps: 20, burst: 5 });
  expect(limited.transport.rateLimiter).toBeDefined();
  // 25 requests: 5 at once, then 20 at 20 per second: at least a second.
  expect(await gets(limited, 25)).toBeGreaterThanOrEqual(950);
  // Without a limit (the CLI's default) the same requests take a fraction of that.
  const free = await clientFor(s);
  expect(free.transport.rateLimiter).toBeUndefined();
  expect(await gets(free, 25)).toBeLessThan(700);
});

test("a watch takes one token when opened, not one per event", async () => {
  const limited = await clientFor(s, { qps: 2, burst: 1 });
  const abort = new AbortController();
  const seen: string[] = [];
  const watching = (async () => {
    for await (const ev of limited.watch(RESOURCES.configmaps, { namespace: "default", signal: abort.signal })) {
      seen.push(ev.object.metadata.name);
      if (seen.length === 11) break;
    }
  })();
  const t0 = performance.now();
  for (let i = 0; i < 10; i++) await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: `rl-${i}` } });
  await watching;
  abort.abort();
  // kube-root-ca.crt and ten more, far faster than 2 per second.
  expect(seen.length).toBe(11);
  expect(performance.now() - t0).toBeLessThan(2000);
});
