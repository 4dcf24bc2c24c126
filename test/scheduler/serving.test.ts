// The scheduler's ports: health paths open to anyone, /metrics behind delegated authentication and
// authorization (a real `kite apiserver` answers the TokenReviews and SubjectAccessReviews with RBAC),
// client certificates of --client-ca-file, and the insecure port serving everything without auth.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureClientCert, ensureServingCerts } from "../../pkg/pki/certs.ts";
import { SchedulerMetrics } from "../../pkg/scheduler/serving/metrics.ts";
import type { ServingOptions } from "../../pkg/scheduler/serving/options.ts";
import { SchedulerServer } from "../../pkg/scheduler/serving/server.ts";
import { tempDir } from "../helpers/processes.ts";
import { TEST_TOKEN, type TestServer, startServer } from "../helpers/server.ts";

const LOOPBACK = "127.0.0.1";

function serving(o: { authentication?: Partial<ServingOptions["authentication"]>; authorization?: Partial<ServingOptions["authorization"]>; certDir?: string; insecure?: boolean }): ServingOptions {
  return {
    secure: { host: LOOPBACK, port: 0, certDir: o.certDir },
    insecure: o.insecure ? { healthz: { host: LOOPBACK, port: 0 }, metrics: { host: LOOPBACK, port: 0 } } : {},
    authentication: {
      skipLookup: false, tolerateLookupFailure: true, cacheTtlMs: 10_000,
      requestHeader: { allowedNames: [], usernameHeaders: ["x-remote-user"], groupHeaders: ["x-remote-group"], extraHeaderPrefixes: ["x-remote-extra-"] },
      ...o.authentication,
    },
    authorization: { alwaysAllowPaths: ["/healthz", "/readyz", "/livez"], authorizedTtlMs: 10_000, unauthorizedTtlMs: 10_000, ...o.authorization },
  };
}

interface Caller { token?: string; cert?: { cert: string; key: string }; ca?: string }

async function get(port: number, path: string, who: Caller = {}, scheme = "https") {
  const headers: Record<string, string> = who.token ? { Authorization: `Bearer ${who.token}` } : {};
  const tls = { rejectUnauthorized: !!who.ca, ...(who.ca ? { ca: who.ca } : {}), ...(who.cert ?? {}) };
  const r = await fetch(`${scheme}://${LOOPBACK}:${port}${path}`, { headers, tls } as RequestInit);
  return { status: r.status, text: await r.text() };
}

const forbidden = (user: string, path: string) =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: `forbidden: User "${user}" cannot get path "${path}"`, reason: "Forbidden", code: 403, details: {} });

describe("without an authorization kubeconfig", () => {
  const metrics = new SchedulerMetrics();
  const certDir = join(tempDir("kite-sched-serving-"), "certs");
  const server = new SchedulerServer(serving({ certDir, insecure: true }), metrics);
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  test("the health paths are open to anyone, each check alone and ?verbose as upstream's healthz", async () => {
    for (const p of ["/healthz", "/livez", "/readyz"]) expect(await get(server.securePort!, p)).toEqual({ status: 200, text: "ok" });
    expect(await get(server.securePort!, "/healthz?verbose")).toEqual({ status: 200, text: "[+]ping ok\nhealthz check passed\n" });
    server.health.add({ name: "leaderElection", in: ["healthz"], run: async () => "failed election to renew leadership" });
    expect((await get(server.securePort!, "/healthz")).status).toBe(500);
    expect(await get(server.securePort!, "/livez")).toEqual({ status: 200, text: "ok" });
  });

  test("/metrics (and a check alone, not an always-allowed path) is 403 for everyone", async () => {
    expect(await get(server.securePort!, "/metrics")).toEqual({ status: 403, text: forbidden("system:anonymous", "/metrics") });
    expect(await get(server.securePort!, "/healthz/ping")).toEqual({ status: 403, text: forbidden("system:anonymous", "/healthz/ping") });
    // without an authentication kubeconfig a token is not read: the caller stays anonymous
    expect(await get(server.securePort!, "/metrics", { token: "whatever" })).toEqual({ status: 403, text: forbidden("system:anonymous", "/metrics") });
  });

  test("the insecure port serves health and metrics without authentication", async () => {
    metrics.attempt("scheduled", "default-scheduler", 0.004);
    metrics.attempt("unschedulable", "default-scheduler", 0.002);
    metrics.pendingPods = () => ({ active: 3, backoff: 1, unschedulable: 2 });
    const port = server.insecurePorts.healthz!;
    expect(server.insecurePorts.metrics).toBe(port);
    expect(await get(port, "/healthz/ping", {}, "http")).toEqual({ status: 200, text: "ok" });
    const m = await get(port, "/metrics", {}, "http");
    expect(m.status).toBe(200);
    expect(m.text).toContain('scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 1');
    expect(m.text).toContain('scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"} 1');
    expect(m.text).toContain('scheduler_e2e_scheduling_duration_seconds_bucket{le="0.004",profile="default-scheduler",result="scheduled"} 1');
    expect(m.text).toContain('scheduler_pending_pods{queue="active"} 3');
    expect(m.text).toContain('scheduler_pending_pods{queue="unschedulable"} 2');
    expect(m.text).toContain("process_cpu_seconds_total");
  });

  test("the generated serving certificate is kept in --cert-dir and names the loopback address", async () => {
    const crt = join(certDir, "kube-scheduler.crt");
    expect(existsSync(join(certDir, "kube-scheduler.key"))).toBe(true);
    expect(await get(server.securePort!, "/livez", { ca: readFileSync(crt, "utf8") })).toEqual({ status: 200, text: "ok" });
  });
});

describe("delegated to a real API server", () => {
  let api: TestServer;
  let server: SchedulerServer;
  const pki = tempDir("kite-sched-clients-");
  ensureServingCerts(pki);
  const carol = ensureClientCert(pki, "carol", "carol", []);
  const dave = ensureClientCert(pki, "dave", "dave", ["devs"]);

  const admin = { Authorization: `Bearer ${TEST_TOKEN}` };
  beforeAll(async () => {
    const tokens = join(tempDir("kite-sched-tokens-"), "tokens.csv");
    writeFileSync(tokens, `${TEST_TOKEN},kite-test,kite-test,system:masters\nalice-token,alice,alice\nbob-token,bob,bob\n`);
    api = await startServer([`--token-auth-file=${tokens}`, "--authorization-mode=RBAC"]);
    const role = await api.call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      metadata: { name: "metrics-reader" }, rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
    }, admin);
    expect(role.status).toBe(201);
    const binding = await api.call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      metadata: { name: "metrics-reader" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "metrics-reader" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }, { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "carol" }],
    }, admin);
    expect(binding.status).toBe(201);
    server = new SchedulerServer(serving({
      authentication: { kubeconfig: api.kubeconfig, clientCAFile: join(pki, "ca.crt") },
      authorization: { kubeconfig: api.kubeconfig },
    }), new SchedulerMetrics());
    await server.start();
  });
  afterAll(async () => {
    await server?.stop();
    await api?.stop();
  });

  test("a token user RBAC allows gets /metrics; one it does not is 403; a token nobody knows is 401", async () => {
    const ok = await get(server.securePort!, "/metrics", { token: "alice-token" });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("# TYPE scheduler_schedule_attempts_total counter");
    expect(await get(server.securePort!, "/metrics", { token: "bob-token" })).toEqual({ status: 403, text: forbidden("bob", "/metrics") });
    const bad = await get(server.securePort!, "/metrics", { token: "nobody" });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.text)).toMatchObject({ kind: "Status", status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    // health stays open, and system:masters may do anything
    expect(await get(server.securePort!, "/healthz", { token: "bob-token" })).toEqual({ status: 200, text: "ok" });
    expect((await get(server.securePort!, "/metrics", { token: TEST_TOKEN })).status).toBe(200);
  });

  test("client certificates of --client-ca-file: the CommonName is the user RBAC judges", async () => {
    expect((await get(server.securePort!, "/metrics", { cert: carol })).status).toBe(200);
    expect(await get(server.securePort!, "/metrics", { cert: dave })).toEqual({ status: 403, text: forbidden("dave", "/metrics") });
    expect(await get(server.securePort!, "/metrics")).toEqual({ status: 403, text: forbidden("system:anonymous", "/metrics") });
  });

  test("without --client-ca-file the client CA is looked up in kube-system/extension-apiserver-authentication", async () => {
    const o = serving({ authentication: { kubeconfig: api.kubeconfig }, authorization: { kubeconfig: api.kubeconfig } });
    const before = new SchedulerServer(o, new SchedulerMetrics());
    await before.start();
    // nothing published yet: a certificate names no one
    expect(await get(before.securePort!, "/metrics", { cert: carol })).toEqual({ status: 403, text: forbidden("system:anonymous", "/metrics") });
    await before.stop();
    const cm = await api.call("POST", "/api/v1/namespaces/kube-system/configmaps", {
      metadata: { name: "extension-apiserver-authentication" }, data: { "client-ca-file": readFileSync(join(pki, "ca.crt"), "utf8") },
    }, admin);
    expect(cm.status).toBe(201);
    const after = new SchedulerServer(o, new SchedulerMetrics());
    await after.start();
    expect((await get(after.securePort!, "/metrics", { cert: carol })).status).toBe(200);
    await after.stop();
  });
});
