// Replicas of `kite scheduler` sharing one Lease: one leads and schedules, each pod is bound exactly once;
// when the leader is killed (-9) the other takes over within the lease duration, and when the leader is
// stopped (SIGTERM) it releases the lease so that another takes over at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type TestServer, startServer } from "../helpers/server.ts";
import {
  type TestScheduler, boundNode, createNode, createPod, events, namespace, ok, pod, startScheduler, until,
} from "../helpers/scheduler.ts";

const LEASE_MS = 3000, RETRY_MS = 500;
const ELECTION = [`--leader-elect-lease-duration=${LEASE_MS / 1000}s`, "--leader-elect-renew-deadline=2s", `--leader-elect-retry-period=${RETRY_MS}ms`];

let s: TestServer;
const replicas: TestScheduler[] = [];

beforeAll(async () => {
  s = await startServer();
  await createNode(s, "node-1", { pods: "200" });
  await createNode(s, "node-2", { pods: "200" });
});
afterAll(async () => {
  for (const r of replicas) if (r.proc.exitCode === null) await r.stop(9);
  await s?.stop();
});

async function replica(): Promise<TestScheduler> {
  const r = await startScheduler(s, ELECTION);
  replicas.push(r);
  return r;
}

const lease = () => ok(s, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler");

/** The replica holding the lease (other than `not`), once one does: each logs the identity it leads as. */
const leader = (among: TestScheduler[], not?: string) => until(async () => {
  const r = await s.call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler");
  const holder: string | undefined = r.body?.spec?.holderIdentity;
  if (!holder || holder === not) return undefined;
  const led = among.find((x) => x.output().includes(`leading as ${holder} `));
  return led && { replica: led, identity: holder };
}, "a replica to hold the lease", 2 * LEASE_MS);

/** A replica that does not lead says who does once it has read the lease. */
const sawLeader = (r: TestScheduler, identity: string) =>
  until(async () => r.output().includes(`the leader is ${identity}`) || undefined, `a replica to see ${identity} lead`, 2 * RETRY_MS + 1000);

/** Creates pods and waits until each is bound; returns how long that took. */
async function scheduleBatch(ns: string, prefix: string, n: number): Promise<number> {
  const start = Date.now();
  const names = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  await Promise.all(names.map((name) => createPod(s, ns, pod(name))));
  await Promise.all(names.map((name) => boundNode(s, ns, name, 2 * LEASE_MS)));
  return Date.now() - start;
}

/**
 * Every pod of the namespace was bound exactly once: one Scheduled event each; no failed attempt but, when
 * `refused` is given, bindings the API server refused because the pod was already bound.
 */
async function boundOnce(ns: string, pods: number, refused?: RegExp) {
  const evs = await until(async () => {
    const e = await events(s, ns);
    return e.filter((x) => x.reason === "Scheduled").length >= pods ? e : undefined;
  }, "a Scheduled event for every pod");
  const scheduled = evs.filter((e) => e.reason === "Scheduled").map((e) => e.regarding.name);
  expect(new Set(scheduled).size).toBe(pods);
  expect(scheduled).toHaveLength(pods);
  expect(evs.filter((e) => e.reason === "FailedScheduling" && !refused?.test(e.note)).map((e) => e.note)).toEqual([]);
  // and each says so: a refused binding did not mark a bound pod unscheduled
  const list = (await ok(s, "GET", `/api/v1/namespaces/${ns}/pods`)).items as any[];
  expect(list.filter((p) => !p.spec.nodeName || p.status.conditions?.find((c: any) => c.type === "PodScheduled")?.status !== "True").map((p) => p.metadata.name)).toEqual([]);
}

test("one of two replicas leads; when it is killed -9 the other takes over within the lease duration, binding each pod once", async () => {
  const ns = await namespace(s, "failover");
  const [a, b] = await Promise.all([replica(), replica()]);
  const first = await leader([a, b]);
  const follower = first.replica === a ? b : a;
  await sawLeader(follower, first.identity);
  expect(follower.output()).not.toContain("leading as");

  await scheduleBatch(ns, "before", 20);
  await boundOnce(ns, 20);

  first.replica.proc.kill(9);
  const killedAt = Date.now();
  // pods created right after the kill are bound by the survivor once the lease it last saw renewed has
  // expired: not before (the leader renewed it at most a retry period before dying), and not much after
  const [took, second] = await Promise.all([
    scheduleBatch(ns, "after", 20),
    leader([follower], first.identity).then((l) => ({ ...l, after: Date.now() - killedAt })),
  ]);
  expect(second.replica).toBe(follower);
  expect(second.after).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS - 100);
  expect(took).toBeLessThan(LEASE_MS + 2 * RETRY_MS + 1500);
  expect((await lease()).spec.leaseTransitions).toBe(1);
  await boundOnce(ns, 40);
});

test("a leader stopped with SIGTERM releases the lease: a waiting replica takes over at once", async () => {
  const ns = await namespace(s, "handover");
  const current = await leader(replicas.filter((r) => r.proc.exitCode === null));
  const waiting = await replica();
  await sawLeader(waiting, current.identity);

  const stoppedAt = Date.now();
  expect(await current.replica.stop("SIGTERM")).toBe(0);
  const next = await leader([waiting], current.identity);
  expect(Date.now() - stoppedAt).toBeLessThan(LEASE_MS / 2);
  expect(next.replica).toBe(waiting);
  await scheduleBatch(ns, "pod", 10);
  await boundOnce(ns, 10);
});

test("a leader that was paused past its lease finds it lost when it runs again, and exits", async () => {
  const ns = await namespace(s, "paused");
  const current = await leader(replicas.filter((r) => r.proc.exitCode === null));
  const other = await replica();
  await sawLeader(other, current.identity);

  current.replica.proc.kill("SIGSTOP");
  await scheduleBatch(ns, "pod", 10);
  expect((await leader([other], current.identity)).replica).toBe(other);
  current.replica.proc.kill("SIGCONT");
  // it cannot renew a lease another holds: it stops leading and exits, as upstream's does, to campaign anew
  expect(await current.replica.proc.exited).toBe(1);
  expect(current.replica.output()).toContain("failed to renew lease kube-system/kube-scheduler: timed out waiting for the condition\n");
  expect(current.replica.output()).toContain("Error: leaderelection lost\n");
  // until it notices, it may still try a pod it saw created while paused (upstream's may too): the API
  // server refuses that binding, so no pod is bound twice
  await boundOnce(ns, 10, /^binding rejected: running Bind plugin "DefaultBinder": Operation cannot be fulfilled on pods\/binding "pod-\d": pod pod-\d is already assigned to node "node-\d"$/);
});
