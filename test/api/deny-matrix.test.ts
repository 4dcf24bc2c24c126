// Named outside test/run.ts's auth-* pattern on purpose: it runs on both storage backends.
// Issue 14 item 7: the deny matrix. One server with every authenticator (client certificates, a static
// token file, service-account tokens, bootstrap tokens, OIDC against a real issuer on loopback, a token
// webhook on loopback, front-proxy headers, anonymous) and RBAC. For each authenticator a user bound to a
// Role is allowed, a user without a grant gets upstream's 403, and a bad credential of its kind is 401 —
// for get, list, watch, create, patch, delete, a subresource (pods/status) and a non-resource URL
// (/metrics). The rows run as parallel requests. Among the bad credentials: an expired certificate, a
// service-account token re-signed by another key, one for another audience, the replayed token of a
// deleted ServiceAccount (lookup on, the default), and front-proxy headers from a client the server does
// not trust as a proxy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignJWT, decodeJwt } from "jose";
import { type Issued, issueClient, makeCA } from "../helpers/certs.ts";
import { CLIENT_ID, TestIssuer } from "../helpers/oidc-issuer.ts";
import { tempDir } from "../helpers/processes.ts";
import { TEST_TOKEN, startServer, type TestServer } from "../helpers/server.ts";
import { TokenWebhook } from "../helpers/token-webhook.ts";
import { expectCode, type Reply, until } from "./fixtures.ts";
import { RBAC, bindingBody, roleRef, subject } from "./rbac-fixtures.ts";

const NS = "matrix";
/** Where the anonymous "denied" row asks: nothing there is granted to anyone but the admin. */
const CLOSED_NS = "matrix-closed";
const DAY = 24 * 3600_000;
const ADMIN = { Authorization: `Bearer ${TEST_TOKEN}` };
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

const clientCA = makeCA("matrix-client-ca");
const proxyCA = makeCA("matrix-front-proxy-ca");
const certs = {
  allowed: issueClient(clientCA, "x509-allowed", { orgs: ["matrix"] }),
  denied: issueClient(clientCA, "x509-denied"),
  expired: issueClient(clientCA, "x509-allowed", { notBefore: new Date(Date.now() - 10 * DAY), notAfter: new Date(Date.now() - DAY) }),
  proxy: issueClient(proxyCA, "front-proxy"),
  notTheProxy: issueClient(proxyCA, "not-the-proxy"),
};
const hook = new TokenWebhook({ "hook-allowed": "webhook-allowed", "hook-denied": "webhook-denied" });

type Outcome = "allowed" | "denied" | "unauthenticated";
interface Row {
  authenticator: string;
  what: string;
  outcome: Outcome;
  /** The user a denial names. */
  user?: string;
  headers?: () => Record<string, string>;
  cert?: Issued;
  ns?: string;
  url?: string;
}

/** Credentials made in beforeAll (tokens from the running server and issuer). */
const made: Record<string, string> = {};
const token = (key: string) => () => bearer(made[key]);

const ROWS: Row[] = [
  { authenticator: "x509", what: "a certificate bound to the Role", outcome: "allowed", cert: certs.allowed },
  { authenticator: "x509", what: "a certificate without a grant", outcome: "denied", user: "x509-denied", cert: certs.denied },
  { authenticator: "x509", what: "an expired certificate", outcome: "unauthenticated", cert: certs.expired },
  { authenticator: "token file", what: "a token bound to the Role", outcome: "allowed", headers: () => bearer("tok-allowed") },
  { authenticator: "token file", what: "a token without a grant", outcome: "denied", user: "token-denied", headers: () => bearer("tok-denied") },
  { authenticator: "token file", what: "a token not in the file", outcome: "unauthenticated", headers: () => bearer("tok-unknown") },
  { authenticator: "service account", what: "a TokenRequest token bound to the Role", outcome: "allowed", headers: token("sa-allowed") },
  { authenticator: "service account", what: "a TokenRequest token without a grant", outcome: "denied", user: `system:serviceaccount:${NS}:sa-denied`, headers: token("sa-denied") },
  { authenticator: "service account", what: "a token re-signed by another key", outcome: "unauthenticated", headers: token("sa-other-key") },
  { authenticator: "service account", what: "a token for another audience", outcome: "unauthenticated", headers: token("sa-other-audience") },
  { authenticator: "service account", what: "the replayed token of a deleted ServiceAccount", outcome: "unauthenticated", headers: token("sa-gone") },
  { authenticator: "bootstrap token", what: "a bootstrap token bound to the Role", outcome: "allowed", headers: () => bearer("allowd.0123456789abcdef") },
  { authenticator: "bootstrap token", what: "a bootstrap token without a grant", outcome: "denied", user: "system:bootstrap:denied", headers: () => bearer("denied.0123456789abcdef") },
  { authenticator: "bootstrap token", what: "a bootstrap token with a wrong secret", outcome: "unauthenticated", headers: () => bearer("allowd.0123456789abcdee") },
  { authenticator: "OIDC", what: "an ID token bound to the Role", outcome: "allowed", headers: token("oidc-allowed") },
  { authenticator: "OIDC", what: "an ID token without a grant", outcome: "denied", user: "oidc:denied", headers: token("oidc-denied") },
  { authenticator: "OIDC", what: "an ID token signed by a key the issuer does not publish", outcome: "unauthenticated", headers: token("oidc-other-key") },
  { authenticator: "OIDC", what: "an ID token for another client", outcome: "unauthenticated", headers: token("oidc-other-audience") },
  { authenticator: "token webhook", what: "a token the webhook vouches for, bound to the Role", outcome: "allowed", headers: () => bearer("hook-allowed") },
  { authenticator: "token webhook", what: "a token the webhook vouches for, without a grant", outcome: "denied", user: "webhook-denied", headers: () => bearer("hook-denied") },
  { authenticator: "token webhook", what: "a token the webhook refuses", outcome: "unauthenticated", headers: () => bearer("hook-unknown") },
  { authenticator: "front proxy", what: "X-Remote-User bound to the Role, from the proxy", outcome: "allowed", cert: certs.proxy, headers: () => ({ "X-Remote-User": "proxy-allowed" }) },
  { authenticator: "front proxy", what: "X-Remote-User without a grant, from the proxy", outcome: "denied", user: "proxy-denied", cert: certs.proxy, headers: () => ({ "X-Remote-User": "proxy-denied" }) },
  { authenticator: "front proxy", what: "X-Remote-User from a proxy-CA certificate whose name is not allowed", outcome: "unauthenticated", cert: certs.notTheProxy, headers: () => ({ "X-Remote-User": "proxy-allowed" }) },
  { authenticator: "front proxy", what: "X-Remote-User forged by a client-CA user: it stays itself", outcome: "denied", user: "x509-denied", cert: certs.denied, headers: () => ({ "X-Remote-User": "proxy-allowed", "X-Remote-Group": "system:masters" }) },
  { authenticator: "anonymous", what: "no credentials where system:anonymous is bound", outcome: "allowed" },
  { authenticator: "anonymous", what: "no credentials elsewhere", outcome: "denied", user: "system:anonymous", ns: CLOSED_NS, url: "/openapi/v2" },
];
const rowId = (i: number) => `row-${i}`;

interface Op {
  verb: string;
  method: string;
  path: (ns: string, id: string, url: string) => string;
  body?: (id: string) => unknown;
  type?: string;
  ok: number;
  /** Upstream's 403 message for `user`. */
  forbidden: (user: string, ns: string, id: string, url: string) => string;
}

const CM = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const inNs = (user: string, verb: string, resource: string, ns: string) => `User "${user}" cannot ${verb} resource "${resource}" in API group "" in the namespace "${ns}"`;
const OPS: Op[] = [
  { verb: "get", method: "GET", path: (ns) => `${CM(ns)}/seed`, ok: 200, forbidden: (u, ns) => `configmaps "seed" is forbidden: ${inNs(u, "get", "configmaps", ns)}` },
  { verb: "list", method: "GET", path: (ns) => CM(ns), ok: 200, forbidden: (u, ns) => `configmaps is forbidden: ${inNs(u, "list", "configmaps", ns)}` },
  { verb: "watch", method: "GET", path: (ns) => `${CM(ns)}?watch=1&timeoutSeconds=5`, ok: 200, forbidden: (u, ns) => `configmaps is forbidden: ${inNs(u, "watch", "configmaps", ns)}` },
  { verb: "create", method: "POST", path: (ns) => CM(ns), body: (id) => ({ metadata: { name: `c-${id}` } }), ok: 201, forbidden: (u, ns) => `configmaps is forbidden: ${inNs(u, "create", "configmaps", ns)}` },
  {
    verb: "patch", method: "PATCH", path: (ns, id) => `${CM(ns)}/p-${id}`, body: () => ({ data: { patched: "yes" } }), type: "application/merge-patch+json", ok: 200,
    forbidden: (u, ns, id) => `configmaps "p-${id}" is forbidden: ${inNs(u, "patch", "configmaps", ns)}`,
  },
  { verb: "delete", method: "DELETE", path: (ns, id) => `${CM(ns)}/d-${id}`, ok: 200, forbidden: (u, ns, id) => `configmaps "d-${id}" is forbidden: ${inNs(u, "delete", "configmaps", ns)}` },
  { verb: "get pods/status", method: "GET", path: (ns) => `/api/v1/namespaces/${ns}/pods/seed/status`, ok: 200, forbidden: (u, ns) => `pods "seed" is forbidden: ${inNs(u, "get", "pods/status", ns)}` },
  { verb: "get a non-resource URL", method: "GET", path: (_ns, _id, url) => url, ok: 200, forbidden: (u, _ns, _id, url) => `forbidden: User "${u}" cannot get path "${url}"` },
];

let s: TestServer;
let issuer: TestIssuer;

/** A request as a row's caller: its certificate on the connection, its headers. */
async function send(row: Row, method: string, path: string, body?: unknown, type = "application/json"): Promise<Reply> {
  const tls = { ca: s.ca, ...(row.cert ? { cert: row.cert.cert, key: row.cert.key } : {}) };
  const headers = { ...(row.headers?.() ?? {}), ...(body === undefined ? {} : { "content-type": type }) };
  const r = await fetch(`${s.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), tls } as RequestInit);
  // a granted watch streams until its timeout: its status is the answer
  if (r.status === 200 && path.includes("watch=1")) {
    await r.body?.cancel();
    return { status: r.status, body: undefined, headers: r.headers };
  }
  const text = await r.text();
  let parsed: any = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body: parsed, headers: r.headers };
}

const admin = (method: string, path: string, body?: unknown) => s.call(method, path, body, ADMIN);

function tokenFile(): string {
  const f = join(tempDir("kite-matrix-tokens-"), "tokens.csv");
  writeFileSync(f, `${TEST_TOKEN},kite-test,kite-test,system:masters\ntok-allowed,token-allowed,u-1\ntok-denied,token-denied,u-2\n`);
  return f;
}

const b64 = (v: string) => Buffer.from(v).toString("base64");
const bootstrapSecret = (id: string) => ({
  metadata: { name: `bootstrap-token-${id}`, namespace: "kube-system" }, type: "bootstrap.kubernetes.io/token",
  data: { "token-id": b64(id), "token-secret": b64("0123456789abcdef"), "usage-bootstrap-authentication": b64("true") },
});

async function serviceAccountToken(name: string, audiences?: string[]): Promise<string> {
  const r = await admin("POST", `/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`, { spec: audiences ? { audiences } : {} });
  expectCode(r, 201, `token for ${name}`);
  return r.body.status.token;
}

/** What a 401 looks like to the rows, for the first request that is not one. */
const accepted = async (row: Row) => (await send(row, "GET", "/version")).status !== 401;

beforeAll(async () => {
  issuer = await TestIssuer.create();
  issuer.listen();
  s = await startServer([
    "--authorization-mode=RBAC",
    `--client-ca-file=${clientCA.certFile}`,
    `--token-auth-file=${tokenFile()}`,
    "--enable-bootstrap-token-auth",
    `--oidc-issuer-url=${issuer.url}`, `--oidc-client-id=${CLIENT_ID}`, `--oidc-ca-file=${issuer.caFile}`, "--oidc-username-prefix=oidc:",
    `--authentication-token-webhook-config-file=${hook.kubeconfig()}`,
    `--requestheader-client-ca-file=${proxyCA.certFile}`, "--requestheader-allowed-names=front-proxy", "--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
  ]);
  for (const n of [NS, CLOSED_NS]) expectCode(await admin("POST", "/api/v1/namespaces", { metadata: { name: n } }), 201, `namespace ${n}`);
  const allowedSubjects = [
    subject("User", "x509-allowed"), subject("User", "token-allowed"), subject("ServiceAccount", "sa-allowed", NS), subject("User", "system:bootstrap:allowd"),
    subject("User", "oidc:allowed"), subject("User", "webhook-allowed"), subject("User", "proxy-allowed"), subject("User", "system:anonymous"),
  ];
  const writes: [string, unknown][] = [
    [`${RBAC}/namespaces/${NS}/roles`, { metadata: { name: "matrix" }, rules: [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch", "create", "patch", "delete"] },
      { apiGroups: [""], resources: ["pods/status"], verbs: ["get"] },
    ] }],
    [`${RBAC}/namespaces/${NS}/rolebindings`, bindingBody("matrix", roleRef("Role", "matrix"), allowedSubjects)],
    [`${RBAC}/clusterroles`, { metadata: { name: "matrix-metrics" }, rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }] }],
    [`${RBAC}/clusterrolebindings`, bindingBody("matrix-metrics", roleRef("ClusterRole", "matrix-metrics"), allowedSubjects)],
    [CM(NS), { metadata: { name: "seed" } }],
    [`/api/v1/namespaces/${NS}/pods`, { metadata: { name: "seed" }, spec: { containers: [{ name: "c", image: "busybox" }] } }],
    ...["sa-allowed", "sa-denied", "sa-gone"].map((n): [string, unknown] => [`/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: n } }]),
    ...["allowd", "denied"].map((id): [string, unknown] => ["/api/v1/namespaces/kube-system/secrets", bootstrapSecret(id)]),
    ...ROWS.flatMap((_, i): [string, unknown][] => [[CM(NS), { metadata: { name: `p-${rowId(i)}` } }], [CM(NS), { metadata: { name: `d-${rowId(i)}` } }]]),
  ];
  await Promise.all(writes.map(async ([path, body]) => expectCode(await admin("POST", path, body), 201, `seed ${path}`)));

  const credentials: Record<string, () => Promise<string>> = {
    "sa-allowed": () => serviceAccountToken("sa-allowed"),
    "sa-denied": () => serviceAccountToken("sa-denied"),
    "sa-other-audience": () => serviceAccountToken("sa-allowed", ["vault"]),
    "sa-gone": () => serviceAccountToken("sa-gone"),
    "oidc-allowed": () => issuer.token({ sub: "allowed" }),
    "oidc-denied": () => issuer.token({ sub: "denied" }),
    "oidc-other-key": async () => issuer.token({ sub: "allowed" }, await issuer.newKey()),
    "oidc-other-audience": () => issuer.token({ sub: "allowed", aud: "someone-else" }),
  };
  await Promise.all(Object.entries(credentials).map(async ([k, make]) => { made[k] = await make(); }));
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  made["sa-other-key"] = await new SignJWT(decodeJwt(made["sa-allowed"])).setProtectedHeader({ alg: "RS256" }).sign(stranger);

  // The deleted account's token worked before the deletion, and is refused once the server has seen it.
  const gone = ROWS.find((r) => r.what.includes("deleted ServiceAccount"))!;
  expect(await accepted(gone)).toBe(true);
  expectCode(await admin("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/sa-gone`), 200, "delete sa-gone");
  await until(async () => !(await accepted(gone)), "the deleted ServiceAccount's token refused");
  // Bootstrap Secrets and the OIDC issuer's keys are read in the background.
  await Promise.all(ROWS.filter((r) => r.outcome !== "unauthenticated").map((row) => until(() => accepted(row), `${row.authenticator}: ${row.what} accepted`, 15_000)));
}, 60_000);

afterAll(async () => {
  await s?.stop();
  issuer?.stop();
  hook.server.stop(true);
}, 30_000);

describe("every authenticator × {allowed, denied, unauthenticated} × every kind of request, under RBAC", () => {
  test("each request gets the row's answer: success, upstream's 403, or 401", async () => {
    const cells = ROWS.flatMap((row, i) => OPS.map((op) => ({ row, op, id: rowId(i) })));
    const failures = (await Promise.all(cells.map(async ({ row, op, id }) => {
      const ns = row.ns ?? NS;
      const url = row.url ?? "/metrics";
      const label = `${row.authenticator}, ${row.what}: ${op.verb}`;
      const r = await send(row, op.method, op.path(ns, id, url), op.body?.(id), op.type);
      const want = row.outcome === "allowed" ? { status: op.ok }
        : row.outcome === "denied" ? { status: 403, reason: "Forbidden", message: op.forbidden(row.user!, ns, id, url) }
        : { status: 401, reason: "Unauthorized", message: "Unauthorized" };
      const got = row.outcome === "allowed" ? { status: r.status } : { status: r.status, reason: r.body?.reason, message: r.body?.message };
      return JSON.stringify(got) === JSON.stringify(want) ? [] : [`${label}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)} ${r.status !== want.status ? JSON.stringify(r.body).slice(0, 300) : ""}`];
    }))).flat();
    expect(failures).toEqual([]);
    expect(cells.length).toBe(ROWS.length * OPS.length);
  });

  test("what the allowed rows did is there: their creates, patches and deletes", async () => {
    const list = await admin("GET", CM(NS));
    const names = new Set<string>(list.body.items.map((o: any) => o.metadata.name));
    const patched = new Set<string>(list.body.items.filter((o: any) => o.data?.patched === "yes").map((o: any) => o.metadata.name));
    ROWS.forEach((row, i) => {
      const id = rowId(i);
      const did = row.outcome === "allowed";
      expect({ row: row.what, created: names.has(`c-${id}`), patched: patched.has(`p-${id}`), deleted: !names.has(`d-${id}`) })
        .toEqual({ row: row.what, created: did, patched: did, deleted: did });
    });
  });
});
