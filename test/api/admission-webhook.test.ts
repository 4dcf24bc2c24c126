// Admission webhooks against a real HTTPS webhook server on loopback (its CA made by pkg/pki here): JSON
// patches applied, refusals with the webhook's message and code, failure policies with a dead webhook,
// timeouts, namespace and object selectors, dry runs, AdmissionReview v1beta1, warnings reaching kubectl.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort, kubectl, type TestServer } from "../helpers/server.ts";
import { startWebhookServer, type WebhookServer } from "../helpers/webhookserver.ts";
import { expectCode, expectStatus, until, useServer } from "./fixtures.ts";

const NS = "admission-webhook";
let s: TestServer;
useServer(NS, (started) => (s = started));

/** Every review the webhook server got, newest last. */
const seen: any[] = [];
let hook: WebhookServer;

const patchOf = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString("base64");

/** What each path of the webhook server answers to a review. */
const ANSWERS: Record<string, (req: any) => any> = {
  "/mutate": (r) => ({ allowed: true, patchType: "JSONPatch", patch: patchOf([{ op: "add", path: "/metadata/labels/mutated", value: "yes" }]), warnings: ["mutated by label.example.com"] }),
  "/mutate-ns": () => ({ allowed: true, patchType: "JSONPatch", patch: patchOf([{ op: "add", path: "/metadata/labels/ns-hook", value: "called" }]) }),
  "/deny": () => ({ allowed: false, status: { code: 422, reason: "Invalid", message: "configmaps with hook=deny are refused" } }),
  "/slow": () => ({ allowed: true }),
  // reinvoked once the webhook after it has changed the object: the second call sees "first" and adds "again"
  "/first": (r) => ({ allowed: true, patchType: "JSONPatch", patch: patchOf([{ op: "add", path: r.object.metadata.labels.first ? "/metadata/labels/again" : "/metadata/labels/first", value: "yes" }]) }),
  "/second": () => ({ allowed: true, patchType: "JSONPatch", patch: patchOf([{ op: "add", path: "/metadata/labels/second", value: "yes" }]) }),
};

async function answer(req: Request): Promise<Response> {
  const path = new URL(req.url).pathname;
  const review = (await req.json()) as any;
  seen.push({ path, review, timeout: new URL(req.url).searchParams.get("timeout") });
  if (path === "/slow") await Bun.sleep(2500);
  if (path === "/v1beta1") {
    // a v1beta1 review is answered in v1beta1, without the uid check v1 makes
    return Response.json({ apiVersion: review.apiVersion, kind: "AdmissionReview", response: { allowed: false, status: { message: `saw ${review.apiVersion}` } } });
  }
  return Response.json({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, ...ANSWERS[path](review.request) } });
}

const webhook = (name: string, selector: string, url: string, extra: Record<string, unknown> = {}) => ({
  name, sideEffects: "None", admissionReviewVersions: ["v1"],
  clientConfig: { url, caBundle: hook.caBundle },
  rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
  objectSelector: { matchLabels: { hook: selector } },
  ...extra,
});

beforeAll(async () => {
  hook = startWebhookServer("webhook", answer);
  const base = hook.base;
  const dead = `https://127.0.0.1:${await freePort()}/dead`;
  const m = await s.call("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
    metadata: { name: "test-mutating" },
    webhooks: [
      webhook("label.example.com", "mutate", `${base}/mutate`),
      webhook("dead-ignore.example.com", "dead-ignore", dead, { failurePolicy: "Ignore" }),
      webhook("dead-fail.example.com", "dead-fail", dead, { failurePolicy: "Fail" }),
      webhook("slow.example.com", "slow", `${base}/slow`, { timeoutSeconds: 1 }),
      webhook("ns.example.com", "ns", `${base}/mutate-ns`, { namespaceSelector: { matchLabels: { team: "a" } } }),
      webhook("first.example.com", "reinvoke", `${base}/first`, { reinvocationPolicy: "IfNeeded" }),
      webhook("second.example.com", "reinvoke", `${base}/second`),
    ],
  });
  expectCode(m, 201, "create the mutating configuration");
  const v = await s.call("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
    metadata: { name: "test-validating" },
    webhooks: [
      webhook("deny.example.com", "deny", `${base}/deny`),
      webhook("v1beta1.example.com", "v1beta1", `${base}/v1beta1`, { admissionReviewVersions: ["v1beta1"] }),
    ],
  });
  expectCode(v, 201, "create the validating configuration");
});

afterAll(() => hook?.stop());

const configMap = (name: string, hookLabel: string, ns = NS) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, labels: { hook: hookLabel } }, data: { a: "b" } });
const post = (cm: any, query = "") => s.call("POST", `/api/v1/namespaces/${cm.metadata.namespace}/configmaps${query}`, cm);

describe("mutating webhooks", () => {
  test("the webhook's JSON patch is applied and stored; its warning reaches the client", async () => {
    const r = await post(configMap("mutated", "mutate"));
    expectCode(r, 201, "create a configmap the webhook mutates");
    expect(r.body.metadata.labels).toEqual({ hook: "mutate", mutated: "yes" });
    expect(r.headers.get("warning")).toContain("mutated by label.example.com");
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/mutated`)).body.metadata.labels.mutated).toBe("yes");
    const review = seen.find((x) => x.path === "/mutate")!;
    expect(review.timeout).toBe("10s");
    expect(review.review.request).toMatchObject({ operation: "CREATE", namespace: NS, name: "mutated", kind: { group: "", version: "v1", kind: "ConfigMap" }, resource: { resource: "configmaps" }, userInfo: { username: "system:anonymous" }, dryRun: false });
  });

  test("objects the object selector does not match are not sent", async () => {
    const before = seen.length;
    expectCode(await post(configMap("unmatched", "nobody")), 201, "create an unmatched configmap");
    expect(seen.length).toBe(before);
  });

  test("the namespace selector: called only for namespaces with the label", async () => {
    for (const [name, labels] of [["team-a", { team: "a" }], ["team-b", { team: "b" }]] as const) {
      expectCode(await s.call("POST", "/api/v1/namespaces", { metadata: { name, labels } }), 201, `namespace ${name}`);
    }
    const a = await post(configMap("x", "ns", "team-a"));
    expectCode(a, 201, "configmap in team-a");
    expect(a.body.metadata.labels["ns-hook"]).toBe("called");
    const b = await post(configMap("x", "ns", "team-b"));
    expectCode(b, 201, "configmap in team-b");
    expect(b.body.metadata.labels["ns-hook"]).toBeUndefined();
  });

  test("a dry run reaches the webhook as one and stores nothing", async () => {
    const r = await post(configMap("dry", "mutate"), "?dryRun=All");
    expectCode(r, 201, "dry-run create");
    expect(r.body.metadata.labels.mutated).toBe("yes");
    expect(seen.at(-1)!.review.request.dryRun).toBe(true);
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/dry`)).status).toBe(404);
  });

  test("reinvocationPolicy IfNeeded: called again once a later webhook changed the object", async () => {
    const r = await post(configMap("reinvoked", "reinvoke"));
    expectCode(r, 201, "create through the reinvoked webhook");
    expect(r.body.metadata.labels).toEqual({ hook: "reinvoke", first: "yes", second: "yes", again: "yes" });
    expect(seen.filter((x) => x.review.request.name === "reinvoked").map((x) => x.path)).toEqual(["/first", "/second", "/first"]);
  });
});

describe("failures", () => {
  test("a dead webhook with failurePolicy Ignore lets the request through", async () => {
    expectCode(await post(configMap("ignored", "dead-ignore")), 201, "create past a dead Ignore webhook");
  });

  test("a dead webhook with failurePolicy Fail refuses it with 500", async () => {
    const st = expectStatus(await post(configMap("failed", "dead-fail")), 500, "InternalError", "create past a dead Fail webhook");
    expect(st.message).toMatch(/^Internal error occurred: failed calling webhook "dead-fail.example.com": Post "https:\/\/127\.0\.0\.1:\d+\/dead\?timeout=10s": /);
  });

  test("a webhook slower than timeoutSeconds fails the request", async () => {
    const st = expectStatus(await post(configMap("slow", "slow")), 500, "InternalError", "create past a slow webhook");
    expect(st.message).toContain(`failed calling webhook "slow.example.com"`);
    expect(st.message).toContain("context deadline exceeded");
  });
});

describe("validating webhooks", () => {
  test("a refusal carries the webhook's message, code and reason", async () => {
    const st = expectStatus(await post(configMap("denied", "deny")), 422, "Invalid", "create a configmap the webhook refuses");
    expect(st.message).toBe(`admission webhook "deny.example.com" denied the request: configmaps with hook=deny are refused`);
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/denied`)).status).toBe(404);
  });

  test("an update is sent too, with the old object", async () => {
    const cm = configMap("later", "nobody");
    expectCode(await post(cm), 201, "create");
    const r = await s.call("PUT", `/api/v1/namespaces/${NS}/configmaps/later`, { ...cm, metadata: { ...cm.metadata, labels: { hook: "deny" } } });
    expectStatus(r, 422, "Invalid", "update into the webhook's selector");
    expect(seen.at(-1)!.review.request).toMatchObject({ operation: "UPDATE", oldObject: { metadata: { labels: { hook: "nobody" } } } });
  });

  test("a webhook that reads only v1beta1 gets an admission.k8s.io/v1beta1 review", async () => {
    const r = await post(configMap("old", "v1beta1"));
    expectCode(r, 403, "create for the v1beta1 webhook");
    // no reason given, none answered (upstream leaves it out)
    expect(r.body.reason).toBeUndefined();
    expect(r.body.message).toBe(`admission webhook "v1beta1.example.com" denied the request: saw admission.k8s.io/v1beta1`);
  });
});

test("kubectl prints the webhook's warning", async () => {
  const manifest = JSON.stringify(configMap("via-kubectl", "mutate"));
  const r = await kubectl(s, ["apply", "-f", "-"], manifest);
  expect(r.code).toBe(0);
  expect(r.err).toContain("Warning: mutated by label.example.com");
});

test("the webhook metrics count calls and refusals", async () => {
  const text = await until(async () => {
    const t = await (await s.req("/metrics")).text();
    return t.includes("apiserver_admission_webhook_rejection_count") ? t : undefined;
  }, "webhook metrics");
  // labels in alphabetical order, as upstream's Go client writes them
  expect(text).toMatch(/^apiserver_admission_webhook_admission_duration_seconds_count\{name="label.example.com",operation="CREATE",rejected="false",type="admit"\} \d+$/m);
  expect(text).toMatch(/^apiserver_admission_webhook_rejection_count\{error_type="no_error",name="deny.example.com",operation="CREATE",rejection_code="422",type="validating"\} 1$/m);
  expect(text).toMatch(/^apiserver_admission_webhook_rejection_count\{error_type="calling_webhook_error",name="dead-fail.example.com",operation="CREATE",rejection_code="0",type="admit"\} 1$/m);
  expect(text).toMatch(/^apiserver_admission_controller_admission_duration_seconds_count\{name="ValidatingAdmissionWebhook",operation="CREATE",rejected="true",type="validate"\} \d+$/m);
});
