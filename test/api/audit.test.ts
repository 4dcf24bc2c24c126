// Audit (--audit-policy-file): a real server writes its events to a JSON-lines file (read back with a line
// reader), sends batches to a webhook receiver on loopback, and prints the legacy format on stdout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createReadStream, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { gunzipSync } from "node:zlib";
import parse from "parse-prometheus-text-format";
import { makeCA } from "../helpers/certs.ts";
import { tempDir } from "../helpers/processes.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

const dir = tempDir("kite-audit-");
const logFile = join(dir, "audit.log");
const policyFile = join(dir, "policy.yaml");
writeFileSync(policyFile, `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: None
    users: ["system:apiserver"]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
    omitManagedFields: true
  - level: Request
    resources: [{group: "", resources: ["secrets"]}]
    omitStages: ["RequestReceived"]
  - level: None
    resources: [{group: "", resources: ["namespaces"], resourceNames: ["kube-system"]}]
  - level: Metadata
`);

interface Batch { apiVersion: string; kind: string; items: any[] }
const batches: Batch[] = [];
let receiver: ReturnType<typeof Bun.serve>;
let s: TestServer;

/** Every event of the log file so far, one JSON object a line. */
async function events(file = logFile): Promise<any[]> {
  const out: any[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line) out.push(JSON.parse(line));
  return out;
}
/** Requests as the admin of the test kubeconfig (token "test": kite-test in system:masters). */
const req = (path: string, init: RequestInit & { json?: unknown } = {}, server = s) => server.req(path, { ...init, headers: { Authorization: "Bearer test", ...(init.headers as Record<string, string>) } });
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await req(path, { method, json: body, headers });
  return { status: r.status, body: await r.json(), headers: r.headers };
}
const of = (all: any[], id: string | null) => all.filter((e) => e.auditID === id);
const until = async (cond: () => boolean | Promise<boolean>, what: string) => {
  const end = Date.now() + 20_000;
  while (!(await cond())) { if (Date.now() > end) throw new Error(`timed out waiting for ${what}`); await Bun.sleep(50); }
};

beforeAll(async () => {
  receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (req) => { batches.push(await req.json() as Batch); return new Response("{}"); } });
  const webhookConfig = join(dir, "webhook.yaml");
  writeFileSync(webhookConfig, `apiVersion: v1\nkind: Config\nclusters: [{name: r, cluster: {server: "http://127.0.0.1:${receiver.port}/audit"}}]\nusers: [{name: r, user: {}}]\ncontexts: [{name: r, context: {cluster: r, user: r}}]\ncurrent-context: r\n`);
  // A client CA: requests go through the TLS front, whose peer's address is the event's sourceIPs
  s = await startServer([
    "--authorization-mode=RBAC", `--audit-policy-file=${policyFile}`, `--client-ca-file=${makeCA("audit-client-ca").certFile}`,
    `--audit-log-path=${logFile}`, "--audit-log-maxsize=1", "--audit-log-maxbackup=1", "--audit-log-compress",
    `--audit-webhook-config-file=${webhookConfig}`, "--audit-webhook-batch-max-size=5", "--audit-webhook-batch-max-wait=100ms", "--audit-webhook-version=audit.platform.io/v1",
  ]);
});
afterAll(async () => { await s?.stop(); receiver?.stop(true); });

test("one event per stage, each with the request's Audit-ID and its level's fields", async () => {
  const cm = await req("/api/v1/namespaces/default/configmaps", { method: "POST", json: { metadata: { name: "cm1" }, data: { k: "v" } }, headers: { "User-Agent": "audit-test/1.0" } });
  expect(cm.status).toBe(201);
  const cmID = cm.headers.get("audit-id");
  expect(cmID).toMatch(/^[0-9a-f-]{36}$/);
  const sec = await req("/api/v1/namespaces/default/secrets", { method: "POST", json: { metadata: { name: "sec1" }, stringData: { k: "v" } } });
  expect(sec.status).toBe(201);
  const get = await req("/api/v1/namespaces/default/configmaps/cm1", { headers: { "Audit-ID": "my-own-id" } });
  expect(get.headers.get("audit-id")).toBe("my-own-id");
  const pod = await call("GET", "/api/v1/namespaces/default/pods");
  expect(pod.status).toBe(200);
  const kubeSystem = await req("/api/v1/namespaces/kube-system");
  expect(kubeSystem.headers.get("audit-id")).toBeNull();

  const all = await events();
  // RequestResponse: both stages; the request and response objects at ResponseComplete, without managedFields
  const c = of(all, cmID);
  expect(c.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
  const done = c[1];
  expect(done).toMatchObject({
    kind: "Event", apiVersion: "audit.k8s.io/v1", level: "RequestResponse", verb: "create", requestURI: "/api/v1/namespaces/default/configmaps",
    user: { username: "kite-test", groups: ["system:masters", "system:authenticated"] }, userAgent: "audit-test/1.0",
    objectRef: { resource: "configmaps", namespace: "default", name: "cm1", apiVersion: "v1" },
    responseStatus: { code: 201 }, requestObject: { data: { k: "v" } }, responseObject: { kind: "ConfigMap", data: { k: "v" } },
    annotations: { "authorization.k8s.io/decision": "allow" },
  });
  expect(done.annotations["authorization.k8s.io/reason"]).toBeString();
  expect(done.sourceIPs).toContain("127.0.0.1");
  expect(done.responseObject.metadata.managedFields).toBeUndefined();
  expect(c[0].requestObject).toBeUndefined();
  expect(Date.parse(done.stageTimestamp)).toBeGreaterThanOrEqual(Date.parse(done.requestReceivedTimestamp));
  expect(done.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  // Request level with RequestReceived omitted: one event, the request object and no response object
  const sc = of(all, sec.headers.get("audit-id"));
  expect(sc.map((e) => e.stage)).toEqual(["ResponseComplete"]);
  expect(sc[0].level).toBe("Request");
  expect(sc[0].requestObject.stringData).toEqual({ k: "v" });
  expect(sc[0].responseObject).toBeUndefined();
  expect(of(all, "my-own-id").map((e) => e.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
  // Metadata: no objects
  const p = of(all, pod.headers.get("audit-id"));
  expect(p.map((e) => [e.level, e.stage])).toEqual([["Metadata", "RequestReceived"], ["Metadata", "ResponseComplete"]]);
  expect(p[1].requestObject).toBeUndefined();
  expect(p[1].responseObject).toBeUndefined();
  expect(all.some((e) => e.objectRef?.name === "kube-system")).toBe(false);
});

test("impersonation, a forbidden request, a failed authentication, a deprecated version, a watch's three stages", async () => {
  const denied = await call("GET", "/api/v1/namespaces/default/pods", undefined, { "Impersonate-User": "nobody" });
  expect(denied.status).toBe(403);
  const anon = await fetch(`${s.url}/api/v1/namespaces`, { headers: { Authorization: "Bearer wrong" }, tls: { ca: s.ca } } as RequestInit);
  expect(anon.status).toBe(401);
  const cs = await call("GET", "/api/v1/componentstatuses");
  expect(cs.status).toBe(200);
  const w = await req("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1");
  await w.text();

  const all = await events();
  const d = of(all, denied.headers.get("audit-id"));
  expect(d.at(-1)).toMatchObject({
    stage: "ResponseComplete", user: { username: "kite-test" }, impersonatedUser: { username: "nobody" },
    responseStatus: { code: 403, status: "Failure", reason: "Forbidden" }, annotations: { "authorization.k8s.io/decision": "forbid" },
  });
  // authorization comes after the RequestReceived stage, as upstream's filters run
  expect(d.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
  expect(d[0].annotations?.["authorization.k8s.io/decision"]).toBeUndefined();
  expect(of(all, anon.headers.get("audit-id"))).toMatchObject([{ stage: "ResponseStarted", responseStatus: { code: 401 } }]);
  expect(of(all, cs.headers.get("audit-id")).at(-1).annotations["platform.io/deprecated"]).toBe("true");
  const watchID = w.headers.get("audit-id");
  await until(async () => of(await events(), watchID).length === 3, "the watch's ResponseComplete");
  expect(of(await events(), watchID).map((e) => e.stage)).toEqual(["RequestReceived", "ResponseStarted", "ResponseComplete"]);
});

test("the webhook receives EventList batches in the version asked for", async () => {
  await until(() => batches.reduce((n, b) => n + b.items.length, 0) >= 10, "webhook batches");
  for (const b of batches) {
    expect(b).toMatchObject({ kind: "EventList", apiVersion: "audit.platform.io/v1" });
    expect(b.items.length).toBeLessThanOrEqual(5);
    for (const ev of b.items) expect(ev.apiVersion).toBe("audit.platform.io/v1");
  }
  const ids = new Set(batches.flatMap((b) => b.items.map((e) => `${e.auditID}/${e.stage}`)));
  const logged = (await events()).map((e) => `${e.auditID}/${e.stage}`);
  expect(logged.slice(0, 10).every((k) => ids.has(k))).toBe(true);
  const m = parse(await (await req("/metrics")).text());
  expect(Number(m.find((f) => f.name === "apiserver_audit_event_total")!.metrics[0]!.value)).toBeGreaterThan(10);
  expect(m.find((f) => f.name === "apiserver_audit_level_total")!.metrics.map((x) => x.labels?.level)).toEqual(expect.arrayContaining(["None", "Metadata", "Request", "RequestResponse"]));
  expect(m.find((f) => f.name === "apiserver_audit_error_total")?.type).toBe("COUNTER");
});

test("the log rotates at --audit-log-maxsize, keeps --audit-log-maxbackup gzipped backups", async () => {
  const big = "x".repeat(300 * 1024);
  for (let i = 0; i < 5; i++) expect((await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: `big${i}` }, data: { big } })).status).toBe(201);
  const backups = () => readdirSync(dir).filter((f) => /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/.test(f));
  await until(() => backups().length === 1 && !readdirSync(dir).some((f) => /^audit-.*\.log$/.test(f)), "one gzipped backup");
  const old = gunzipSync(readFileSync(join(dir, backups()[0]!))).toString().trim().split("\n").map((l) => JSON.parse(l));
  expect(old.every((e) => e.kind === "Event")).toBe(true);
  expect(readFileSync(logFile).length).toBeLessThanOrEqual(1024 * 1024);
});

test("legacy format on stdout (batch mode); a bad policy stops the server with one line", async () => {
  const b = await startServer([`--audit-policy-file=${policyFile}`, "--audit-log-path=-", "--audit-log-format=legacy", "--audit-log-mode=batch", "--audit-log-batch-max-size=10", "--audit-log-batch-max-wait=50ms"]);
  let out = "";
  const reader = (b.proc.stdout as ReadableStream<Uint8Array>).getReader();
  void (async () => { for (;;) { const r = await reader.read(); if (r.done) break; out += new TextDecoder().decode(r.value); } })();
  const r = await req("/api/v1/namespaces/default/pods", { headers: { "User-Agent": "legacy-test" } }, b);
  const id = r.headers.get("audit-id");
  await until(() => out.includes(`id="${id}" stage="ResponseComplete"`), "the legacy line");
  const line = out.split("\n").find((l) => l.includes(`id="${id}" stage="ResponseComplete"`))!;
  expect(line).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z AUDIT: id="${id}" stage="ResponseComplete" ip="127.0.0.1" method="list" user="kite-test" groups="\\\\"system:masters\\\\",\\\\"system:authenticated\\\\"" as="<self>" asgroups="<lookup>" user-agent="legacy-test" namespace="default" uri="/api/v1/namespaces/default/pods" response="200"$`));
  await b.stop();

  const bad = join(dir, "bad-policy.yaml");
  writeFileSync(bad, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Everything\n");
  const p = Bun.spawn([...KITE, "apiserver", "--bind-address=127.0.0.1", "--secure-port=1", `--data-dir=${join(dir, "bad")}`, `--audit-policy-file=${bad}`], { stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  expect(code).toBe(1);
  expect(err.trim().split("\n")).toHaveLength(1);
  expect(err).toContain(bad);
  expect(err).toContain('rules[0].level: Unsupported value: "Everything"');
});
