// Issue 14 (RBAC): escalation attempts are denied. A caller may write a Role only with rules it holds
// (or with `escalate`), and bind a role only when it holds all of its rules (or with `bind` on it);
// dry runs are checked the same. The caller is the anonymous user, given its rights by bindings.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus } from "./fixtures.ts";
import { ANON, RBAC, RBAC_GROUP, bindingBody, clusterRole, ns, rbacServer, roleRef, rule, subject } from "./rbac-fixtures.ts";

setDefaultTimeout(60_000);

const anon = [subject("User", ANON)];
const SEED: [string, object][] = [
  ns("team-a"), ns("team-b"),
  [`${RBAC}/namespaces/team-a/roles`, { metadata: { name: "rbac-writer" }, rules: [rule(["create", "delete", "get", "list", "patch", "update"], [RBAC_GROUP], ["roles", "rolebindings"])] }],
  [`${RBAC}/namespaces/team-a/roles`, { metadata: { name: "pod-reader" }, rules: [rule(["get", "list", "watch"], [""], ["pods"])] }],
  [`${RBAC}/namespaces/team-a/rolebindings`, bindingBody("anon-writer", roleRef("Role", "rbac-writer"), anon)],
  [`${RBAC}/namespaces/team-a/rolebindings`, bindingBody("anon-pods", roleRef("Role", "pod-reader"), anon)],
  [`${RBAC}/clusterroles`, clusterRole("test:secret-reader", [rule(["get", "list", "watch"], [""], ["secrets"])])],
  [`${RBAC}/clusterroles`, clusterRole("test:role-escalator", [rule(["create", "escalate"], [RBAC_GROUP], ["roles"])])],
  [`${RBAC}/namespaces/team-b/rolebindings`, bindingBody("anon-escalate", roleRef("ClusterRole", "test:role-escalator"), anon)],
  [`${RBAC}/clusterroles`, clusterRole("test:binder", [rule(["create"], [RBAC_GROUP], ["rolebindings"]), rule(["bind"], [RBAC_GROUP], ["clusterroles"], ["test:secret-reader"])])],
  [`${RBAC}/namespaces/team-b/rolebindings`, bindingBody("anon-binder", roleRef("ClusterRole", "test:binder"), anon)],
];

const NOT_HELD = `user "system:anonymous" (groups=["system:unauthenticated"]) is attempting to grant RBAC permissions not currently held:`;

describe("RBAC escalation checks", () => {
  let s: TestServer;
  beforeAll(async () => { s = await rbacServer(SEED); }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  const roles = (n: string) => `${RBAC}/namespaces/${n}/roles`;
  const bindings = (n: string) => `${RBAC}/namespaces/${n}/rolebindings`;

  test("a Role with rules the caller holds is written; one with more is forbidden, dry run or not", async () => {
    expectCode(await s.call("POST", roles("team-a"), { metadata: { name: "held" }, rules: [rule(["get", "list"], [""], ["pods"])] }), 201, "held rules");
    const body = { metadata: { name: "secrets" }, rules: [rule(["get"], [""], ["secrets"]), rule(["list"], [""], ["pods"])] };
    for (const q of ["", "?dryRun=All"]) {
      const r = await s.call("POST", `${roles("team-a")}${q}`, body);
      expect(expectStatus(r, 403, "Forbidden", `escalating role${q}`).message)
        .toBe(`roles.rbac.authorization.k8s.io "secrets" is forbidden: ${NOT_HELD}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    }
    // the same checks at the beta version (they run at the hub)
    const beta = await s.call("POST", roles("team-a").replace(`/${RBAC_GROUP}/v1/`, `/${RBAC_GROUP}/v1beta1/`), { apiVersion: `${RBAC_GROUP}/v1beta1`, kind: "Role", ...body });
    expect(expectStatus(beta, 403, "Forbidden", "escalating role at v1beta1").message).toContain(NOT_HELD);
    expectStatus(await s.call("GET", `${roles("team-a")}/secrets`), 404, "NotFound", "nothing written");
    const dry = await s.call("POST", `${roles("team-a")}?dryRun=All`, { metadata: { name: "dry" }, rules: [rule(["watch"], [""], ["pods"])] });
    expectCode(dry, 201, "dry-run of held rules");
    expectStatus(await s.call("GET", `${roles("team-a")}/dry`), 404, "NotFound", "dry run writes nothing");
  });

  test("the caller cannot grant itself more by updating its own role", async () => {
    const writer = (await s.call("GET", `${roles("team-a")}/rbac-writer`)).body;
    writer.rules.push(rule(["bind"], [RBAC_GROUP], ["clusterroles"]), rule(["get"], [""], ["secrets", "configmaps"]));
    const r = await s.call("PUT", `${roles("team-a")}/rbac-writer`, writer);
    expect(expectStatus(r, 403, "Forbidden", "self-escalation").message).toBe(`roles.rbac.authorization.k8s.io "rbac-writer" is forbidden: ${NOT_HELD}\n`
      + `{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}\n{APIGroups:["rbac.authorization.k8s.io"], Resources:["clusterroles"], Verbs:["bind"]}`);
    // a change that grants nothing new (a label) is allowed
    const plain = (await s.call("GET", `${roles("team-a")}/rbac-writer`)).body;
    plain.metadata.labels = { team: "a" };
    expectCode(await s.call("PUT", `${roles("team-a")}/rbac-writer`, plain), 200, "label only");
  });

  test("binding a role needs all of its rules, or bind on it", async () => {
    const secrets = await s.call("POST", bindings("team-a"), bindingBody("b-secrets", roleRef("ClusterRole", "test:secret-reader"), [subject("User", "zoe")]));
    expect(expectStatus(secrets, 403, "Forbidden", "bind unheld").message)
      .toBe(`rolebindings.rbac.authorization.k8s.io "b-secrets" is forbidden: ${NOT_HELD}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}`);
    expectCode(await s.call("POST", bindings("team-a"), bindingBody("b-pods", roleRef("Role", "pod-reader"), [subject("User", "zoe")])), 201, "bind held");
    const missing = await s.call("POST", bindings("team-a"), bindingBody("b-missing", roleRef("Role", "nope"), [subject("User", "zoe")]));
    expect(expectStatus(missing, 403, "Forbidden", "bind missing").message)
      .toBe(`rolebindings.rbac.authorization.k8s.io "b-missing" is forbidden: roles.rbac.authorization.k8s.io "nope" not found`);
  });

  test("escalate and bind, where granted, allow what the caller does not hold", async () => {
    expectCode(await s.call("POST", roles("team-b"), { metadata: { name: "secrets" }, rules: [rule(["get"], [""], ["secrets"])] }), 201, "escalate");
    expectCode(await s.call("POST", bindings("team-b"), bindingBody("b-secrets", roleRef("ClusterRole", "test:secret-reader"), [subject("User", "zoe")])), 201, "bind granted");
    const edit = await s.call("POST", bindings("team-b"), bindingBody("b-edit", roleRef("ClusterRole", "edit"), [subject("User", "zoe")]));
    expect(expectStatus(edit, 403, "Forbidden", "bind not granted").message).toStartWith(`rolebindings.rbac.authorization.k8s.io "b-edit" is forbidden: ${NOT_HELD}\n`);
  });
});
