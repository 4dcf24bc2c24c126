// Issue 14 item 1, service accounts (and their item 7 tests): tokens from the TokenRequest subresource,
// legacy Secret tokens, the checks that refuse a token (audience, signature, lifetime, objects deleted or
// recreated), the issuer discovery document and key set, `kubectl create token`, and the official
// clients using such a token.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type KeyObject, generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { decodeObject, encodeObject } from "../../pkg/protobuf/index.ts";
import { tempDir } from "../helpers/processes.ts";
import { ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus, until } from "./fixtures.ts";

setDefaultTimeout(60_000);

const ISSUER = "https://issuer.kite.test";
const OLD_ISSUER = "https://old-issuer.kite.test";
const JWKS_URI = "https://keys.kite.test/openid/v1/jwks";
const NS = "sa-tokens";

// The server signs with an RSA key of the test's, and also trusts an ECDSA public key; `stranger` it does not know.
const keys = tempDir("kite-sa-keys-");
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
writeFileSync(join(keys, "signing.key"), rsa.privateKey.export({ type: "pkcs8", format: "pem" }));
writeFileSync(join(keys, "ec.pub"), ec.publicKey.export({ type: "spki", format: "pem" }));

const now = () => Math.floor(Date.now() / 1000);
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const forge = (key: KeyObject, alg: string, claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg }).sign(key);

async function serviceAccount(s: TestServer, ns: string, name: string): Promise<any> {
  const r = await s.call("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } });
  expectCode(r, 201, `create serviceaccount ${name}`);
  return r.body;
}

async function tokenRequest(s: TestServer, ns: string, sa: string, spec: Record<string, unknown> = {}) {
  return s.call("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec });
}

async function token(s: TestServer, ns: string, sa: string, spec: Record<string, unknown> = {}): Promise<string> {
  const r = await tokenRequest(s, ns, sa, spec);
  expectCode(r, 201, `token for ${sa}`);
  return r.body.status.token;
}

/** The HTTP status of listing pods with the token. */
const listPods = async (s: TestServer, t: string, ns = NS) => (await s.call("GET", `/api/v1/namespaces/${ns}/pods`, undefined, bearer(t))).status;

/**
 * Waits until the token is refused: the authenticator reads ServiceAccounts, Pods and Secrets from the watch
 * cache (as upstream reads its informers), which sees a deletion a moment after it is answered.
 */
const refused = (s: TestServer, t: string, ns = NS) => until(async () => (await listPods(s, t, ns)) === 401, "the token refused");

function expectUnauthorized(r: { status: number; body: any; headers: Headers }, what: string) {
  expect(expectStatus(r, 401, "Unauthorized", what).message).toBe("Unauthorized");
}

describe("service-account tokens", () => {
  let s: TestServer;
  let robot: any;
  beforeAll(async () => {
    s = await startServer([
      `--service-account-issuer=${ISSUER}`, `--service-account-issuer=${OLD_ISSUER}`,
      `--service-account-signing-key-file=${join(keys, "signing.key")}`, `--service-account-key-file=${join(keys, "ec.pub")}`,
      "--service-account-max-token-expiration=2h", `--service-account-jwks-uri=${JWKS_URI}`,
    ]);
    await createNamespace(s, NS);
    robot = await serviceAccount(s, NS, "robot");
  }, 30_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("discovery and OpenAPI list serviceaccounts/token, which takes an authentication.k8s.io/v1 TokenRequest", async () => {
    const legacy = await s.call("GET", "/api/v1");
    expect(legacy.body.resources.find((r: any) => r.name === "serviceaccounts/token")).toEqual({
      name: "serviceaccounts/token", singularName: "", namespaced: true, group: "authentication.k8s.io", version: "v1", kind: "TokenRequest", verbs: ["create"],
    });
    const agg = await s.call("GET", "/api", undefined, { Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" });
    const sa = agg.body.items[0].versions[0].resources.find((r: any) => r.resource === "serviceaccounts");
    expect(sa.subresources).toEqual([{ subresource: "token", responseKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" }, verbs: ["create"] }]);
    const v3 = await s.call("GET", "/openapi/v3/api/v1");
    const post = v3.body.paths["/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"].post;
    expect([post.operationId, post["x-kubernetes-group-version-kind"]]).toEqual(["createCoreV1NamespacedServiceAccountToken", { group: "authentication.k8s.io", kind: "TokenRequest", version: "v1" }]);
    expect(v3.body.components.schemas["io.k8s.api.authentication.v1.TokenRequestSpec"].properties.expirationSeconds.format).toBe("int64");
  });

  test("a TokenRequest in protobuf is answered in protobuf", async () => {
    const body = encodeObject({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: {}, spec: { expirationSeconds: 1200 } });
    const type = "application/vnd.kubernetes.protobuf";
    const r = await s.req(`/api/v1/namespaces/${NS}/serviceaccounts/robot/token`, { method: "POST", body, headers: { "Content-Type": type, Accept: type } });
    expect([r.status, r.headers.get("content-type")]).toEqual([201, type]);
    const tr = decodeObject(new Uint8Array(await r.arrayBuffer()));
    expect([tr.kind, tr.spec.expirationSeconds, tr.spec.audiences]).toEqual(["TokenRequest", 1200, [ISSUER]]);
    const c = decodeJwt(tr.status.token);
    expect(c.exp! - c.iat!).toBe(1200);
  });

  test("a TokenRequest answers a signed token for the ServiceAccount, with upstream's defaults", async () => {
    const before = now();
    const r = await tokenRequest(s, NS, "robot");
    expectCode(r, 201, "token request");
    const b = r.body;
    expect([b.kind, b.apiVersion]).toEqual(["TokenRequest", "authentication.k8s.io/v1"]);
    expect(b.spec).toEqual({ audiences: [ISSUER], expirationSeconds: 3600 });
    const expires = Date.parse(b.status.expirationTimestamp) / 1000;
    expect(expires).toBeGreaterThanOrEqual(before + 3600);
    expect(expires).toBeLessThanOrEqual(now() + 3600);
    const c = decodeJwt(b.status.token);
    expect(c).toMatchObject({
      iss: ISSUER, aud: [ISSUER], sub: `system:serviceaccount:${NS}:robot`,
      "kubernetes.io": { namespace: NS, serviceaccount: { name: "robot", uid: robot.metadata.uid } },
    });
    expect([c.exp! - c.iat!, c.nbf]).toEqual([3600, c.iat]);
    expect(decodeProtectedHeader(b.status.token).alg).toBe("RS256");
    expect(await listPods(s, b.status.token)).toBe(200);
  });

  test("expirationSeconds: under 10 minutes is refused, above --service-account-max-token-expiration is capped", async () => {
    const short = await tokenRequest(s, NS, "robot", { expirationSeconds: 10 });
    expect(expectStatus(short, 422, "Invalid", "10 s").message).toBe(
      `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes`,
    );
    const long = await tokenRequest(s, NS, "robot", { expirationSeconds: 86400, audiences: [ISSUER, "vault"] });
    expectCode(long, 201, "a day");
    expect(long.body.spec).toEqual({ audiences: [ISSUER, "vault"], expirationSeconds: 7200 });
    const c = decodeJwt(long.body.status.token);
    expect(c.exp! - c.iat!).toBe(7200);
  });

  test("what a TokenRequest cannot be for: a missing account, another kind, a pod of another account, a stale uid", async () => {
    expect(expectStatus(await tokenRequest(s, NS, "nobody"), 404, "NotFound", "missing sa").message).toBe(`serviceaccounts "nobody" not found`);
    const cm = await tokenRequest(s, NS, "robot", { boundObjectRef: { kind: "ConfigMap", apiVersion: "v1", name: "x" } });
    expect(expectStatus(cm, 400, "BadRequest", "configmap").message).toBe("cannot bind token to object of type /v1, Kind=ConfigMap");
    await serviceAccount(s, NS, "other");
    expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/pods`, { metadata: { name: "other-pod" }, spec: { serviceAccountName: "other", containers: [{ name: "c", image: "busybox" }] } }), 201, "pod");
    const foreign = await tokenRequest(s, NS, "robot", { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "other-pod" } });
    expect(expectStatus(foreign, 400, "BadRequest", "other account's pod").message).toBe(`cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.`);
    const stale = await tokenRequest(s, NS, "other", { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "other-pod", uid: "00000000-0000-0000-0000-000000000000" } });
    expect(expectStatus(stale, 409, "Conflict", "stale uid").message).toBe(
      `Operation cannot be fulfilled on Pod "other-pod": the UID in the bound object reference (00000000-0000-0000-0000-000000000000) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  });

  test("a token for another audience, signed by an unknown key, or expired is 401", async () => {
    const good = await token(s, NS, "robot");
    const claims = decodeJwt(good);
    expectUnauthorized(await s.call("GET", `/api/v1/namespaces/${NS}/pods`, undefined, bearer(await token(s, NS, "robot", { audiences: ["vault"] }))), "audience vault");
    expectUnauthorized(await s.call("GET", "/version", undefined, bearer(await forge(stranger.privateKey, "RS256", claims))), "unknown key");
    const [head, body] = good.split(".");
    expect(await listPods(s, `${head}.${body}.${"A".repeat(342)}`)).toBe(401);
    // upstream allows a minute of clock skew
    expect(await listPods(s, await forge(rsa.privateKey, "RS256", { ...claims, exp: now() - 120 }))).toBe(401);
    expect(await listPods(s, await forge(rsa.privateKey, "RS256", { ...claims, exp: now() - 20 }))).toBe(200);
    expect(await listPods(s, await forge(rsa.privateKey, "RS256", { ...claims, nbf: now() + 600, iat: now() + 600 }))).toBe(401);
  });

  test("every --service-account-issuer is accepted, and every --service-account-key-file verifies (ECDSA too)", async () => {
    const claims = decodeJwt(await token(s, NS, "robot"));
    expect(await listPods(s, await forge(rsa.privateKey, "RS256", { ...claims, iss: OLD_ISSUER }))).toBe(200);
    expect(await listPods(s, await forge(ec.privateKey, "ES256", claims))).toBe(200);
    expect(await listPods(s, await forge(ec.privateKey, "ES256", { ...claims, aud: ["elsewhere"] }))).toBe(401);
  });

  test("a token of a deleted ServiceAccount is refused, and so is it after one of the same name is created", async () => {
    await serviceAccount(s, NS, "ephemeral");
    const t = await token(s, NS, "ephemeral");
    expect(await listPods(s, t)).toBe(200);
    expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/ephemeral`), 200, "delete sa");
    await refused(s, t);
    expectUnauthorized(await s.call("GET", `/api/v1/namespaces/${NS}/pods`, undefined, bearer(t)), "deleted sa");
    await serviceAccount(s, NS, "ephemeral");
    expect(await listPods(s, t)).toBe(401);
    expect(await listPods(s, await token(s, NS, "ephemeral"))).toBe(200);
  });

  test("a pod-bound token names the pod and works only while the pod exists; 3607 s is extended to a year", async () => {
    const pod = await s.call("POST", `/api/v1/namespaces/${NS}/pods`, { metadata: { name: "runner" }, spec: { serviceAccountName: "robot", containers: [{ name: "c", image: "busybox" }] } });
    expectCode(pod, 201, "pod");
    const r = await tokenRequest(s, NS, "robot", { expirationSeconds: 3607, boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "runner", uid: pod.body.metadata.uid } });
    expectCode(r, 201, "pod-bound token");
    const t = r.body.status.token;
    const c = decodeJwt(t) as any;
    expect(c["kubernetes.io"]).toMatchObject({ pod: { name: "runner", uid: pod.body.metadata.uid }, warnafter: c.iat + 3607 });
    expect(c.exp - c.iat).toBe(365 * 24 * 3600);
    expect(Date.parse(r.body.status.expirationTimestamp) / 1000).toBeLessThanOrEqual(now() + 3607);
    expect(await listPods(s, t)).toBe(200);
    expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/pods/runner?gracePeriodSeconds=0`), 200, "delete pod");
    await refused(s, t);
  });

  test("a legacy token Secret is filled in, authenticates while it exists, and goes with its ServiceAccount", async () => {
    const sa = await serviceAccount(s, NS, "legacy");
    const secret = (name: string) => ({ type: "kubernetes.io/service-account-token", metadata: { name, annotations: { "kubernetes.io/service-account.name": "legacy" } } });
    expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/secrets`, secret("legacy-token")), 201, "secret");
    const filled = await until(async () => {
      const r = await s.call("GET", `/api/v1/namespaces/${NS}/secrets/legacy-token`);
      return r.body.data?.token ? r.body : null;
    }, "the token filled in");
    const text = (k: string) => Buffer.from(filled.data[k], "base64").toString();
    expect([text("ca.crt"), text("namespace")]).toEqual([s.ca, NS]);
    expect(filled.metadata.annotations["kubernetes.io/service-account.uid"]).toBe(sa.metadata.uid);
    const t = text("token");
    expect(decodeJwt(t)).toEqual({
      iss: "kubernetes/serviceaccount",
      "kubernetes.io/serviceaccount/namespace": NS,
      "kubernetes.io/serviceaccount/secret.name": "legacy-token",
      "kubernetes.io/serviceaccount/service-account.name": "legacy",
      "kubernetes.io/serviceaccount/service-account.uid": sa.metadata.uid,
      sub: `system:serviceaccount:${NS}:legacy`,
    });
    expect(await listPods(s, t)).toBe(200);
    expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/secrets/legacy-token`), 200, "delete secret");
    await refused(s, t);

    expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/secrets`, secret("legacy-token-2")), 201, "second secret");
    await until(async () => !!(await s.call("GET", `/api/v1/namespaces/${NS}/secrets/legacy-token-2`)).body.data?.token, "second token");
    expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/legacy`), 200, "delete sa");
    await until(async () => (await s.call("GET", `/api/v1/namespaces/${NS}/secrets/legacy-token-2`)).status === 404, "the Secret deleted with its ServiceAccount");
  });

  test("the issuer discovery document and key set; the key set verifies an issued token", async () => {
    const doc = await s.call("GET", "/.well-known/openid-configuration");
    expectCode(doc, 200, "openid-configuration");
    expect([doc.headers.get("content-type"), doc.headers.get("cache-control")]).toEqual(["application/json", "public, max-age=3600"]);
    expect(doc.body).toEqual({
      issuer: ISSUER, jwks_uri: JWKS_URI, response_types_supported: ["id_token"], subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256", "RS256"],
    });
    const jwks = await s.call("GET", "/openid/v1/jwks");
    expectCode(jwks, 200, "jwks");
    expect([jwks.headers.get("content-type"), jwks.headers.get("cache-control")]).toEqual(["application/jwk-set+json", "public, max-age=3600"]);
    expect(jwks.body.keys.map((k: any) => [k.kty, k.alg, k.use])).toEqual([["EC", "ES256", "sig"], ["RSA", "RS256", "sig"]]);
    expect(jwks.body.keys[0]).toMatchObject(ec.publicKey.export({ format: "jwk" }));
    const t = await token(s, NS, "robot");
    const rsaKey = jwks.body.keys[1];
    expect(decodeProtectedHeader(t).kid).toBe(rsaKey.kid);
    const { payload } = await jwtVerify(t, createLocalJWKSet(jwks.body), { issuer: ISSUER, audience: ISSUER });
    expect(payload.sub).toBe(`system:serviceaccount:${NS}:robot`);
    await expect(jwtVerify(await forge(stranger.privateKey, "RS256", decodeJwt(t)), createLocalJWKSet(jwks.body))).rejects.toThrow();
  });

  test("the Python and JS clients list with a token, and are refused with a deleted account's", async () => {
    await serviceAccount(s, NS, "client");
    const good = await token(s, NS, "client");
    const bad = await token(s, NS, "ephemeral");
    expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/ephemeral`), 200, "delete sa");
    await refused(s, bad);
    const run = async (cmd: string[], env: Record<string, string> = {}) => {
      const p = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
      const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      try { return JSON.parse(out); } catch { throw new Error(`${cmd.join(" ")}: ${out} ${err}`); }
    };
    const caFile = join(s.dataDir, "pki", "ca.crt");
    const py = (t: string) => run(["/usr/bin/python3", join(ROOT, "test/e2e/clients/token-pods.py"), s.url, caFile, t, NS]);
    const js = (t: string) => run([process.execPath, join(ROOT, "test/e2e/clients/token-pods.ts"), s.url, t, NS], { NODE_EXTRA_CA_CERTS: caFile });
    const items = (await s.call("GET", `/api/v1/namespaces/${NS}/pods`)).body.items.length;
    expect(await py(good)).toEqual({ items });
    expect(await py(bad)).toEqual({ status: 401 });
    expect(await js(good)).toEqual({ items });
    expect(await js(bad)).toEqual({ status: 401 });
  });
});

const SDK_BIN = "/usr/lib/google-cloud-sdk/bin";
/** The kubectl builds with `create token` (1.24+) on this machine. */
const BUILDS = existsSync(SDK_BIN)
  ? readdirSync(SDK_BIN).filter((f) => /^kubectl\.1\.\d+$/.test(f) && Number(f.split(".")[2]) >= 24).sort((a, b) => Number(a.split(".")[2]) - Number(b.split(".")[2]))
  : [];

describe.skipIf(BUILDS.length === 0)("kubectl create token", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    await createNamespace(s, NS);
  }, 30_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  async function kubectl(bin: string, args: string[]) {
    const p = Bun.spawn([join(SDK_BIN, bin), `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { out, err, code };
  }

  test.each(BUILDS)("%s: create token, then use it with --token", async (bin) => {
    const sa = bin.replace(".", "-").replace(".", "-");
    await serviceAccount(s, NS, sa);
    const created = await kubectl(bin, ["create", "token", sa, "-n", NS, "--duration=20m"]);
    expect(created).toMatchObject({ code: 0, err: "" });
    const t = created.out.trim();
    const c = decodeJwt(t);
    expect([c.sub, c.exp! - c.iat!]).toEqual([`system:serviceaccount:${NS}:${sa}`, 1200]);
    const listed = await kubectl(bin, [`--token=${t}`, "get", "serviceaccounts", "-n", NS, "-o", "name"]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`serviceaccount/${sa}\n`);
    expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/${sa}`), 200, "delete sa");
    await refused(s, t);
    const after = await kubectl(bin, [`--token=${t}`, "get", "pods", "-n", NS]);
    expect(after.code).not.toBe(0);
    expect(after.err).toContain("Unauthorized");
  });
});

describe("the defaults: a generated signing key, kept across restarts; the caller named in a 403", () => {
  const dir = tempDir("kite-sa-defaults-");
  let s: TestServer;
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("with no key flags a server signs ES256 with a generated P-256 key in CERT-DIR/sa.key; restarted with AlwaysDeny, its token's user is named", async () => {
    s = await startServer([], dir);
    await serviceAccount(s, "default", "robot");
    const t = await token(s, "default", "robot");
    const key = join(dir, "pki", "sa.key");
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, "utf8")).toStartWith("-----BEGIN EC PRIVATE KEY-----");
    const doc = await s.call("GET", "/.well-known/openid-configuration");
    expect(doc.body).toMatchObject({ issuer: "https://kubernetes.default.svc.cluster.local", jwks_uri: `https://127.0.0.1:${s.port}/openid/v1/jwks`, id_token_signing_alg_values_supported: ["ES256"] });
    const header = decodeProtectedHeader(t);
    expect(header.alg).toBe("ES256");
    const jwks = (await s.call("GET", "/openid/v1/jwks")).body;
    expect(jwks.keys.map((k: any) => [k.kty, k.crv, k.alg, k.kid])).toEqual([["EC", "P-256", "ES256", header.kid]]);
    expect((await jwtVerify(t, createLocalJWKSet(jwks))).payload.sub).toBe("system:serviceaccount:default:robot");
    expect(decodeJwt(t).aud).toEqual(["https://kubernetes.default.svc.cluster.local"]);
    await s.stop();

    s = await startServer(["--authorization-mode=AlwaysDeny"], dir);
    const denied = await s.call("GET", "/api/v1/namespaces/default/pods", undefined, bearer(t));
    expect(expectStatus(denied, 403, "Forbidden", "as the service account").message).toBe(
      `pods is forbidden: User "system:serviceaccount:default:robot" cannot list resource "pods" in API group "" in the namespace "default"`,
    );
    const anonymous = await s.call("GET", "/api/v1/namespaces/default/pods");
    expect(anonymous.body.message).toContain(`User "system:anonymous"`);
    expectUnauthorized(await s.call("GET", "/api/v1/namespaces/default/pods", undefined, bearer(await forge(stranger.privateKey, "RS256", decodeJwt(t)))), "unknown key");
  });

  test("an issuer that is not an https URL issues tokens but serves no discovery document", async () => {
    const other = await startServer(["--service-account-issuer=kite-issuer"]);
    try {
      await serviceAccount(other, "default", "robot");
      const t = await token(other, "default", "robot");
      expect(decodeJwt(t)).toMatchObject({ iss: "kite-issuer", aud: ["kite-issuer"] });
      expect(await listPods(other, t, "default")).toBe(200);
      expect((await other.call("GET", "/.well-known/openid-configuration")).status).toBe(404);
      expect((await other.call("GET", "/openid/v1/jwks")).status).toBe(404);
    } finally {
      await other.stop();
    }
  });
});

describe("flags a server refuses at start", () => {
  test.each([
    [["--service-account-key-file=/nonexistent/sa.pub"], "Error: service account keys: open /nonexistent/sa.pub: no such file or directory"],
    [[`--service-account-signing-key-file=${join(keys, "ec.pub")}`], `Error: service account keys: failed to parse service-account signing key file ${join(keys, "ec.pub")}: it holds no RSA or ECDSA (P-256, P-384, P-521) private key`],
    [["--service-account-max-token-expiration=5m"], "Error: the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"],
  ])("%p", async (flags, line) => {
    await expect(startServer(flags)).rejects.toThrow(line);
  });
});
