// Issue 14: --authorization-mode=Webhook — SubjectAccessReviews POSTed to a real HTTPS webhook on loopback
// (kubeconfig-format --authorization-webhook-config-file), in v1beta1 and v1; allowed allows, denied
// denies and stops the chain, neither passes on; the webhook's reason is in the 403; a webhook that cannot
// be reached is no opinion with an error; answers are cached for their TTL (the webhook counts calls).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureServingCerts } from "../../pkg/pki/certs.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";
import { expectStatus } from "./fixtures.ts";

/** The test's webhook: decides by resource, records every review it is sent. */
function startWebhook() {
  const certs = ensureServingCerts(tempDir("kite-authz-hook-"));
  const reviews: any[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1", port: 0, tls: { cert: certs.cert, key: certs.key },
    async fetch(req) {
      const review: any = await req.json();
      reviews.push(review);
      const ra = review.spec.resourceAttributes ?? {};
      let status: Record<string, unknown> = { allowed: false, reason: "the webhook has no opinion" };
      if (ra.resource === "configmaps" || review.spec.nonResourceAttributes?.path === "/version") status = { allowed: true, reason: "configmaps are fine" };
      if (ra.resource === "secrets") status = { allowed: false, denied: true, reason: "secrets are off limits" };
      return Response.json({ apiVersion: review.apiVersion, kind: "SubjectAccessReview", status });
    },
  });
  return { url: `https://127.0.0.1:${server.port}/authorize`, ca: certs.caFile, reviews, stop: () => server.stop(true) };
}

function kubeconfig(url: string, ca: string): string {
  const file = join(tempDir("kite-authz-cfg-"), "webhook.yaml");
  writeFileSync(file, `apiVersion: v1
kind: Config
clusters:
- name: authz
  cluster:
    server: ${url}
    certificate-authority: ${ca}
users:
- name: apiserver
  user: {}
contexts:
- name: webhook
  context: {cluster: authz, user: apiserver}
current-context: webhook
`);
  return file;
}

describe("--authorization-mode=Webhook,AlwaysAllow (v1beta1, the default)", () => {
  let hook: ReturnType<typeof startWebhook>;
  let s: TestServer;
  beforeAll(async () => {
    hook = startWebhook();
    s = await startServer(["--authorization-mode=Webhook,AlwaysAllow", `--authorization-webhook-config-file=${kubeconfig(hook.url, hook.ca)}`, "--authorization-webhook-cache-unauthorized-ttl=1s"]);
  }, 60_000);
  afterAll(async () => { await s?.stop(); hook?.stop(); }, 30_000);

  test("the review names the request and the user in v1beta1's words", async () => {
    hook.reviews.length = 0;
    expect((await s.call("GET", "/api/v1/namespaces/default/configmaps/cm1")).status).toBe(404);
    expect(hook.reviews).toEqual([{
      apiVersion: "authorization.k8s.io/v1beta1", kind: "SubjectAccessReview", metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: "default", verb: "get", version: "v1", resource: "configmaps", name: "cm1" }, user: "system:anonymous", group: ["system:unauthenticated"] },
      status: { allowed: false },
    }]);
    expect((await s.call("GET", "/version")).status).toBe(200);
    expect(hook.reviews[1].spec).toEqual({ nonResourceAttributes: { path: "/version", verb: "get" }, user: "system:anonymous", group: ["system:unauthenticated"] });
  });

  test("denied is a 403 with the webhook's reason, whatever the next authorizer would say", async () => {
    const r = await s.call("GET", "/api/v1/namespaces/default/secrets");
    expect(expectStatus(r, 403, "Forbidden", "list secrets").message)
      .toBe(`secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "default": secrets are off limits`);
  });

  test("neither allowed nor denied passes the request on (AlwaysAllow allows it)", async () => {
    expect((await s.call("GET", "/api/v1/namespaces/default/services")).status).toBe(200);
  });

  test("an allowed answer is cached for the authorized TTL (5m0s)", async () => {
    hook.reviews.length = 0;
    for (let i = 0; i < 3; i++) expect((await s.call("GET", "/api/v1/namespaces/kube-system/configmaps")).status).toBe(200);
    expect(hook.reviews).toHaveLength(1);
  });

  test("an unauthorized answer is cached for the unauthorized TTL, then asked again", async () => {
    hook.reviews.length = 0;
    for (let i = 0; i < 3; i++) expect((await s.call("GET", "/api/v1/namespaces/kube-system/secrets")).status).toBe(403);
    expect(hook.reviews).toHaveLength(1);
    await Bun.sleep(1200);
    expect((await s.call("GET", "/api/v1/namespaces/kube-system/secrets")).status).toBe(403);
    expect(hook.reviews).toHaveLength(2);
  });
});

describe("--authorization-webhook-version=v1", () => {
  let hook: ReturnType<typeof startWebhook>;
  let s: TestServer;
  beforeAll(async () => {
    hook = startWebhook();
    s = await startServer(["--authorization-mode=Webhook", `--authorization-webhook-config-file=${kubeconfig(hook.url, hook.ca)}`, "--authorization-webhook-version=v1"]);
  }, 60_000);
  afterAll(async () => { await s?.stop(); hook?.stop(); }, 30_000);

  test("the review is authorization.k8s.io/v1 with `groups`, and a subresource is named", async () => {
    hook.reviews.length = 0;
    const r = await s.call("GET", "/apis/apps/v1/namespaces/default/deployments/web/status");
    expect(expectStatus(r, 403, "Forbidden", "deployment status").message)
      .toBe(`deployments.apps "web" is forbidden: User "system:anonymous" cannot get resource "deployments/status" in API group "apps" in the namespace "default": the webhook has no opinion`);
    expect(hook.reviews).toEqual([{
      apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: "default", verb: "get", group: "apps", version: "v1", resource: "deployments", subresource: "status", name: "web" }, user: "system:anonymous", groups: ["system:unauthenticated"] },
      status: { allowed: false },
    }]);
  });

  test("allowed", async () => {
    expect((await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "ok" } })).status).toBe(201);
  });
});

describe("a webhook that cannot be reached", () => {
  let dead: string;
  let alone: TestServer, chained: TestServer;
  beforeAll(async () => {
    const hook = startWebhook();
    hook.stop();
    dead = `https://127.0.0.1:${await freePort()}/authorize`;
    const cfg = kubeconfig(dead, hook.ca);
    [alone, chained] = await Promise.all([
      startServer(["--authorization-mode=Webhook", `--authorization-webhook-config-file=${cfg}`]),
      startServer(["--authorization-mode=Webhook,AlwaysAllow", `--authorization-webhook-config-file=${cfg}`]),
    ]);
  }, 60_000);
  afterAll(async () => { await Promise.all([alone?.stop(), chained?.stop()]); }, 30_000);

  test("is no opinion: the next authorizer decides", async () => {
    expect((await chained.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
  });

  test("with no authorizer left, the error is the server's: 500, naming the call", async () => {
    const r = await alone.call("GET", "/api/v1/namespaces/default/configmaps");
    const st = expectStatus(r, 500, "InternalError", "webhook down");
    expect(st.message).toStartWith(`Internal error occurred: Post "${dead}": `);
  });
});
