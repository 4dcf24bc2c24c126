// Event recording against a real server: events.k8s.io/v1 objects, repeats folded into a series, writes
// that never block or throw.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { hostname } from "node:os";
import type { Client } from "../../pkg/client/client.ts";
import { EventBroadcaster, referenceTo } from "../../pkg/client/events.ts";
import { setLogger } from "../../pkg/client/log.ts";
import { createNamespace, until } from "../api/fixtures.ts";
import { clientFor } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let client: Client;
const logged: string[] = [];
beforeAll(async () => {
  s = await startServer();
  client = await clientFor(s);
  await createNamespace(s, "ev");
  setLogger((m) => logged.push(m));
}, 60_000);
afterAll(async () => { await s?.stop(); });

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web-1", namespace: "ev", uid: "0a1b", resourceVersion: "7" } };
const events = async (ns: string) => (await s.call("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`)).body.items;

test("an event is written as events.k8s.io/v1 with upstream's fields", async () => {
  const b = new EventBroadcaster(client);
  const rec = b.newRecorder("default-scheduler");
  rec.event(pod, undefined, "Normal", "Scheduled", "Binding", "Successfully assigned ev/web-1 to node-1");
  await b.flush();
  const [ev] = await events("ev");
  expect(ev.metadata.name).toMatch(/^web-1\.[0-9a-f]{12,}$/);
  expect(ev.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  expect(ev).toMatchObject({
    reportingController: "default-scheduler", reportingInstance: `default-scheduler-${hostname()}`,
    action: "Binding", reason: "Scheduled", note: "Successfully assigned ev/web-1 to node-1", type: "Normal",
    regarding: { kind: "Pod", namespace: "ev", name: "web-1", uid: "0a1b", apiVersion: "v1", resourceVersion: "7" },
  });
  expect(ev.series).toBeUndefined();
  b.shutdown();
});

test("the same event five times is one Event whose series counts five", async () => {
  await createNamespace(s, "ev-series");
  const b = new EventBroadcaster(client, { refreshIntervalMs: 300 });
  const rec = b.newRecorder("default-scheduler", "sched-1");
  const p = { ...pod, metadata: { ...pod.metadata, namespace: "ev-series" } };
  const node = { apiVersion: "v1", kind: "Node", metadata: { name: "node-1", uid: "n1" } };
  const failed = (i: number) => rec.event(p, undefined, "Warning", "FailedScheduling", "Scheduling", `0/3 nodes are available: attempt ${i}`);
  const failedEvents = async () => (await events("ev-series")).filter((e: any) => e.reason === "FailedScheduling" && !e.related);
  failed(0);
  await b.flush();
  failed(1); // the second occurrence opens the series at once
  await b.flush();
  expect((await failedEvents()).map((e: any) => e.series?.count)).toEqual([2]);
  for (let i = 2; i < 5; i++) failed(i); // later ones only count, until the heartbeat
  rec.event(p, node, "Warning", "FailedScheduling", "Scheduling", "related differs: a separate event");
  rec.event(p, undefined, "Normal", "Scheduled", "Binding", "another reason: a separate event");
  await b.flush();
  expect((await failedEvents()).map((e: any) => e.series?.count)).toEqual([2]);
  await until(async () => (await failedEvents())[0].series.count === 5, "the heartbeat to write a count of five", 5000);
  const counted = await events("ev-series");
  expect(counted.length).toBe(3);
  const series = counted.find((e: any) => e.series);
  expect(series.note).toBe("0/3 nodes are available: attempt 0");
  expect(series.series.lastObservedTime).toMatch(/\.\d{6}Z$/);
  expect(counted.filter((e: any) => !e.series).map((e: any) => e.note).sort()).toEqual(["another reason: a separate event", "related differs: a separate event"]);
  b.shutdown();
});

test("recording never blocks or throws: a bad type is logged, an unreachable server is retried then given up", async () => {
  logged.length = 0;
  const b = new EventBroadcaster(await clientFor(s, { server: "https://127.0.0.1:1" }), { retryDelayMs: 20, maxTries: 2, maxQueued: 2 });
  const rec = b.newRecorder("c");
  rec.event(pod, undefined, "Bogus" as "Normal", "R", "A", "n");
  expect(logged).toEqual(["Unsupported event type: 'Bogus'"]);
  const t0 = performance.now();
  for (let i = 0; i < 12; i++) rec.event({ ...pod, metadata: { ...pod.metadata, name: `p${i}` } }, undefined, "Normal", "R", "A", "n");
  expect(performance.now() - t0).toBeLessThan(50);
  await b.flush();
  expect(logged.some((m) => m.includes("(retry limit exceeded!)"))).toBe(true);
  expect(logged.some((m) => m.includes("the queue is full (2); dropping event"))).toBe(true);
  b.shutdown();
});

test("a burst of more events than core/v1's 1,000-long queue is written in full, as upstream's", async () => {
  await createNamespace(s, "ev-burst");
  logged.length = 0;
  const b = new EventBroadcaster(client);
  const rec = b.newRecorder("default-scheduler");
  for (let i = 0; i < 1200; i++) {
    const p = { ...pod, metadata: { ...pod.metadata, namespace: "ev-burst", name: `p-${i}`, uid: `u-${i}` } };
    rec.event(p, undefined, "Normal", "Scheduled", "Binding", `Successfully assigned ev-burst/p-${i} to node-1`);
  }
  await b.flush();
  expect(logged.filter((m) => m.includes("dropping event"))).toEqual([]);
  const written = await events("ev-burst");
  expect(written.length).toBe(1200);
  expect(written.find((e: any) => e.regarding.name === "p-1199")).toMatchObject({ note: "Successfully assigned ev-burst/p-1199 to node-1", regarding: { uid: "u-1199", resourceVersion: "7" } });
  b.shutdown();
});

test("references from informer objects carry kind and apiVersion; a cluster-scoped object's event goes to default", async () => {
  const b = new EventBroadcaster(client);
  const node = { apiVersion: "v1", kind: "Node", metadata: { name: "node-9", uid: "u9" } };
  expect(referenceTo(node)).toEqual({ kind: "Node", name: "node-9", uid: "u9", apiVersion: "v1" });
  b.newRecorder("kite-node-agent").event(node, undefined, "Normal", "Starting", "Start", "Starting kite node agent.");
  await b.flush();
  const evs = (await events("default")).filter((e: any) => e.regarding.name === "node-9");
  expect(evs.length).toBe(1);
  b.shutdown();
});
