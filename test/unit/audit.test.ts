// The audit policy's rule matching (upstream's table), event truncation, and the batch sink's sizes,
// buffer limit and throttle.
import { describe, expect, test } from "bun:test";
import client from "prom-client";
import { truncated, type AuditEvent } from "../../pkg/audit/event.ts";
import { AuditMetrics } from "../../pkg/audit/metrics.ts";
import { AuditPolicy, type PolicyRequest } from "../../pkg/audit/policy.ts";
import { Sink } from "../../pkg/audit/sink.ts";

const req = (r: Partial<PolicyRequest>): PolicyRequest => ({
  user: { name: "alice", groups: ["devs", "system:authenticated"] }, verb: "get", isResourceRequest: true, path: "/api/v1/namespaces/ns/pods/p",
  group: "", namespace: "ns", resource: "pods", subresource: "", name: "p", ...r,
});

describe("policy rules", () => {
  const cases: [string, Record<string, unknown>, Partial<PolicyRequest>, boolean][] = [
    ["users", { users: ["alice"] }, {}, true],
    ["users (other)", { users: ["bob"] }, {}, false],
    ["userGroups", { userGroups: ["devs"] }, {}, true],
    ["verbs", { verbs: ["list", "watch"] }, {}, false],
    ["resources with a subresource", { resources: [{ group: "", resources: ["pods/log"] }] }, { subresource: "log" }, true],
    ["a resource does not match its subresource", { resources: [{ group: "", resources: ["pods"] }] }, { subresource: "log" }, false],
    ["*/status", { resources: [{ resources: ["*/status"] }] }, { resource: "nodes", subresource: "status" }, true],
    ["pods/*", { resources: [{ resources: ["pods/*"] }] }, { subresource: "exec" }, true],
    ["group must match", { resources: [{ group: "apps", resources: ["pods"] }] }, {}, false],
    ["group with no resources", { resources: [{ group: "apps" }] }, { group: "apps", resource: "deployments" }, true],
    ["resourceNames", { resources: [{ resources: ["pods"], resourceNames: ["q"] }] }, {}, false],
    ["namespaces", { namespaces: ["ns"] }, {}, true],
    ["namespaces: cluster scope is \"\"", { namespaces: [""] }, { namespace: "", resource: "nodes" }, true],
    ["namespaces never match non-resource URLs", { namespaces: ["ns"] }, { isResourceRequest: false, path: "/metrics" }, false],
    ["nonResourceURLs prefix", { nonResourceURLs: ["/healthz*"] }, { isResourceRequest: false, path: "/healthz/etcd" }, true],
    ["nonResourceURLs never match resources", { nonResourceURLs: ["*"] }, {}, false],
  ];
  for (const [what, rule, r, matches] of cases) {
    test(what, () => {
      const p = new AuditPolicy({ rules: [{ level: "Request", ...rule } as never], omitStages: ["Panic"] });
      const d = p.decide(req(r));
      expect(d.level).toBe(matches ? "Request" : "None");
      if (matches) expect([...d.omitStages]).toEqual(["Panic"]);
    });
  }
  test("the first matching rule decides; omitStages of the policy and the rule add up", () => {
    const p = new AuditPolicy({ omitStages: ["RequestReceived"], rules: [{ level: "None", users: ["bob"] }, { level: "Metadata", omitStages: ["ResponseStarted"] }, { level: "RequestResponse" }] });
    expect(p.decide(req({ user: { name: "bob", groups: [] } })).level).toBe("None");
    const d = p.decide(req({}));
    expect(d.level).toBe("Metadata");
    expect([...d.omitStages].sort()).toEqual(["RequestReceived", "ResponseStarted"]);
  });
});

const event = (n: number, big = 0): AuditEvent => ({
  kind: "Event", apiVersion: "audit.k8s.io/v1", level: "RequestResponse", auditID: `id-${n}`, stage: "ResponseComplete", requestURI: "/", verb: "get",
  user: { username: "u" }, sourceIPs: [], requestReceivedTimestamp: "", stageTimestamp: "", requestObject: { x: "y".repeat(big) },
});

test("truncation drops the objects first, then the event", () => {
  expect(truncated(event(1), 10_000)).toEqual(event(1));
  const small = truncated(event(1, 5000), 1000)!;
  expect(small.requestObject).toBeUndefined();
  expect(small.annotations?.["audit.k8s.io/truncated"]).toBe("true");
  expect(truncated(event(1), 50)).toBeUndefined();
});

describe("batch sink", () => {
  const sink = (o: { bufferSize?: number; maxSize: number; maxWaitMs: number; throttle?: { qps: number; burst: number }; truncate?: { maxBatchBytes: number; maxEventBytes: number } }) => {
    const batches: AuditEvent[][] = [];
    const registry = new client.Registry();
    const metrics = new AuditMetrics(registry);
    const s = new Sink({ name: "webhook", send: (b) => { batches.push(b); } }, { mode: "batch", batch: { bufferSize: o.bufferSize ?? 100, maxSize: o.maxSize, maxWaitMs: o.maxWaitMs, throttle: o.throttle }, truncate: o.truncate }, metrics);
    return { s, batches, errors: async () => (await registry.getSingleMetric("apiserver_audit_error_total")!.get()).values };
  };

  test("full batches go at once, the rest after max-wait", async () => {
    const { s, batches } = sink({ maxSize: 3, maxWaitMs: 100 });
    for (let i = 0; i < 4; i++) await s.emit(event(i));
    await Bun.sleep(20);
    expect(batches.map((b) => b.length)).toEqual([3]);
    await Bun.sleep(200);
    expect(batches.map((b) => b.length)).toEqual([3, 1]);
  });

  test("a full buffer drops events and counts them", async () => {
    const { s, batches, errors } = sink({ bufferSize: 2, maxSize: 10, maxWaitMs: 50 });
    for (let i = 0; i < 5; i++) await s.emit(event(i));
    await s.close();
    expect(batches.flat()).toHaveLength(2);
    expect(await errors()).toEqual([expect.objectContaining({ labels: { plugin: "buffered" }, value: 3 })]);
  });

  test("the throttle spaces batches past the burst", async () => {
    const { s, batches } = sink({ maxSize: 1, maxWaitMs: 0, throttle: { qps: 20, burst: 1 } });
    const t0 = performance.now();
    for (let i = 0; i < 3; i++) await s.emit(event(i));
    await s.close();
    expect(batches).toHaveLength(3);
    // one batch at once, then one per 50 ms
    expect(performance.now() - t0).toBeGreaterThanOrEqual(90);
  });

  test("truncation splits batches by bytes", async () => {
    const { s, batches } = sink({ maxSize: 10, maxWaitMs: 10, truncate: { maxBatchBytes: 600, maxEventBytes: 10_000 } });
    for (let i = 0; i < 4; i++) await s.emit(event(i, 100));
    await s.close();
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.flat()).toHaveLength(4);
  });
});

describe("blocking modes", () => {
  const failing = (mode: "blocking" | "blocking-strict") => {
    const registry = new client.Registry();
    const s = new Sink({ name: "webhook", send: async () => { throw new Error("receiver down"); } }, { mode, batch: { bufferSize: 1, maxSize: 1, maxWaitMs: 0 } }, new AuditMetrics(registry));
    return { s, errors: async () => (await registry.getSingleMetric("apiserver_audit_error_total")!.get()).values };
  };
  test("blocking: a failure is counted, the request goes on", async () => {
    const { s, errors } = failing("blocking");
    await s.emit(event(1));
    expect(await errors()).toEqual([expect.objectContaining({ labels: { plugin: "webhook" }, value: 1 })]);
  });
  test("blocking-strict: the failure reaches the request", async () => {
    const { s } = failing("blocking-strict");
    await expect(s.emit(event(1))).rejects.toThrow("receiver down");
  });
});

describe("log file rotation", () => {
  test("backups past --audit-log-maxage days and --audit-log-maxbackup files are removed", async () => {
    const { LogBackend } = await import("../../pkg/audit/logfile.ts");
    const { tempDir } = await import("../helpers/processes.ts");
    const { existsSync, readdirSync, utimesSync, writeFileSync } = await import("node:fs");
    const dir = tempDir("kite-audit-rotate-");
    const old = `${dir}/audit-2020-01-01T00-00-00.000.log`;
    writeFileSync(old, "old\n");
    const tenDaysAgo = (Date.now() - 10 * 86400_000) / 1000;
    utimesSync(old, tenDaysAgo, tenDaysAgo);
    const log = new LogBackend({ path: `${dir}/audit.log`, format: "json", version: "audit.platform.io/v1", maxSizeMB: 1, maxBackups: 0, maxAgeDays: 1, compress: false });
    const big = event(1, 700 * 1024);
    log.send([big]);
    log.send([big]); // past 1 MB: the file rotates first
    const backups = () => readdirSync(dir).filter((f) => /^audit-.*\.log$/.test(f));
    for (let i = 0; i < 100 && existsSync(old); i++) await Bun.sleep(10);
    expect(existsSync(old)).toBe(false);
    expect(backups()).toHaveLength(1);
    log.close();
    expect(JSON.parse(await Bun.file(`${dir}/audit.log`).text()).apiVersion).toBe("audit.platform.io/v1");
  });
});
