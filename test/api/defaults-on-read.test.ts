// Objects stored before their defaults existed (written by an older Kite, or into the store directly)
// read with the defaults upstream's decoder would give them: GET, LIST and WATCH alike.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startServer } from "../helpers/server.ts";

const SQLITE = "--storage-backend=sqlite"; // the test writes into the SQLite file, whatever backend the suite runs on

/** Appends a value under key to a stopped server's store, as a write of an older server would have left it. */
function storeRaw(dir: string, key: string, obj: object) {
  const db = new Database(join(dir, "state.db"));
  const { r } = db.query("SELECT COALESCE(MAX(rev), 0) AS r FROM kv").get() as { r: number };
  db.query("INSERT INTO kv (rev, key, create_rev, prev_rev, deleted, value) VALUES (?, ?, ?, 0, 0, ?)").run(r + 1, key, r + 1, JSON.stringify(obj));
  db.close();
}

test("a Deployment and a Namespace stored without defaults are read with them", async () => {
  const first = await startServer([SQLITE]);
  await first.stop();
  storeRaw(first.dataDir, "/registry/deployments/default/old", {
    apiVersion: "apps/v1", kind: "Deployment",
    metadata: { name: "old", namespace: "default", uid: "0d0c0b0a-0000-4000-8000-000000000001", creationTimestamp: "2024-01-01T00:00:00Z", generation: 1 },
    spec: { replicas: 1, selector: { matchLabels: { app: "old" } }, template: { metadata: { labels: { app: "old" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
  });
  storeRaw(first.dataDir, "/registry/namespaces/legacy", {
    apiVersion: "v1", kind: "Namespace",
    metadata: { name: "legacy", uid: "0d0c0b0a-0000-4000-8000-000000000002", creationTimestamp: "2024-01-01T00:00:00Z" },
    spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" },
  });
  const s = await startServer([SQLITE], first.dataDir);
  const check = (d: any) => {
    expect(d.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
    expect(d.spec.revisionHistoryLimit).toBe(10);
    expect(d.spec.progressDeadlineSeconds).toBe(600);
    const c = d.spec.template.spec.containers[0];
    expect([c.imagePullPolicy, c.terminationMessagePolicy]).toEqual(["Always", "File"]);
    expect(d.spec.template.spec.dnsPolicy).toBe("ClusterFirst");
  };
  check((await s.call("GET", "/apis/apps/v1/namespaces/default/deployments/old")).body);
  check((await s.call("GET", "/apis/apps/v1/namespaces/default/deployments")).body.items.find((d: any) => d.metadata.name === "old"));
  const ns = await s.call("GET", "/api/v1/namespaces/legacy");
  expect(ns.body.metadata.labels).toEqual({ "kubernetes.io/metadata.name": "legacy" });
  // a watch from the start replays the stored object, defaulted too
  const r = await s.req("/apis/apps/v1/namespaces/default/deployments?watch=1&resourceVersion=0&timeoutSeconds=1");
  const events = (await r.text()).trim().split("\n").map((l) => JSON.parse(l));
  check(events.find((e) => e.object.metadata.name === "old").object);
  await s.stop();
});
