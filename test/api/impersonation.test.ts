// Issue 14 items 1, 5, 7: impersonation headers. With AlwaysAllow the request proceeds as the impersonated
// user; with AlwaysDeny the impersonation is refused in upstream's words, naming what was asked and the real
// caller; a member of system:masters may impersonate, and the request is then judged as the impersonated
// user and groups (test/unit/impersonate.test.ts: groups, uids, extras, and the user the request acts as).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { kubectl, startServer, type TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus } from "./fixtures.ts";

const PODS = "/api/v1/namespaces/default/pods";

function tokenFile(): string {
  const f = join(tempDir("kite-imp-"), "tokens.csv");
  writeFileSync(f, "tok-alice,alice,uid-alice\n");
  return f;
}
const as = (h: Record<string, string>) => ({ Authorization: "Bearer tok-alice", ...h });

describe("impersonation with AlwaysDeny", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer([`--token-auth-file=${tokenFile()}`, "--authorization-mode=AlwaysDeny"]); }, 30_000);
  afterAll(async () => { await s?.stop(); });

  const cases: [string, Record<string, string>, string][] = [
    ["a user", { "Impersonate-User": "bob" }, `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`],
    ["a service account", { "Impersonate-User": "system:serviceaccount:ns1:robot" }, `serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"`],
    // the user is asked about first: its refusal is the answer whatever else is asked
    ["a user with groups, uid, extra", { "Impersonate-User": "bob", "Impersonate-Group": "admins", "Impersonate-Uid": "1", "Impersonate-Extra-Scopes": "view" }, `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`],
  ];
  for (const [what, h, message] of cases) {
    test(`impersonating ${what} is refused with upstream's 403`, async () => {
      const r = await s.call("GET", PODS, undefined, as(h));
      expect(expectStatus(r, 403, "Forbidden", what).message).toBe(message);
    });
  }

  test("the anonymous caller is named when it asks", async () => {
    const r = await s.call("GET", PODS, undefined, { "Impersonate-User": "bob" });
    expect(expectStatus(r, 403, "Forbidden", "anonymous").message).toContain(`User "system:anonymous" cannot impersonate resource "users"`);
  });
});

describe("impersonation with AlwaysAllow", () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer([`--token-auth-file=${tokenFile()}`]); }, 30_000);
  afterAll(async () => { await s?.stop(); });

  test("an allowed impersonation proceeds: the request is served", async () => {
    expectCode(await s.call("GET", PODS, undefined, as({ "Impersonate-User": "bob", "Impersonate-Group": "admins", "Impersonate-Uid": "u-9", "Impersonate-Extra-Scopes": "view" })), 200, "as bob");
    expectCode(await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "by-robot" } }, as({ "Impersonate-User": "system:serviceaccount:default:robot" })), 201, "as a service account");
  });

  test("groups, a uid or extras without a user are refused", async () => {
    const asks: Record<string, string>[] = [{ "Impersonate-Group": "admins" }, { "Impersonate-Uid": "u-9" }, { "Impersonate-Extra-Scopes": "view" }];
    for (const h of asks) {
      const r = await s.call("GET", PODS, undefined, as(h));
      expect(expectStatus(r, 400, "BadRequest", JSON.stringify(h)).message).toContain("without impersonating a user");
    }
  });
});

describe("impersonation by a member of system:masters, everything else denied", () => {
  let s: TestServer;
  beforeAll(async () => {
    const f = join(tempDir("kite-imp-"), "tokens.csv");
    writeFileSync(f, 'tok-root,root,uid-root,system:masters\ntok-alice,alice,uid-alice\n');
    s = await startServer([`--token-auth-file=${f}`, "--authorization-mode=AlwaysDeny"]);
  }, 30_000);
  afterAll(async () => { await s?.stop(); });
  const root = (h: Record<string, string>) => ({ Authorization: "Bearer tok-root", ...h });

  test("the request proceeds as the impersonated user: its refusal names that user", async () => {
    const r = await s.call("GET", PODS, undefined, root({ "Impersonate-User": "bob" }));
    expect(expectStatus(r, 403, "Forbidden", "as bob").message).toBe(`pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`);
    const sa = await s.call("GET", PODS, undefined, root({ "Impersonate-User": "system:serviceaccount:ns1:robot" }));
    expect(expectStatus(sa, 403, "Forbidden", "as a service account").message).toContain(`User "system:serviceaccount:ns1:robot" cannot list`);
  });

  test("impersonated groups count: as bob in system:masters the request is allowed", async () => {
    expectCode(await s.call("GET", PODS, undefined, root({ "Impersonate-User": "bob", "Impersonate-Group": "system:masters" })), 200, "as bob in system:masters");
  });

  test("alice, not in system:masters, may not impersonate", async () => {
    const r = await s.call("GET", PODS, undefined, { Authorization: "Bearer tok-alice", "Impersonate-User": "bob", "Impersonate-Group": "system:masters" });
    expect(expectStatus(r, 403, "Forbidden", "alice").message).toBe(`users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`);
  });

  test("stock kubectl --as and --as-group", async () => {
    const no = await kubectl(s, ["--token=tok-root", "--as=bob", "get", "--raw", "/api/v1/namespaces/default/pods"]);
    expect(no.err.trim()).toBe(`Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`);
    const yes = await kubectl(s, ["--token=tok-root", "--as=bob", "--as-group=system:masters", "get", "namespace", "default", "-o", "name"]);
    expect({ code: yes.code, out: yes.out, err: yes.err }).toEqual({ code: 0, out: "namespace/default\n", err: "" });
  });
});
