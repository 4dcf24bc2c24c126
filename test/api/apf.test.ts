// API Priority and Fairness (on by default): the bootstrap FlowSchemas and PriorityLevelConfigurations
// as kubectl lists them, a custom schema sending one user to a level that rejects, the X-Kubernetes-PF-*
// headers, the mandatory objects put back after a delete, and the flowcontrol metrics.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { kubectl, type TestServer } from "../helpers/server.ts";
import { installSlowHook, type SlowHook, slowConfigMap } from "../helpers/slowhook.ts";
import { expectCode, expectStatus, until, useServer } from "./fixtures.ts";

const NS = "apf";
const FC = "/apis/flowcontrol.apiserver.k8s.io/v1beta1";
const tokens = join(tempDir("kite-apf-tokens-"), "tokens.csv");
writeFileSync(tokens, "test,kite-test,kite-test,system:masters\nnoisy,noisy,noisy,\nquiet,quiet,quiet,\n");
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

let s: TestServer;
let hook: SlowHook;
useServer(NS, (started) => (s = started), [`--token-auth-file=${tokens}`, "--max-requests-inflight=4", "--max-mutating-requests-inflight=4"]);

beforeAll(async () => {
  hook = await installSlowHook(s);
  // the level that turns the noisy user away once its one seat is taken
  expectCode(await s.call("POST", `${FC}/prioritylevelconfigurations`, {
    metadata: { name: "test-reject" }, spec: { type: "Limited", limited: { assuredConcurrencyShares: 1, limitResponse: { type: "Reject" } } },
  }, as("test")), 201, "create the priority level");
  expectCode(await s.call("POST", `${FC}/flowschemas`, {
    metadata: { name: "test-noisy" },
    spec: {
      priorityLevelConfiguration: { name: "test-reject" }, matchingPrecedence: 500, distinguisherMethod: { type: "ByUser" },
      rules: [{ subjects: [{ kind: "User", user: { name: "noisy" } }], resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true }] }],
    },
  }, as("test")), 201, "create the flow schema");
});
afterAll(() => hook?.stop());

const uidOf = async (resource: string, name: string) => (await s.call("GET", `${FC}/${resource}/${name}`, undefined, as("test"))).body.metadata.uid;

describe("bootstrap configuration", () => {
  test("kubectl lists upstream's FlowSchemas and PriorityLevelConfigurations, with their defaults", async () => {
    const fs = await until(async () => {
      const r = await kubectl(s, ["get", "flowschemas", "-o", "jsonpath={range .items[*]}{.metadata.name}={.spec.priorityLevelConfiguration.name}/{.spec.matchingPrecedence} {end}"]);
      return r.out.includes("global-default=") ? r.out : undefined;
    }, "bootstrap flow schemas");
    for (const want of ["exempt=exempt/1", "probes=exempt/2", "system-leader-election=leader-election/100", "workload-leader-election=leader-election/200",
      "system-nodes=system/500", "kube-controller-manager=workload-high/800", "kube-scheduler=workload-high/800", "kube-system-service-accounts=workload-high/900",
      "service-accounts=workload-low/9000", "global-default=global-default/9900", "catch-all=catch-all/10000"]) expect(fs).toContain(want);
    const pl = await kubectl(s, ["get", "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io", "-o", "jsonpath={range .items[*]}{.metadata.name}={.spec.type}/{.spec.limited.assuredConcurrencyShares} {end}"]);
    const table = await kubectl(s, ["get", "flowschemas", "exempt"]);
    expect(table.out).toMatch(/^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\n/);
    expect(table.out).toMatch(/\nexempt\s+exempt\s+1\s+<none>\s+\S+\s+(False|\?)\n/);
    for (const want of ["exempt=Exempt/", "catch-all=Limited/5", "system=Limited/30", "leader-election=Limited/10", "workload-high=Limited/40", "workload-low=Limited/100", "global-default=Limited/20"]) {
      expect(pl.out).toContain(want);
    }
  });

  test("the mandatory objects' specs are fixed", async () => {
    const pl = (await s.call("GET", `${FC}/prioritylevelconfigurations/catch-all`, undefined, as("test"))).body;
    pl.spec.limited.assuredConcurrencyShares = 50;
    const r = await s.call("PUT", `${FC}/prioritylevelconfigurations/catch-all`, pl, as("test"));
    const st = expectStatus(r, 422, "Invalid", "change catch-all's shares");
    expect(st.details.causes).toContainEqual(expect.objectContaining({ field: "spec", message: expect.stringContaining("spec of 'catch-all' must equal the fixed value") }));
  });

  test("each FlowSchema's Dangling condition says whether its priority level exists", async () => {
    expectCode(await s.call("POST", `${FC}/flowschemas`, {
      metadata: { name: "test-dangling" }, spec: { priorityLevelConfiguration: { name: "nowhere" }, matchingPrecedence: 9000 },
    }, as("test")), 201, "create a schema naming no level");
    const condition = (name: string) => until(async () => (await s.call("GET", `${FC}/flowschemas/${name}`, undefined, as("test"))).body.status?.conditions?.find((c: any) => c.type === "Dangling"), `${name} Dangling`);
    expect(await condition("test-dangling")).toMatchObject({ status: "True", reason: "NotFound", message: `This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object` });
    expect(await condition("test-noisy")).toMatchObject({ status: "False", reason: "Found" });
  });

  test("a deleted mandatory FlowSchema is made again", async () => {
    const before = await uidOf("flowschemas", "catch-all");
    expectCode(await s.call("DELETE", `${FC}/flowschemas/catch-all`, undefined, as("test")), 200, "delete catch-all");
    await until(async () => { const u = await uidOf("flowschemas", "catch-all"); return u && u !== before; }, "catch-all made again");
  });
});

describe("classification", () => {
  test("responses name the FlowSchema and priority level by UID", async () => {
    const admin = await s.call("GET", `/api/v1/namespaces/${NS}`, undefined, as("test"));
    expect(admin.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(await uidOf("flowschemas", "exempt"));
    expect(admin.headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(await uidOf("prioritylevelconfigurations", "exempt"));
    const quiet = await s.call("GET", `/api/v1/namespaces/${NS}`, undefined, as("quiet"));
    expect(quiet.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(await uidOf("flowschemas", "global-default"));
    const probe = await s.call("GET", "/readyz");
    expect(probe.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(await uidOf("flowschemas", "probes"));
  });

  test("a user routed to a Reject level with one seat gets 429 for its burst while another user is served", async () => {
    // the webhook configuration reaches the server through a watch: wait until creates are slow
    await until(async () => {
      const t0 = performance.now();
      await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { ...slowConfigMap(`warm-${Date.now()}`, 300) }, as("test"));
      return performance.now() - t0 >= 250;
    }, "slow webhook in effect");
    const burst = Array.from({ length: 5 }, (_, i) => s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, slowConfigMap(`noisy-${i}`, 1500), as("noisy")));
    await Bun.sleep(300);
    const quiet = await Promise.all(Array.from({ length: 5 }, () => s.call("GET", `/api/v1/namespaces/${NS}/configmaps`, undefined, as("quiet"))));
    expect(quiet.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const replies = await Promise.all(burst);
    expect(replies.filter((r) => r.status === 201).length).toBe(1);
    const rejected = replies.filter((r) => r.status === 429);
    expect(rejected.length).toBe(4);
    const st = expectStatus(rejected[0]!, 429, "TooManyRequests", "a noisy create");
    expect(st.message).toBe("Too many requests, please try again later.");
    expect(rejected[0]!.headers.get("retry-after")).toBe("1");
    expect(rejected[0]!.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(await uidOf("flowschemas", "test-noisy"));
  });

  test("/metrics counts the rejections and dispatches per FlowSchema and level", async () => {
    const all = (await s.call("GET", "/metrics", undefined, as("test"))).body as string;
    // only the lines asked about, so a failure shows them and not the whole page
    const m = all.split("\n").filter((l) => /flowcontrol|dropped/.test(l)).join("\n");
    expect(m).toMatch(/apiserver_flowcontrol_rejected_requests_total\{flow_schema="test-noisy",priority_level="test-reject",reason="concurrency-limit"\} 4/);
    expect(m).toMatch(/apiserver_flowcontrol_dispatched_requests_total\{flow_schema="global-default",priority_level="global-default"\} \d+/);
    expect(m).toMatch(/apiserver_flowcontrol_current_executing_requests\{flow_schema="exempt",priority_level="exempt"\} 1/);
    expect(m).toContain("# TYPE apiserver_flowcontrol_current_inqueue_requests gauge");
    expect(m).toMatch(/apiserver_flowcontrol_request_wait_duration_seconds_bucket\{flow_schema="test-noisy",priority_level="test-reject",execute="false",le="0.005"\} 4/);
    expect(m).toMatch(/apiserver_dropped_requests_total\{request_kind="mutating"\} 4/);
  });
});
