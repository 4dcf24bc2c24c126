// The serviceaccount and serviceaccount-token controllers in `kite controller-manager`: every namespace
// has its `default` ServiceAccount (alongside the API server, which makes it too); every ServiceAccount
// gets a legacy token Secret, signed with --service-account-private-key-file, that authenticates as the
// ServiceAccount against the API server; a deleted token is replaced, and the tokens go with their
// ServiceAccount. Without a private key the token controller does not run, as upstream.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { KITE, startServer, TEST_TOKEN, type TestServer } from "../helpers/server.ts";

const NS = "robots";
const TOKEN_TYPE = "kubernetes.io/service-account-token";

let s: TestServer;
let manager: TestComponent;
beforeAll(async () => {
  // RBAC, so that a ServiceAccount's requests are judged (and refused) as its own.
  s = await startServer(["--authorization-mode=RBAC"]);
  const pki = join(s.dataDir, "pki");
  manager = await startControllerManager(s, "serviceaccount,serviceaccount-token", [`--service-account-private-key-file=${join(pki, "sa.key")}`, `--root-ca-file=${join(pki, "ca.crt")}`]);
  expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: NS } })).status).toBe(201);
});
afterAll(async () => {
  await manager?.stop();
  await s?.stop();
});

/** A request as the kubeconfig's admin (the server runs RBAC, so anonymous callers may do little). */
const admin = (method: string, path: string, body?: unknown) => s.call(method, path, body, { authorization: `Bearer ${TEST_TOKEN}` });
const get = async (path: string) => { const r = await admin("GET", path); return r.status === 200 ? r.body : undefined; };
const sa = (name: string) => get(`/api/v1/namespaces/${NS}/serviceaccounts/${name}`);
const tokensOf = async (name: string): Promise<any[]> =>
  (await admin("GET", `/api/v1/namespaces/${NS}/secrets?fieldSelector=type=${TOKEN_TYPE}`)).body.items.filter((x: any) => x.metadata.annotations?.["kubernetes.io/service-account.name"] === name);
/** The token Secret the ServiceAccount references, once there is one. */
const referencedToken = (name: string) => until(async () => {
  const account = await sa(name);
  const ref = account?.secrets?.[0]?.name;
  return ref ? get(`/api/v1/namespaces/${NS}/secrets/${ref}`) : undefined;
}, `a token for ${name}`);
const asToken = (token: string, method: string, path: string, body?: unknown) =>
  s.req(path, { method, json: body, headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => undefined)) as any }));

test("every namespace has its default ServiceAccount, made again when deleted", async () => {
  await until(() => sa("default"), "the default ServiceAccount");
  for (let i = 0; i < 2; i++) {
    expect((await admin("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status).toBe(200);
    await until(() => sa("default"), "the default ServiceAccount again");
  }
  await Bun.sleep(300);
  expect(manager.output()).not.toContain("error syncing");
});

test("a ServiceAccount gets a token Secret that authenticates as it", async () => {
  const account = (await admin("POST", `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: "robot" } })).body;
  const secret = await referencedToken("robot");
  expect(secret.type).toBe(TOKEN_TYPE);
  expect(secret.metadata.name).toMatch(/^robot-token-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  expect(secret.metadata.annotations).toMatchObject({ "kubernetes.io/service-account.name": "robot", "kubernetes.io/service-account.uid": account.metadata.uid });
  const data = (k: string) => Buffer.from(secret.data[k], "base64").toString();
  expect(data("namespace")).toBe(NS);
  expect(data("ca.crt")).toBe(readFileSync(join(s.dataDir, "pki", "ca.crt"), "utf8"));
  const token = data("token");

  // The API server takes the token: a request with it is the ServiceAccount's.
  const review = await admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token } });
  expect(review.body.status.authenticated).toBe(true);
  expect(review.body.status.user).toMatchObject({ username: `system:serviceaccount:${NS}:robot`, uid: account.metadata.uid });
  const access = await asToken(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { spec: { resourceAttributes: { verb: "get", resource: "pods", namespace: NS } } });
  expect(access.status).toBe(201);
  const denied = await asToken(token, "GET", `/api/v1/namespaces/${NS}/secrets`);
  expect(denied.status).toBe(403);
  expect(denied.body.message).toContain(`User "system:serviceaccount:${NS}:robot" cannot list resource "secrets"`);

  // A deleted token is replaced, and the reference follows.
  expect((await admin("DELETE", `/api/v1/namespaces/${NS}/secrets/${secret.metadata.name}`)).status).toBe(200);
  const next = await until(async () => {
    const refs = (await sa("robot"))?.secrets ?? [];
    return refs.length === 1 && refs[0].name !== secret.metadata.name ? refs[0].name : undefined;
  }, "a new token referenced instead of the deleted one");
  expect((await tokensOf("robot")).map((x) => x.metadata.name)).toEqual([next]);
  expect((await asToken(token, "GET", "/api")).status).toBe(401);

  // The tokens go with their ServiceAccount.
  expect((await admin("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/robot`)).status).toBe(200);
  await until(async () => ((await tokensOf("robot")).length === 0 ? true : undefined), "the tokens of robot to go");
});

test("without --service-account-private-key-file the token controller does not run", async () => {
  const m = await startControllerManager(s, "serviceaccount-token");
  await until(async () => (m.output().includes("started no controllers") ? true : undefined), "the manager to run no controller");
  expect(m.output()).toContain(`"serviceaccount-token" is disabled because there is no private key`);
  expect(await m.stop()).toBe(0);
});

test("an unreadable --service-account-private-key-file stops the manager with one line", () => {
  const r = Bun.spawnSync([...KITE, "controller-manager", `--kubeconfig=${s.kubeconfig}`, "--service-account-private-key-file=/nonexistent/sa.key"]);
  expect(r.exitCode).toBe(1);
  const lines = r.stderr.toString().trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith("Error: error reading key for service account token controller: ");
});
