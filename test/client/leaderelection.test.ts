// Two candidates in one process on every lock kind: one leads at a time; a released lock passes at once,
// an abandoned one after the lease duration.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Client } from "../../pkg/client/client.ts";
import { LeaderElector } from "../../pkg/client/leaderelection.ts";
import { setLogger } from "../../pkg/client/log.ts";
import { LEADER_ANNOTATION, LOCK_TYPES, newResourceLock, type LockType } from "../../pkg/client/resourcelock.ts";
import { until } from "../api/fixtures.ts";
import { clientFor } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let client: Client;
beforeAll(async () => {
  s = await startServer();
  client = await clientFor(s);
  setLogger(() => {}); // campaign messages are expected here
}, 60_000);
afterAll(async () => { await s?.stop(); });

const LEASE = 2000;

/** A candidate on lock `type/name`; `leading` says whether its onStartedLeading signal is live. */
function candidate(type: LockType, name: string, identity: string, releaseOnCancel: boolean) {
  const c = { identity, leading: false, stopped: false, startedAt: 0, newLeaders: [] as string[], abort: new AbortController(), done: Promise.resolve() };
  const elector = new LeaderElector({
    lock: newResourceLock(type, client, "kube-system", name, identity),
    leaseDuration: LEASE, renewDeadline: 1500, retryPeriod: 200, releaseOnCancel,
    callbacks: {
      onStartedLeading: (signal) => {
        c.leading = true; c.startedAt = performance.now();
        signal.addEventListener("abort", () => { c.leading = false; });
      },
      onStoppedLeading: () => { c.stopped = true; },
      onNewLeader: (id) => c.newLeaders.push(id),
    },
  });
  c.done = elector.run(c.abort.signal);
  return c;
}

/** Starts two candidates, waits for one to lead, checks the other does not, and hands back both. */
async function race(type: LockType, name: string, releaseOnCancel: boolean) {
  const a = candidate(type, name, `${name}-a`, releaseOnCancel), b = candidate(type, name, `${name}-b`, releaseOnCancel);
  await until(async () => a.leading || b.leading, `a leader on ${type}`, 5000);
  // Watch them for a while: never both.
  for (let i = 0; i < 10; i++) {
    expect(a.leading && b.leading).toBe(false);
    await Bun.sleep(50);
  }
  const [leader, other] = a.leading ? [a, b] : [b, a];
  expect(other.leading).toBe(false);
  return { leader, other };
}

/** The holder named in the lock's objects (both of a multi-lock). */
async function holders(type: LockType, name: string): Promise<string[]> {
  const out: string[] = [];
  if (type.includes("leases")) out.push((await s.call("GET", `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`)).body.spec.holderIdentity);
  const old = type.startsWith("endpoints") ? "endpoints" : type.startsWith("configmaps") ? "configmaps" : "";
  if (old) out.push(JSON.parse((await s.call("GET", `/api/v1/namespaces/kube-system/${old}/${name}`)).body.metadata.annotations[LEADER_ANNOTATION]).holderIdentity);
  return out;
}

test("on every lock kind one candidate leads; released on cancel, the other takes over at once", async () => {
  await Promise.all(LOCK_TYPES.map(async (type) => {
    const name = `rel-${type}`;
    const { leader, other } = await race(type, name, true);
    expect(await holders(type, name)).toEqual(type.endsWith("leases") && type !== "leases" ? [leader.identity, leader.identity] : [leader.identity]);
    expect(other.newLeaders).toContain(leader.identity);
    const t0 = performance.now();
    leader.abort.abort();
    await leader.done;
    expect(leader.stopped).toBe(true);
    expect(leader.leading).toBe(false);
    await until(async () => other.leading, `the takeover on ${type}`, 3000, 20);
    // At once: within a retry (200 ms, jittered up to 2.2×), far inside the lease duration.
    expect(performance.now() - t0).toBeLessThan(LEASE * 0.6);
    expect(await holders(type, name)).toEqual((await holders(type, name)).map(() => other.identity));
    other.abort.abort();
    await other.done;
  }));
}, 30_000);

test("without release, the other candidate waits out the lease duration, then leads", async () => {
  await Promise.all((["leases", "configmaps", "endpointsleases"] as const).map(async (type) => {
    const name = `norel-${type}`;
    const { leader, other } = await race(type, name, false);
    const t0 = performance.now();
    leader.abort.abort();
    await leader.done;
    expect(leader.leading).toBe(false);
    await until(async () => other.leading, `the takeover on ${type}`, LEASE + 3000, 20);
    const waited = performance.now() - t0;
    // The record stops changing at the last renewal (at most a retry period before the cancel).
    expect(waited).toBeGreaterThan(LEASE - 300);
    expect(waited).toBeLessThan(LEASE + 1500);
    other.abort.abort();
    await other.done;
  }));
}, 30_000);
