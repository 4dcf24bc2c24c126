// Issue 14 items 1 and 7: the token webhook (--authentication-token-webhook-config-file, -cache-ttl,
// -version) against a real HTTPS webhook on loopback that demands the API server's client certificate,
// counts its calls and answers by token: allowed, denied, denied with a reason.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import { TokenWebhook as Webhook } from "../helpers/token-webhook.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus } from "./fixtures.ts";

const NS = "/api/v1/namespaces";
/** --api-audiences by default (the service-account issuer): what a request's token must be for. */
const API_AUDIENCES = ["https://kubernetes.default.svc.cluster.local"];
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

for (const version of ["v1beta1", "v1"] as const) {
  describe(`token webhook, TokenReview ${version}`, () => {
    let s: TestServer, hook: Webhook;
    beforeAll(async () => {
      hook = new Webhook();
      const flags = [`--authentication-token-webhook-config-file=${hook.kubeconfig()}`, "--authentication-token-webhook-cache-ttl=2s"];
      // v1beta1 is the default version
      if (version === "v1") flags.push("--authentication-token-webhook-version=v1");
      s = await startServer([...flags, "--authorization-mode=AlwaysDeny"]);
    }, 30_000);
    afterAll(async () => {
      await s?.stop();
      hook?.server.stop(true);
    });

    test("a token the webhook allows is the webhook's user; the review it was sent names the version", async () => {
      const r = await s.call("GET", NS, undefined, bearer("good-token"));
      expect(expectStatus(r, 403, "Forbidden", "good token").message).toBe(`namespaces is forbidden: User "webhook-user" cannot list resource "namespaces" in API group "" at the cluster scope`);
      expect(hook.calls[0]).toEqual({ token: "good-token", apiVersion: `authentication.k8s.io/${version}`, kind: "TokenReview", audiences: API_AUDIENCES });
    });

    test("tokens the webhook denies (with a reason or without) are 401", async () => {
      for (const t of ["bad-token", "revoked-token"]) expectStatus(await s.call("GET", NS, undefined, bearer(t)), 401, "Unauthorized", t);
    });

    test("answers are cached for the TTL, allowed and denied alike, then asked again", async () => {
      // fresh tokens: the first use asks the webhook once, however many requests follow within the TTL
      await Promise.all([1, 2, 3].map(() => s.call("GET", NS, undefined, bearer("cache-good"))));
      for (const _ of [1, 2]) expectStatus(await s.call("GET", NS, undefined, bearer("cache-bad")), 401, "Unauthorized", "cache-bad");
      expect({ good: hook.count("cache-good"), bad: hook.count("cache-bad") }).toEqual({ good: 1, bad: 1 });
      await Bun.sleep(2_200);
      await s.call("GET", NS, undefined, bearer("cache-good"));
      await s.call("GET", NS, undefined, bearer("cache-bad"));
      expect({ good: hook.count("cache-good"), bad: hook.count("cache-bad") }).toEqual({ good: 2, bad: 2 });
    });

    test("a webhook's 500 is retried with backoff; one that keeps failing is 401", async () => {
      expect(expectStatus(await s.call("GET", NS, undefined, bearer("flaky-token")), 403, "Forbidden", "flaky").message).toContain(`User "webhook-user"`);
      expect(hook.count("flaky-token")).toBe(2);
      expectStatus(await s.call("GET", NS, undefined, bearer("broken-token")), 401, "Unauthorized", "broken");
      expect(hook.count("broken-token")).toBe(5);
    }, 20_000);

    test("a webhook that cannot be reached is 401, and asked again next time", async () => {
      const port = hook.server.port;
      hook.server.stop(true);
      expectStatus(await s.call("GET", NS, undefined, bearer("while-down")), 401, "Unauthorized", "webhook down");
      hook.restart(port!);
      await s.call("GET", NS, undefined, bearer("while-down"));
      expect(hook.count("while-down")).toBe(1);
    });
  });
}

describe("token webhook behind TokenReview", () => {
  let s: TestServer, hook: Webhook;
  beforeAll(async () => {
    hook = new Webhook();
    s = await startServer([`--authentication-token-webhook-config-file=${hook.kubeconfig()}`, "--authentication-token-webhook-version=v1"]);
  }, 30_000);
  afterAll(async () => {
    await s?.stop();
    hook?.server.stop(true);
  });

  test("TokenReview reports the webhook's user with its extra, and its refusal reason", async () => {
    const ok = await s.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: "good-token" } });
    expectCode(ok, 201, "review good-token");
    // the webhook named no audiences: the token is for the server's own
    expect(ok.body.status).toEqual({ authenticated: true, user: { username: "webhook-user", uid: "w-1", groups: ["webhook-group", "system:authenticated"], extra: { scopes: ["read", "write"] } }, audiences: API_AUDIENCES });
    const no = await s.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: "revoked-token" } });
    expect(no.body.status).toEqual({ user: {}, error: "token revoked" });
  });

  test("a review asking for audiences passes them to the webhook; with none in common the token is not vouched for", async () => {
    const r = await s.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: "good-token", audiences: ["vault"] } });
    expect(hook.calls.at(-1)).toMatchObject({ token: "good-token", audiences: ["vault"] });
    // the webhook named no audiences, and "vault" is not one of the server's
    expect(r.body.status).toEqual({ user: {}, error: "invalid bearer token" });
  });
});

describe("bad webhook flags stop the server with one line", () => {
  const start = async (...extra: string[]) => {
    const r = await runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${await freePort()}`, `--data-dir=${tempDir("kite-badhook-")}`, ...extra]);
    return { code: r.code, err: r.err.trim() };
  };

  test("an unusable kubeconfig (exit 1), an unknown version (exit 2)", async () => {
    const file = join(tempDir("kite-badhook-"), "kubeconfig");
    writeFileSync(file, "clusters: [{name: c, cluster: {certificate-authority: ca.crt}}]\n");
    expect(await start(`--authentication-token-webhook-config-file=${file}`)).toEqual({ code: 1, err: `Error: authentication and authorization: invalid configuration: no server found for cluster in ${file}` });
    expect(await start(`--authentication-token-webhook-config-file=${file}`, "--authentication-token-webhook-version=v2")).toEqual({
      code: 2, err: `Error: invalid argument "v2" for "--authentication-token-webhook-version" flag: must be one of v1beta1, v1`,
    });
  });
});
