// Issue 14 (RBAC): the RBAC authorizer asked through SubjectAccessReview for any user (a deny matrix over
// users, groups and service accounts), real requests of the anonymous user allowed and denied as its
// bindings change, the bootstrap policy and its reconciliation at start, ClusterRole aggregation, the
// other review APIs, and stock kubectl's `auth can-i` / `auth whoami`. Fixtures are written by a first
// start under AlwaysAllow; the server under test then runs --authorization-mode=RBAC on that store.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { startServer, type TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, openWatch, until } from "./fixtures.ts";
import { ANON, RBAC, RBAC_GROUP, bindingBody, clusterRole, ns, pod, rbacServer, roleRef, rule, subject } from "./rbac-fixtures.ts";

setDefaultTimeout(60_000);

const SEED: [string, object][] = [
  ns("team-a"), ns("team-b"), pod("team-a", "web"),
  // the anonymous caller manages RBAC objects (bind and escalate included) and asks reviews
  [`${RBAC}/clusterroles`, clusterRole("test:rbac-manager", [
    rule(["*"], [RBAC_GROUP], ["roles", "rolebindings", "clusterroles", "clusterrolebindings"]),
    rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews", "localsubjectaccessreviews"]),
  ])],
  [`${RBAC}/clusterrolebindings`, bindingBody("test:anonymous-rbac-manager", roleRef("ClusterRole", "test:rbac-manager"), [subject("User", ANON)])],
  [`${RBAC}/clusterrolebindings`, bindingBody("test:anonymous-discovery", roleRef("ClusterRole", "system:discovery"), [subject("Group", "system:unauthenticated")])],
  [`${RBAC}/clusterrolebindings`, bindingBody("test:anonymous-basic-user", roleRef("ClusterRole", "system:basic-user"), [subject("Group", "system:unauthenticated")])],
  // the matrix's users
  ["/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles", { metadata: { name: "pod-reader" }, rules: [rule(["get", "list", "watch"], [""], ["pods"]), rule(["get"], [""], ["pods/status"])] }],
  [`${RBAC}/namespaces/team-a/rolebindings`, bindingBody("alice-reads", roleRef("Role", "pod-reader"), [subject("User", "alice")])],
  [`${RBAC}/clusterrolebindings`, bindingBody("devs-view", roleRef("ClusterRole", "view"), [subject("Group", "devs")])],
  [`${RBAC}/namespaces/team-a/rolebindings`, bindingBody("builder-edit", roleRef("ClusterRole", "edit"), [subject("ServiceAccount", "builder")])],
  [`${RBAC}/namespaces/team-a/roles`, { metadata: { name: "one-config" }, rules: [rule(["get"], [""], ["configmaps"], ["app-config"])] }],
  [`${RBAC}/namespaces/team-a/rolebindings`, bindingBody("dana-config", roleRef("Role", "one-config"), [subject("User", "dana")])],
  [`${RBAC}/clusterroles`, clusterRole("test:scaler", [rule(["get", "update"], ["*"], ["*/scale"])])],
  [`${RBAC}/clusterrolebindings`, bindingBody("erin-scales", roleRef("ClusterRole", "test:scaler"), [subject("User", "erin")])],
  [`${RBAC}/clusterroles`, { metadata: { name: "test:metrics-reader" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/metrics", "/logs/*"] }] }],
  [`${RBAC}/clusterrolebindings`, bindingBody("frank-metrics", roleRef("ClusterRole", "test:metrics-reader"), [subject("User", "frank")])],
  [`${RBAC}/namespaces/team-b/rolebindings`, bindingBody("gil-ghost", roleRef("Role", "missing"), [subject("User", "gil")])],
];

type Attrs = { verb: string; resource?: string; group?: string; namespace?: string; subresource?: string; name?: string; path?: string };

function sarBody(user: string, groups: string[], a: Attrs) {
  const spec: any = { user, groups };
  if (a.path) spec.nonResourceAttributes = { path: a.path, verb: a.verb };
  else spec.resourceAttributes = { verb: a.verb, resource: a.resource, group: a.group ?? "", namespace: a.namespace ?? "", subresource: a.subresource ?? "", name: a.name ?? "" };
  return { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec };
}

describe("RBAC", () => {
  let s: TestServer;
  beforeAll(async () => { s = await rbacServer(SEED); }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  const sar = async (user: string, groups: string[], a: Attrs) => {
    const r = await s.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sarBody(user, groups, a));
    expectCode(r, 201, `SubjectAccessReview ${user} ${JSON.stringify(a)}`);
    return r.body;
  };

  // [who, groups, what, allowed]
  const MATRIX: [string, string[], Attrs, boolean][] = [
    ["alice", [], { verb: "get", resource: "pods", namespace: "team-a", name: "web" }, true],
    ["alice", [], { verb: "list", resource: "pods", namespace: "team-a" }, true],
    ["alice", [], { verb: "watch", resource: "pods", namespace: "team-a" }, true],
    ["alice", [], { verb: "create", resource: "pods", namespace: "team-a" }, false],
    ["alice", [], { verb: "patch", resource: "pods", namespace: "team-a", name: "web" }, false],
    ["alice", [], { verb: "delete", resource: "pods", namespace: "team-a", name: "web" }, false],
    ["alice", [], { verb: "get", resource: "pods", subresource: "status", namespace: "team-a", name: "web" }, true],
    ["alice", [], { verb: "update", resource: "pods", subresource: "status", namespace: "team-a", name: "web" }, false],
    ["alice", [], { verb: "get", resource: "pods", namespace: "team-b", name: "web" }, false],
    ["alice", [], { verb: "list", resource: "pods" }, false],
    ["alice", [], { verb: "get", path: "/api" }, false],
    ["bob", ["devs"], { verb: "get", resource: "deployments", group: "apps", namespace: "team-b" }, true],
    ["bob", ["devs"], { verb: "get", resource: "deployments", group: "apps", subresource: "scale", namespace: "team-b", name: "d" }, true],
    ["bob", ["devs"], { verb: "create", resource: "deployments", group: "apps", namespace: "team-b" }, false],
    ["bob", ["devs"], { verb: "get", resource: "secrets", namespace: "team-b" }, false],
    ["bob", [], { verb: "get", resource: "deployments", group: "apps", namespace: "team-b" }, false],
    ["system:serviceaccount:team-a:builder", [], { verb: "create", resource: "deployments", group: "apps", namespace: "team-a" }, true],
    ["system:serviceaccount:team-a:builder", [], { verb: "get", resource: "secrets", namespace: "team-a", name: "s" }, true],
    ["system:serviceaccount:team-a:builder", [], { verb: "create", resource: "deployments", group: "apps", namespace: "team-b" }, false],
    ["system:serviceaccount:team-b:builder", [], { verb: "create", resource: "deployments", group: "apps", namespace: "team-a" }, false],
    ["dana", [], { verb: "get", resource: "configmaps", namespace: "team-a", name: "app-config" }, true],
    ["dana", [], { verb: "get", resource: "configmaps", namespace: "team-a", name: "other" }, false],
    ["dana", [], { verb: "list", resource: "configmaps", namespace: "team-a" }, false],
    ["erin", [], { verb: "update", resource: "deployments", group: "apps", subresource: "scale", namespace: "team-b", name: "d" }, true],
    ["erin", [], { verb: "get", resource: "replicationcontrollers", subresource: "scale", namespace: "x", name: "rc" }, true],
    ["erin", [], { verb: "update", resource: "deployments", group: "apps", namespace: "team-b", name: "d" }, false],
    ["frank", [], { verb: "get", path: "/metrics" }, true],
    ["frank", [], { verb: "get", path: "/logs/kube-apiserver.log" }, true],
    ["frank", [], { verb: "get", path: "/logs" }, false],
    ["frank", [], { verb: "post", path: "/metrics" }, false],
    ["root", ["system:masters"], { verb: "delete", resource: "nodes", name: "n1" }, true],
    ["root", ["system:masters"], { verb: "get", path: "/anything" }, true],
    ["anyone", ["system:authenticated"], { verb: "get", path: "/apis/apps/v1" }, true],
    ["anyone", ["system:authenticated"], { verb: "create", resource: "selfsubjectaccessreviews", group: "authorization.k8s.io" }, true],
    [ANON, ["system:unauthenticated"], { verb: "get", path: "/version" }, true],
    [ANON, ["system:unauthenticated"], { verb: "get", path: "/metrics" }, false],
  ];

  test("SubjectAccessReview: the deny matrix over users, groups, service accounts, names, subresources, */scale and URLs", async () => {
    const wrong: string[] = [];
    for (const [user, groups, a, want] of MATRIX) {
      const st = (await sar(user, groups, a)).status;
      if (st.allowed !== want || st.denied !== undefined) wrong.push(`${user} ${JSON.stringify(a)}: ${JSON.stringify(st)}`);
    }
    expect(wrong).toEqual([]);
  });

  test("SubjectAccessReview reasons name the binding that allowed, or the role RBAC could not find", async () => {
    expect((await sar("alice", [], { verb: "get", resource: "pods", namespace: "team-a" })).status.reason)
      .toBe(`RBAC: allowed by RoleBinding "alice-reads/team-a" of Role "pod-reader" to User "alice"`);
    expect((await sar("system:serviceaccount:team-a:builder", [], { verb: "create", resource: "pods", namespace: "team-a" })).status.reason)
      .toBe(`RBAC: allowed by RoleBinding "builder-edit/team-a" of ClusterRole "edit" to ServiceAccount "builder/team-a"`);
    expect((await sar("bob", ["devs"], { verb: "list", resource: "pods", namespace: "x" })).status.reason)
      .toBe(`RBAC: allowed by ClusterRoleBinding "devs-view" of ClusterRole "view" to Group "devs"`);
    const ghost = (await sar("gil", [], { verb: "get", resource: "pods", namespace: "team-b" })).status;
    expect(ghost).toEqual({ allowed: false, reason: `RBAC: role.rbac.authorization.k8s.io "missing" not found` });
  });

  test("review validation in upstream's words", async () => {
    const none = await s.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { spec: { resourceAttributes: { verb: "get", resource: "pods" } } });
    expect(expectStatus(none, 422, "Invalid", "SAR without a user").message)
      .toBe(`SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified`);
    const neither = await s.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { spec: {} });
    expect(expectStatus(neither, 422, "Invalid", "SSAR without attributes").message)
      .toBe(`SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified`);
    const local = await s.call("POST", "/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews", { spec: { user: "alice", resourceAttributes: { verb: "get", resource: "pods", namespace: "team-b" } } });
    expect(expectStatus(local, 422, "Invalid", "LSAR in another namespace").message)
      .toBe(`LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "team-b": must match metadata.namespace`);
    const ok = await s.call("POST", "/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews", { spec: { user: "alice", resourceAttributes: { verb: "list", resource: "pods", namespace: "team-a" } } });
    expectCode(ok, 201, "LSAR");
    expect(ok.body.status.allowed).toBe(true);
    expect(ok.body.metadata.namespace).toBe("team-a");
  });

  test("anonymous requests: denied in upstream's words, allowed once bound, denied again once unbound", async () => {
    const pods = "/api/v1/namespaces/team-a/pods";
    expect(expectStatus(await s.call("GET", pods), 403, "Forbidden", "list before").message)
      .toBe(`pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "team-a"`);
    expectCode(await s.call("POST", `${RBAC}/namespaces/team-a/rolebindings`, bindingBody("anon-reads", roleRef("Role", "pod-reader"), [subject("User", ANON)])), 201, "bind anonymous");
    await until(async () => (await s.call("GET", pods)).status === 200, "the binding to take effect");
    expectCode(await s.call("GET", `${pods}/web`), 200, "get");
    const w = await openWatch(s, `${pods}?watch=1`);
    expect((await w.take(1))[0]?.type).toBe("ADDED");
    w.close();
    expectCode(await s.call("GET", `${pods}/web/status`), 200, "get a subresource");
    const denied: [string, string, object | undefined, string][] = [
      ["POST", pods, pod("team-a", "new")[1], `pods is forbidden: User "system:anonymous" cannot create resource "pods" in API group "" in the namespace "team-a"`],
      ["DELETE", `${pods}/web`, undefined, `pods "web" is forbidden: User "system:anonymous" cannot delete resource "pods" in API group "" in the namespace "team-a"`],
      ["PUT", `${pods}/web/status`, {}, `pods "web" is forbidden: User "system:anonymous" cannot update resource "pods/status" in API group "" in the namespace "team-a"`],
      ["GET", "/api/v1/namespaces/team-b/pods/web", undefined, `pods "web" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "team-b"`],
      ["GET", "/metrics", undefined, `forbidden: User "system:anonymous" cannot get path "/metrics"`],
    ];
    for (const [method, path, body, message] of denied) {
      expect(expectStatus(await s.call(method, path, body), 403, "Forbidden", `${method} ${path}`).message).toBe(message);
    }
    const patched = await s.req(`${pods}/web`, { method: "PATCH", body: "{}", headers: { "content-type": "application/merge-patch+json" } });
    expect(patched.status).toBe(403);
    expect(((await patched.json()) as { message: string }).message).toBe(`pods "web" is forbidden: User "system:anonymous" cannot patch resource "pods" in API group "" in the namespace "team-a"`);
    // a dry run needs the real verb's permission
    expectStatus(await s.call("POST", `${pods}?dryRun=All`, pod("team-a", "dry")[1]), 403, "Forbidden", "dry-run create");
    // public info and discovery as the bootstrap roles (and the seed's discovery binding) allow them
    for (const p of ["/version", "/healthz", "/api", "/apis/apps/v1"]) expectCode(await s.call("GET", p), 200, p);
    expectCode(await s.call("POST", `${RBAC}/clusterrolebindings`, bindingBody("anon-metrics", roleRef("ClusterRole", "test:metrics-reader"), [subject("User", ANON)])), 201, "bind metrics");
    await until(async () => (await s.call("GET", "/metrics")).status === 200, "GET /metrics allowed");
    expectCode(await s.call("DELETE", `${RBAC}/namespaces/team-a/rolebindings/anon-reads`), 200, "unbind");
    await until(async () => (await s.call("GET", pods)).status === 403, "the unbinding to take effect");
  });

  test("SelfSubjectAccessReview and SelfSubjectRulesReview answer for the caller", async () => {
    const ssar = await s.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { spec: { resourceAttributes: { verb: "get", resource: "clusterroles", group: RBAC_GROUP } } });
    expectCode(ssar, 201, "SSAR");
    expect(ssar.body.status.allowed).toBe(true);
    const ssrr = await s.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", { spec: { namespace: "team-a" } });
    expectCode(ssrr, 201, "SSRR");
    expect(ssrr.body.status.incomplete).toBe(false);
    expect(ssrr.body.status.resourceRules).toContainEqual({ verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] });
    expect(ssrr.body.status.nonResourceRules).toContainEqual({ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] });
    const who = await s.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
    expectCode(who, 201, "SelfSubjectReview");
    expect(who.body.status.userInfo).toEqual({ username: ANON, groups: ["system:unauthenticated"] });
  });

  test("bootstrap policy: the default roles and bindings, admin/edit/view aggregated", async () => {
    const get = async (p: string) => { const r = await s.call("GET", p); expectCode(r, 200, p); return r.body; };
    const piv = await get(`${RBAC}/clusterrolebindings/system:public-info-viewer`);
    expect(piv.subjects.map((x: any) => x.name)).toEqual(["system:authenticated", "system:unauthenticated"]);
    expect(piv.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"]).toBe("true");
    expect((await get(`${RBAC}/clusterrolebindings/cluster-admin`)).subjects).toEqual([subject("Group", "system:masters")]);
    expect((await get(`${RBAC}/clusterrolebindings/system:controller:deployment-controller`)).subjects).toEqual([subject("ServiceAccount", "deployment-controller", "kube-system")]);
    for (const name of ["system:node", "system:node-proxier", "system:kube-scheduler", "system:kube-controller-manager", "system:volume-scheduler", "system:auth-delegator",
      "system:heapster", "system:kube-dns", "system:node-bootstrapper", "system:service-account-issuer-discovery", "system:certificates.k8s.io:kube-apiserver-client-approver"]) {
      await get(`${RBAC}/clusterroles/${name}`);
    }
    const has = (role: any, verb: string, group: string, resource: string) =>
      (role.rules ?? []).some((r: any) => r.verbs.includes(verb) && r.apiGroups?.includes(group) && r.resources?.includes(resource));
    const admin = await until(async () => {
      const a = await get(`${RBAC}/clusterroles/admin`);
      return has(a, "create", RBAC_GROUP, "rolebindings") && has(a, "create", "apps", "deployments") && has(a, "get", "", "pods") ? a : null;
    }, "admin to aggregate edit and view");
    expect(admin.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { "rbac.authorization.k8s.io/aggregate-to-admin": "true" } }] });
    const view = await get(`${RBAC}/clusterroles/view`);
    expect(has(view, "get", "", "pods") && !has(view, "create", "apps", "deployments")).toBe(true);
  });

  test("aggregation follows the ClusterRoles whose labels match, added and deleted", async () => {
    const widgets = rule(["get", "list"], ["example.com"], ["widgets"]);
    expectCode(await s.call("POST", `${RBAC}/clusterroles`, clusterRole("widgets-view", [widgets], { "rbac.authorization.k8s.io/aggregate-to-view": "true" })), 201, "create");
    const holds = async (name: string) => ((await s.call("GET", `${RBAC}/clusterroles/${name}`)).body.rules ?? []).some((r: any) => Bun.deepEquals(r, widgets));
    for (const name of ["view", "edit", "admin"]) await until(() => holds(name), `${name} to gain the widgets rule`);
    expectCode(await s.call("DELETE", `${RBAC}/clusterroles/widgets-view`), 200, "delete");
    for (const name of ["view", "edit", "admin"]) await until(async () => !(await holds(name)), `${name} to lose the widgets rule`);
  });

  describe("stock kubectl as the anonymous user", () => {
    const KUBECTL = "/opt/kubernetes-client-1.20/usr/bin/kubectl";
    const SDK_BIN = "/usr/lib/google-cloud-sdk/bin";
    const whoamiBuilds = existsSync(SDK_BIN)
      ? readdirSync(SDK_BIN).filter((f) => /^kubectl\.1\.\d+$/.test(f)).sort((a, b) => Number(a.split(".")[2]) - Number(b.split(".")[2]))
      : [];
    const run = async (bin: string, args: string[]) => {
      const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { out, err, code };
    };

    // kubectl 1.20 sends JSON; the newest build sends protobuf
    const canI = [KUBECTL, ...whoamiBuilds.slice(-1).map((b) => `${SDK_BIN}/${b}`)].filter((b) => existsSync(b));

    test.skipIf(canI.length === 0)("kubectl auth can-i and can-i --list", async () => {
      expectCode(await s.call("POST", `${RBAC}/namespaces/team-a/rolebindings`, bindingBody("anon-can-i", roleRef("Role", "pod-reader"), [subject("User", ANON)])), 201, "bind");
      await until(async () => (await s.call("GET", "/api/v1/namespaces/team-a/pods")).status === 200, "the binding to take effect");
      for (const bin of canI) {
        const yes = await run(bin, ["auth", "can-i", "list", "pods", "-n", "team-a"]);
        expect([bin, yes.code, yes.out.trim()]).toEqual([bin, 0, "yes"]);
        const no = await run(bin, ["auth", "can-i", "create", "pods", "-n", "team-a"]);
        expect([bin, no.code, no.out.trim()]).toEqual([bin, 1, "no"]);
        const list = await run(bin, ["auth", "can-i", "--list", "-n", "team-a"]);
        expect([bin, list.code]).toEqual([bin, 0]);
        expect(list.out).toMatch(/\npods\s+\[\]\s+\[\]\s+\[get list watch\]\n/);
        expect(list.out).toMatch(/\n\s+\[\/version\]\s+\[\]\s+\[get\]\n/);
        expect(list.out).not.toMatch(/\nsecrets\s/);
      }
    });

    test.skipIf(whoamiBuilds.length === 0)("kubectl auth whoami (1.27+)", async () => {
      for (const b of whoamiBuilds) {
        const r = await run(`${SDK_BIN}/${b}`, ["auth", "whoami"]);
        expect(r.code, `${b}: ${r.err}`).toBe(0);
        expect(r.out).toMatch(/Username\s+system:anonymous/);
        expect(r.out).toMatch(/Groups\s+\[system:unauthenticated\]/);
      }
    });
  });

  test("the bootstrap policy is reconciled at start: missing rules and subjects return, additions stay, autoupdate=false is left alone", async () => {
    const path = `${RBAC}/clusterroles/system:discovery`;
    const disc = (await s.call("GET", path)).body;
    const extra = { verbs: ["get"], nonResourceURLs: ["/custom"] };
    disc.rules = [{ verbs: ["get"], nonResourceURLs: ["/api"] }, extra];
    expectCode(await s.call("PUT", path, disc), 200, "trim system:discovery");
    const heap = (await s.call("GET", `${RBAC}/clusterroles/system:heapster`)).body;
    heap.rules = [];
    heap.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "false";
    expectCode(await s.call("PUT", `${RBAC}/clusterroles/system:heapster`, heap), 200, "protect system:heapster");
    const pub = (await s.call("GET", `${RBAC}/clusterrolebindings/system:public-info-viewer`)).body;
    pub.subjects = [subject("User", "someone")];
    expectCode(await s.call("PUT", `${RBAC}/clusterrolebindings/system:public-info-viewer`, pub), 200, "trim subjects");
    await s.stop();
    s = await startServer(["--authorization-mode=RBAC"], s.dataDir);
    const after = (await s.call("GET", path)).body;
    const urls = after.rules.flatMap((r: any) => r.nonResourceURLs ?? []);
    for (const u of ["/api", "/apis", "/healthz", "/version", "/custom"]) expect(urls).toContain(u);
    expect((await s.call("GET", `${RBAC}/clusterroles/system:heapster`)).body.rules ?? []).toEqual([]);
    expect((await s.call("GET", `${RBAC}/clusterrolebindings/system:public-info-viewer`)).body.subjects.map((x: any) => x.name))
      .toEqual(["someone", "system:authenticated", "system:unauthenticated"]);
  });
});
