// Impersonation (pkg/auth/impersonate.ts): what each header asks the authorizers, the 403 of the first
// refusal, and the user a request then acts as (groups as upstream fills them in).
import { describe, expect, test } from "bun:test";
import { type Attributes, AuthorizerChain } from "../../pkg/auth/authorize.ts";
import { impersonate } from "../../pkg/auth/impersonate.ts";
import type { UserInfo } from "../../pkg/auth/user.ts";

const alice: UserInfo = { name: "alice", groups: ["system:authenticated"] };

/** Allows impersonating these resources; records every question. */
function authorizer(allowed: string[]) {
  const asked: Partial<Attributes>[] = [];
  const chain = new AuthorizerChain([{
    authorize: (a) => {
      asked.push({ verb: a.verb, apiGroup: a.apiGroup, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name });
      return { decision: allowed.includes(a.resource) ? "allow" : "deny", reason: "" };
    },
  }]);
  return { chain, asked };
}

const act = (h: Record<string, string>, allowed = ["users", "groups", "serviceaccounts", "uids", "userextras"]) => {
  const z = authorizer(allowed);
  return { z, user: impersonate(z.chain, alice, new Headers(h)) };
};

describe("the user a request acts as", () => {
  test("no headers: the caller itself, nothing asked", async () => {
    const { z, user } = act({});
    expect(await user).toBe(alice);
    expect(z.asked).toEqual([]);
  });

  test("a user without groups is in system:authenticated; with groups, those and system:authenticated", async () => {
    expect(await act({ "Impersonate-User": "bob" }).user).toEqual({ name: "bob", groups: ["system:authenticated"], extra: {} });
    const { z, user } = act({ "Impersonate-User": "bob", "Impersonate-Group": "a", "Impersonate-Uid": "u-1", "Impersonate-Extra-Scopes": "x", "Impersonate-Extra-Acme.com%2Fteam": "t" });
    expect(await user).toEqual({ name: "bob", uid: "u-1", groups: ["a", "system:authenticated"], extra: { scopes: ["x"], "acme.com/team": ["t"] } });
    // extras in the order Headers iterates them (by name)
    expect(z.asked).toEqual([
      { verb: "impersonate", apiGroup: "", resource: "users", subresource: "", namespace: "", name: "bob" },
      { verb: "impersonate", apiGroup: "", resource: "groups", subresource: "", namespace: "", name: "a" },
      { verb: "impersonate", apiGroup: "authentication.k8s.io", resource: "userextras", subresource: "acme.com/team", namespace: "", name: "t" },
      { verb: "impersonate", apiGroup: "authentication.k8s.io", resource: "userextras", subresource: "scopes", namespace: "", name: "x" },
      { verb: "impersonate", apiGroup: "authentication.k8s.io", resource: "uids", subresource: "", namespace: "", name: "u-1" },
    ]);
  });

  test("repeated group headers are separate groups; system:unauthenticated keeps system:authenticated out", async () => {
    const h = new Headers();
    h.set("Impersonate-User", "bob");
    h.append("Impersonate-Group", "a");
    h.append("Impersonate-Group", "system:unauthenticated");
    expect(await impersonate(authorizer(["users", "groups"]).chain, alice, h)).toEqual({ name: "bob", groups: ["a", "system:unauthenticated"], extra: {} });
  });

  test("a service account gets its groups unless groups are named", async () => {
    const { z, user } = act({ "Impersonate-User": "system:serviceaccount:ns1:robot" });
    expect(await user).toEqual({ name: "system:serviceaccount:ns1:robot", groups: ["system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"], extra: {} });
    expect(z.asked).toEqual([{ verb: "impersonate", apiGroup: "", resource: "serviceaccounts", subresource: "", namespace: "ns1", name: "robot" }]);
    // not a valid service account name: an ordinary user
    expect((await act({ "Impersonate-User": "system:serviceaccount:Bad:x" }).user).groups).toEqual(["system:authenticated"]);
  });

  test("system:anonymous is in system:unauthenticated", async () => {
    expect(await act({ "Impersonate-User": "system:anonymous" }).user).toEqual({ name: "system:anonymous", groups: ["system:unauthenticated"], extra: {} });
  });
});

describe("refusals", () => {
  const refused = async (h: Record<string, string>, allowed: string[]) => {
    try {
      await act(h, allowed).user;
    } catch (e) {
      return (e as { code: number; message: string });
    }
    throw new Error("not refused");
  };

  test("the first refused question is the 403, in upstream's words", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ "Impersonate-Group": "admins" }, `groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope`],
      [{ "Impersonate-Uid": "1234" }, `uids.authentication.k8s.io "1234" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`],
      [{ "Impersonate-Extra-Scopes": "view" }, `userextras.authentication.k8s.io "view" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`],
    ];
    for (const [h, message] of cases) {
      const e = await refused({ "Impersonate-User": "bob", ...h }, ["users"]);
      expect({ code: e.code, message: e.message }).toEqual({ code: 403, message });
    }
  });

  test("groups, uid or extras without a user: 400", async () => {
    const e = await refused({ "Impersonate-Group": "a" }, ["groups"]);
    expect(e.code).toBe(400);
  });
});
