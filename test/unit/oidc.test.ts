// The OIDC authenticator's users, in process against a loopback issuer: the username prefix rules and
// the groups claim (string or array, prefixed), which a 403 message does not show; the flags' defaults.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AuthenticationError } from "../../pkg/auth/authenticate.ts";
import { OidcAuthenticator } from "../../pkg/auth/oidc.ts";
import { type OidcOptions, oidcOptions } from "../../pkg/auth/oidc-options.ts";
import { CLIENT_ID, TestIssuer } from "../helpers/oidc-issuer.ts";

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await TestIssuer.create();
  issuer.listen();
});
afterAll(() => issuer?.stop());

const flags = (more: Record<string, unknown> = {}) => ({
  "oidc-issuer-url": issuer.url, "oidc-client-id": CLIENT_ID, "oidc-ca-file": issuer.caFile,
  "oidc-username-claim": "sub", "oidc-signing-algs": "RS256", ...more,
});

/** An authenticator of these flags whose issuer has been discovered. */
async function authenticator(more: Record<string, unknown> = {}): Promise<OidcAuthenticator> {
  const a = OidcAuthenticator.start(oidcOptions(flags(more)) as OidcOptions);
  const probe = await issuer.token({ email: "x@example.com" });
  for (let i = 0; i < 100; i++) {
    try { await a.authenticateToken(probe); return a; } catch (e) {
      if (!(e instanceof AuthenticationError) || !e.message.includes("not initialized")) return a;
    }
    await Bun.sleep(20);
  }
  throw new Error("the issuer was not discovered");
}

describe("username prefix", () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, () => string][] = [
    ["a claim other than email is prefixed with the issuer URL and # by default", {}, { sub: "alice" }, () => `${issuer.url}#alice`],
    ["email is not prefixed by default", { "oidc-username-claim": "email" }, { email: "alice@example.com" }, () => "alice@example.com"],
    ["'-' means no prefix", { "oidc-username-prefix": "-" }, { sub: "alice" }, () => "alice"],
    ["an explicit prefix is used as given, for email too", { "oidc-username-claim": "email", "oidc-username-prefix": "oidc:" }, { email: "alice@example.com" }, () => "oidc:alice@example.com"],
    ["any claim may name the user", { "oidc-username-claim": "preferred_username", "oidc-username-prefix": "corp/" }, { preferred_username: "al" }, () => "corp/al"],
  ];
  for (const [what, more, claims, want] of cases) {
    test(what, async () => {
      const r = await (await authenticator(more)).authenticateToken(await issuer.token(claims));
      expect(r?.user.name).toBe(want());
    });
  }
});

describe("groups", () => {
  test("an array claim gives every group, prefixed", async () => {
    const a = await authenticator({ "oidc-groups-claim": "groups", "oidc-groups-prefix": "oidc:" });
    expect((await a.authenticateToken(await issuer.token({ groups: ["dev", "ops"] })))?.user.groups).toEqual(["oidc:dev", "oidc:ops"]);
    expect((await a.authenticateToken(await issuer.token({ groups: "admins" })))?.user.groups).toEqual(["oidc:admins"]);
    expect((await a.authenticateToken(await issuer.token({})))?.user.groups).toEqual([]);
  });

  test("any claim may hold the groups; without a groups claim flag there are none", async () => {
    const roles = await authenticator({ "oidc-groups-claim": "roles" });
    expect((await roles.authenticateToken(await issuer.token({ roles: ["a"], groups: ["b"] })))?.user.groups).toEqual(["a"]);
    const none = await authenticator();
    expect((await none.authenticateToken(await issuer.token({ groups: ["b"] })))?.user.groups).toEqual([]);
  });
});

test("a token of another issuer, or no JWT, is left to other authenticators (null); one of ours that fails throws", async () => {
  const a = await authenticator();
  expect(await a.authenticateToken(await issuer.token({ iss: "https://issuer.example" }))).toBeNull();
  expect(await a.authenticateToken("abc.def")).toBeNull();
  await expect(a.authenticateToken(await issuer.token({ aud: "other" }))).rejects.toThrow(AuthenticationError);
});

test("ES256 tokens are accepted when --oidc-signing-algs allows them", async () => {
  const a = await authenticator({ "oidc-signing-algs": "ES256" });
  expect((await a.authenticateToken(await issuer.token({}, issuer.published[1])))?.user.name).toBe(`${issuer.url}#alice`);
  await expect(a.authenticateToken(await issuer.token({}, issuer.published[0]))).rejects.toThrow("not allowed");
});

test("no issuer flag, no OIDC; signing algs default to RS256", () => {
  expect(oidcOptions({ "oidc-username-claim": "sub", "oidc-signing-algs": "" })).toBeUndefined();
  expect(oidcOptions({ ...flags(), "oidc-signing-algs": "" })?.signingAlgs).toEqual(["RS256"]);
  expect(oidcOptions({ ...flags(), "oidc-required-claim": ["a=1,b=2", "c=x=y"] })?.requiredClaims).toEqual({ a: "1", b: "2", c: "x=y" });
});
