// Issue 14 items 1, 4, 5, 7: bearer tokens. Static tokens (--token-auth-file) and bootstrap tokens
// (--enable-bootstrap-token-auth) in the Authorization header and in a WebSocket subprotocol; a token no
// token kind accepts is 401 even with anonymous requests on, an empty one is no credential; the TokenReview
// API (v1, v1beta1) says whose a token is; a bad token file stops the server with one line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import { rawGet } from "../helpers/raw.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus } from "./fixtures.ts";

const NS = "/api/v1/namespaces";
/** --api-audiences by default: the service-account issuer; static and bootstrap tokens are for those. */
const API_AUDIENCES = ["https://kubernetes.default.svc.cluster.local"];
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

/** A token file as upstream's CSV: quoted groups, a row without groups, an empty token (skipped). */
function tokenFile(): string {
  const f = join(tempDir("kite-tokens-"), "tokens.csv");
  writeFileSync(f, 'tok-alice,alice,uid-alice,"dev,ops"\ntok-bob,bob,uid-bob\n\n,nobody,uid-0\n');
  return f;
}

/** What TokenReview says of a token, at authentication.k8s.io/VERSION. */
async function review(s: TestServer, token: string, version = "v1", audiences?: string[]) {
  const r = await s.call("POST", `/apis/authentication.k8s.io/${version}/tokenreviews`, {
    apiVersion: `authentication.k8s.io/${version}`, kind: "TokenReview", spec: { token, ...(audiences ? { audiences } : {}) },
  });
  expectCode(r, 201, `TokenReview of ${token}`);
  return r.body;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
function bootstrapSecret(id: string, secret: string, data: Record<string, string> = {}, ns = "kube-system") {
  return {
    metadata: { name: `bootstrap-token-${id}`, namespace: ns }, type: "bootstrap.kubernetes.io/token",
    data: Object.fromEntries(Object.entries({ "token-id": id, "token-secret": secret, "usage-bootstrap-authentication": "true", ...data }).map(([k, v]) => [k, b64(v)])),
  };
}

describe("static and bootstrap tokens with AlwaysAllow", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer([`--token-auth-file=${tokenFile()}`, "--enable-bootstrap-token-auth"]);
    const hour = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, "Z");
    const secrets = [
      bootstrapSecret("abcdef", "0123456789abcdef", { "auth-extra-groups": "system:bootstrappers:worker,system:bootstrappers:kite", expiration: hour }),
      bootstrapSecret("expire", "0123456789abcdef", { expiration: "2020-01-01T00:00:00Z" }),
      bootstrapSecret("nouse0", "0123456789abcdef", { "usage-bootstrap-authentication": "false" }),
      bootstrapSecret("badgrp", "0123456789abcdef", { "auth-extra-groups": "admins" }),
      { ...bootstrapSecret("opaque", "0123456789abcdef"), type: "Opaque" },
      bootstrapSecret("elsewh", "0123456789abcdef", {}, "default"),
    ];
    for (const sec of secrets) expectCode(await s.call("POST", `/api/v1/namespaces/${sec.metadata.namespace}/secrets`, sec), 201, `create ${sec.metadata.name}`);
  }, 30_000);
  afterAll(async () => { await s?.stop(); });

  test("a listed static token is served; the scheme is case-insensitive", async () => {
    expectCode(await s.call("GET", NS, undefined, bearer("tok-alice")), 200, "alice lists namespaces");
    expectCode(await s.call("GET", NS, undefined, { Authorization: "bearer tok-bob" }), 200, "bob with a lower-case scheme");
  });

  test("an unknown token is 401, never anonymous, though anonymous requests are allowed", async () => {
    for (const t of ["tok-carol", "tok-alice2", "abcdef.0123456789abcdee", "abcdef.short"]) {
      expect(expectStatus(await s.call("GET", NS, undefined, bearer(t)), 401, "Unauthorized", t).message).toBe("Unauthorized");
    }
    expectCode(await s.call("GET", NS), 200, "no credentials: anonymous");
  });

  test("an empty bearer token or another scheme is no credential: the request is anonymous", async () => {
    expectCode(await s.call("GET", NS, undefined, { Authorization: "Bearer " }), 200, "empty token");
    expectCode(await s.call("GET", NS, undefined, { Authorization: "Basic YWxpY2U6eA==" }), 200, "basic auth");
  });

  test("TokenReview v1 and v1beta1: user, uid, groups (with system:authenticated) of a static token", async () => {
    for (const v of ["v1", "v1beta1"]) {
      const r = await review(s, "tok-alice", v);
      expect(r).toMatchObject({ kind: "TokenReview", apiVersion: `authentication.k8s.io/${v}`, metadata: { creationTimestamp: null }, spec: { token: "tok-alice" } });
      expect(r.status).toEqual({ authenticated: true, user: { username: "alice", uid: "uid-alice", groups: ["dev", "ops", "system:authenticated"] }, audiences: API_AUDIENCES });
    }
    expect((await review(s, "tok-bob")).status.user).toEqual({ username: "bob", uid: "uid-bob", groups: ["system:authenticated"] });
  });

  test("TokenReview of an unknown token: not authenticated, with the reason; an empty token is 400", async () => {
    expect((await review(s, "nope")).status).toEqual({ user: {}, error: "invalid bearer token" });
    const r = await s.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: "" } });
    expect(expectStatus(r, 400, "BadRequest", "empty token").message).toBe("token is required for TokenReview in authentication");
  });

  test("TokenReview for audiences of its own: static tokens are good for the server's audiences only", async () => {
    expect((await review(s, "tok-alice", "v1", ["vault"])).status).toEqual({ user: {}, error: "invalid bearer token" });
    expect((await review(s, "tok-alice", "v1", ["vault", ...API_AUDIENCES])).status.audiences).toEqual(API_AUDIENCES);
  });

  test("TokenReview is create-only and cluster-scoped, in both versions", async () => {
    expectCode(await s.call("GET", "/apis/authentication.k8s.io/v1/tokenreviews"), 405, "list");
    expectCode(await s.call("POST", "/apis/authentication.k8s.io/v1/namespaces/default/tokenreviews", { spec: { token: "x" } }), 404, "namespaced");
    const d = await s.call("GET", "/apis/authentication.k8s.io/v1");
    expect(d.body.resources.find((r: any) => r.name === "tokenreviews")).toEqual({ name: "tokenreviews", singularName: "", namespaced: false, kind: "TokenReview", verbs: ["create"] });
    const g = await s.call("GET", "/apis/authentication.k8s.io");
    expect(g.body.versions.map((v: any) => v.version)).toEqual(["v1", "v1beta1"]);
  });

  test("a bootstrap token: user system:bootstrap:<id> in system:bootstrappers and its extra groups", async () => {
    expectCode(await s.call("GET", NS, undefined, bearer("abcdef.0123456789abcdef")), 200, "bootstrap token");
    expect((await review(s, "abcdef.0123456789abcdef")).status).toEqual({
      authenticated: true,
      user: { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:bootstrappers:kite", "system:bootstrappers:worker", "system:authenticated"] },
      audiences: API_AUDIENCES,
    });
  });

  test("bootstrap tokens that are expired, not for authentication, with a bad group, of another type or namespace: 401", async () => {
    for (const id of ["expire", "nouse0", "badgrp", "opaque", "elsewh"]) {
      expectStatus(await s.call("GET", NS, undefined, bearer(`${id}.0123456789abcdef`)), 401, "Unauthorized", id);
    }
  });

  test("a deleted bootstrap Secret no longer authenticates", async () => {
    const t = bearer("delete.0123456789abcdef");
    expectCode(await s.call("POST", "/api/v1/namespaces/kube-system/secrets", bootstrapSecret("delete", "0123456789abcdef")), 201, "create");
    expectCode(await s.call("GET", NS, undefined, t), 200, "before deletion");
    expectCode(await s.call("DELETE", "/api/v1/namespaces/kube-system/secrets/bootstrap-token-delete"), 200, "delete");
    // Read from the watch cache, as upstream reads its informer: the deletion arrives within moments.
    const deadline = Date.now() + 5_000;
    let status = 200;
    while (status !== 401 && Date.now() < deadline) status = (await s.call("GET", NS, undefined, t)).status;
    expect(status).toBe(401);
  });
});

describe("tokens with AlwaysDeny: the 403 names the token's user", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer([`--token-auth-file=${tokenFile()}`, "--authorization-mode=AlwaysDeny"]); }, 30_000);
  afterAll(async () => { await s?.stop(); });

  test("Authorization header", async () => {
    const r = await s.call("GET", "/api/v1/namespaces/default/pods", undefined, bearer("tok-alice"));
    expect(expectStatus(r, 403, "Forbidden", "alice").message).toBe(`pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`);
  });

  const ws = (protocols: string) => ({ Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": protocols });
  const wsToken = (t: string) => `base64url.bearer.authorization.k8s.io.${Buffer.from(t).toString("base64url")}`;

  test("a WebSocket request's base64url.bearer.authorization.k8s.io subprotocol", async () => {
    const r = await rawGet(s, "/api/v1/namespaces/default/pods?watch=true", ws(`${wsToken("tok-bob")}, v4.channel.k8s.io`));
    expect(r.status).toBe(403);
    expect(r.body).toContain(`User \\"bob\\" cannot watch resource \\"pods\\"`);
  });

  test("a bad subprotocol token, one without another subprotocol, or two tokens: 401", async () => {
    for (const p of [`${wsToken("tok-nope")}, v4.channel.k8s.io`, wsToken("tok-bob"), `${wsToken("tok-bob")}, ${wsToken("tok-alice")}, v4.channel.k8s.io`, "base64url.bearer.authorization.k8s.io.***, x"]) {
      const r = await rawGet(s, "/api/v1/namespaces/default/pods?watch=true", ws(p));
      expect({ p, status: r.status }).toEqual({ p, status: 401 });
    }
  });

  test("the subprotocol is read only from WebSocket requests", async () => {
    const r = await s.call("GET", "/api/v1/namespaces/default/pods", undefined, { "Sec-WebSocket-Protocol": `${wsToken("tok-bob")}, x` });
    expect(expectStatus(r, 403, "Forbidden", "not a websocket").message).toContain(`User "system:anonymous"`);
  });
});

describe("--anonymous-auth=false with tokens", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer([`--token-auth-file=${tokenFile()}`, "--anonymous-auth=false"]); }, 30_000);
  afterAll(async () => { await s?.stop(); });

  test("a token is served; an empty one is no credential, so 401", async () => {
    expectCode(await s.call("GET", NS, undefined, bearer("tok-alice")), 200, "alice");
    expectStatus(await s.call("GET", NS, undefined, { Authorization: "Bearer " }), 401, "Unauthorized", "empty");
  });
});

describe("a bad --token-auth-file stops the server with one line", () => {
  const start = async (...extra: string[]) => runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${await freePort()}`, `--data-dir=${tempDir("kite-badtok-")}`, ...extra]);

  test("too few columns, a bare quote, a missing file", async () => {
    const dir = tempDir("kite-badtok-");
    const cases: [string, string][] = [
      ["tok,alice\n", `token file '${join(dir, "f0")}' must have at least 3 columns (token, user name, user uid), found 2`],
      ['tok,al"ice,u1\n', `parse error on line 1, column 7: bare " in non-quoted field`],
    ];
    for (const [i, [text, want]] of cases.entries()) {
      writeFileSync(join(dir, `f${i}`), text);
      const r = await start(`--token-auth-file=${join(dir, `f${i}`)}`);
      expect({ code: r.code, err: r.err.trim() }).toEqual({ code: 1, err: `Error: authentication and authorization: ${want}` });
    }
    const r = await start(`--token-auth-file=${join(dir, "missing")}`);
    expect({ code: r.code, err: r.err.trim() }).toEqual({ code: 1, err: `Error: authentication and authorization: open ${join(dir, "missing")}: no such file or directory` });
  });
});
