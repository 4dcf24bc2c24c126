// Issue 14: the Node authorizer's decisions on its graph, built from real objects written through a real
// registry (SQLite in a temp dir) and fed by the registry's watches: a node reaches what its pods
// reference and nothing else, its own Lease and Node, and may write only its own Node and bound pods.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Attributes, Decision } from "../../pkg/auth/authorize.ts";
import { NodeAuthorizer, NodeRules } from "../../pkg/auth/node-authz/authorizer.ts";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import { Registry } from "../../pkg/registry/registry.ts";
import { SqliteStore } from "../../pkg/storage/sqlite.ts";
import type { UserInfo } from "../../pkg/auth/user.ts";
import { tempDir } from "../helpers/processes.ts";

const node = (name: string): UserInfo => ({ name: `system:node:${name}`, groups: ["system:nodes", "system:authenticated"] });

function attrs(user: UserInfo, verb: string, resource: string, namespace: string, name: string, extra: Partial<Attributes> = {}): Attributes {
  return { user, verb, isResourceRequest: true, path: "", apiGroup: "", apiVersion: "v1", namespace, resource, subresource: "", name, ...extra };
}

const pod = (name: string, nodeName: string | undefined, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "busybox", ...(spec.container as object ?? {}) }], ...Object.fromEntries(Object.entries(spec).filter(([k]) => k !== "container")) },
});

describe("Node authorizer on a graph fed by the registry", () => {
  let store: SqliteStore;
  let registry: Registry;
  let authz: NodeAuthorizer;
  const rs = (group: string, plural: string) => registry.all.find((r) => r.def.group === group && r.def.plural === plural && !r.def.codec)!;
  const decide = (a: Attributes): Promise<Decision> => authz.authorize(a);
  /** Waits for the graph to see a write (the watch delivers it asynchronously). */
  const eventually = async (a: Attributes, want: Decision["decision"]) => {
    for (let i = 0; i < 200 && (await decide(a)).decision !== want; i++) await Bun.sleep(10);
    return (await decide(a)).decision;
  };

  beforeAll(async () => {
    store = new SqliteStore(join(tempDir("kite-node-authz-"), "state.db"));
    registry = new Registry(BUILTIN, store, { etcdPrefix: "/registry" });
    await registry.bootstrap();
    await registry.namespaces.create("", { metadata: { name: "app" } });
    // written before the authorizer starts: the first list finds it
    await rs("", "pods").create("app", pod("early", "n1", { container: { envFrom: [{ secretRef: { name: "early-secret" } }] } }));
    authz = new NodeAuthorizer(registry);
    await rs("", "pods").create("app", pod("web", "n1", {
      serviceAccountName: "web-sa",
      imagePullSecrets: [{ name: "pull" }],
      container: { env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "env-cm", key: "a" } } }, { name: "B", valueFrom: { secretKeyRef: { name: "env-secret", key: "b" } } }] },
      volumes: [
        { name: "s", secret: { secretName: "vol-secret" } },
        { name: "p", projected: { sources: [{ configMap: { name: "proj-cm" } }] } },
        { name: "d", persistentVolumeClaim: { claimName: "data" } },
      ],
    }));
    await rs("", "pods").create("app", pod("other", "n2", { volumes: [{ name: "s", secret: { secretName: "n2-secret" } }] }));
    await rs("", "pods").create("app", pod("pending", undefined, { volumes: [{ name: "s", secret: { secretName: "pending-secret" } }] }));
    await rs("", "persistentvolumes").create("", {
      metadata: { name: "pv1" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], claimRef: { namespace: "app", name: "data" }, csi: { driver: "d", volumeHandle: "h", nodePublishSecretRef: { name: "csi-secret", namespace: "app" }, controllerPublishSecretRef: { name: "ctrl-secret", namespace: "app" } } },
    });
  }, 30_000);
  afterAll(async () => { authz?.stop(); await store?.close(); });

  test("users that are not nodes get no opinion", async () => {
    expect(await decide(attrs({ name: "alice", groups: ["system:nodes"] }, "get", "secrets", "app", "vol-secret"))).toEqual({ decision: "noOpinion" });
    expect(await decide(attrs({ name: "system:node:n1", groups: [] }, "get", "secrets", "app", "vol-secret"))).toEqual({ decision: "noOpinion" });
    expect(await decide(attrs({ name: "system:node:", groups: ["system:nodes"] }, "get", "secrets", "app", "x"))).toEqual({ decision: "noOpinion", reason: `unknown node for user "system:node:"` });
  });

  test("the Secrets, ConfigMaps, claims and volumes a bound pod references", async () => {
    const n1 = node("n1");
    for (const s of ["vol-secret", "env-secret", "pull", "early-secret", "csi-secret"]) expect(await eventually(attrs(n1, "get", "secrets", "app", s), "allow")).toBe("allow");
    for (const c of ["env-cm", "proj-cm"]) expect(await eventually(attrs(n1, "watch", "configmaps", "app", c), "allow")).toBe("allow");
    expect((await decide(attrs(n1, "get", "persistentvolumeclaims", "app", "data"))).decision).toBe("allow");
    expect((await decide(attrs(n1, "get", "persistentvolumes", "", "pv1"))).decision).toBe("allow");
    expect((await decide(attrs(n1, "create", "serviceaccounts", "app", "web-sa", { subresource: "token" }))).decision).toBe("allow");
  });

  test("nothing else: other nodes' pods, unscheduled pods, controller-only secrets, other verbs", async () => {
    const n1 = node("n1");
    const none = (reason: string): Decision => ({ decision: "noOpinion", reason });
    const unrelated = none("no relationship found between node 'n1' and this object");
    expect(await decide(attrs(n1, "get", "secrets", "app", "n2-secret"))).toEqual(unrelated);
    expect(await decide(attrs(n1, "get", "secrets", "app", "pending-secret"))).toEqual(unrelated);
    expect(await decide(attrs(n1, "get", "secrets", "app", "ctrl-secret"))).toEqual(unrelated);
    expect(await decide(attrs(n1, "get", "secrets", "other-ns", "vol-secret"))).toEqual(unrelated);
    expect(await decide(attrs(n1, "list", "secrets", "app", ""))).toEqual(none("No Object name found"));
    expect(await decide(attrs(n1, "update", "secrets", "app", "vol-secret"))).toEqual(none("can only read resources of this type"));
    expect(await decide(attrs(n1, "list", "persistentvolumes", "", ""))).toEqual(none("can only get individual resources of this type"));
    expect(await decide(attrs(n1, "get", "serviceaccounts", "app", "web-sa"))).toEqual(none("can only create tokens for individual service accounts"));
    expect((await decide(attrs(node("n2"), "get", "secrets", "app", "n2-secret"))).decision).toBe("allow");
    // kinds the Node authorizer does not subdivide are left to RBAC's system:node role
    expect(await decide(attrs(n1, "list", "services", "", ""))).toEqual({ decision: "noOpinion" });
  });

  test("its own Lease in kube-node-lease, its own Node", async () => {
    const lease = (verb: string, ns: string, name: string) => attrs(node("n1"), verb, "leases", ns, name, { apiGroup: "coordination.k8s.io" });
    expect((await decide(lease("update", "kube-node-lease", "n1"))).decision).toBe("allow");
    expect((await decide(lease("create", "kube-node-lease", ""))).decision).toBe("allow");
    expect(await decide(lease("update", "kube-node-lease", "n2"))).toEqual({ decision: "noOpinion", reason: "can only access node lease with the same name as the requesting node" });
    expect(await decide(lease("get", "default", "n1"))).toEqual({ decision: "noOpinion", reason: `can only access leases in the "kube-node-lease" system namespace` });
    expect((await decide(attrs(node("n1"), "patch", "nodes", "", "n1", { subresource: "status" }))).decision).toBe("allow");
    expect(await decide(attrs(node("n1"), "patch", "nodes", "", "n2", { subresource: "status" }))).toEqual({ decision: "deny", reason: `node "n1" is not allowed to modify node "n2"` });
    expect(await decide(attrs(node("n1"), "get", "nodes", "", "n2"))).toEqual({ decision: "noOpinion" });
  });

  test("NodeRestriction: a node writes only the pods bound to it", async () => {
    const n1 = node("n1");
    expect((await decide(attrs(n1, "update", "pods", "app", "web", { subresource: "status" }))).decision).toBe("allow");
    expect((await decide(attrs(n1, "delete", "pods", "app", "web"))).decision).toBe("allow");
    expect(await decide(attrs(n1, "patch", "pods", "app", "other", { subresource: "status" }))).toEqual({ decision: "deny", reason: `node "n1" can only update pod status for pods with spec.nodeName set to itself` });
    expect(await decide(attrs(n1, "delete", "pods", "app", "other"))).toEqual({ decision: "deny", reason: `node "n1" can only delete pods with spec.nodeName set to itself` });
    expect(await decide(attrs(n1, "create", "pods", "app", "other", { subresource: "eviction" }))).toEqual({ decision: "deny", reason: `node "n1" can only evict pods with spec.nodeName set to itself` });
  });

  test("the graph follows writes: a deleted pod takes its references with it; a new one brings them", async () => {
    const n1 = node("n1");
    await rs("", "pods").delete("app", "web", { gracePeriodSeconds: 0 });
    expect(await eventually(attrs(n1, "get", "secrets", "app", "vol-secret"), "noOpinion")).toBe("noOpinion");
    expect(await eventually(attrs(n1, "get", "persistentvolumes", "", "pv1"), "noOpinion")).toBe("noOpinion");
    expect((await decide(attrs(n1, "create", "serviceaccounts", "app", "web-sa", { subresource: "token" }))).decision).toBe("noOpinion");
    expect((await decide(attrs(n1, "get", "secrets", "app", "early-secret"))).decision).toBe("allow");
    await rs("", "pods").create("app", pod("web2", "n1", { volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }] }));
    expect(await eventually(attrs(n1, "get", "secrets", "app", "csi-secret"), "allow")).toBe("allow");
  });
});

describe("the system:node role's rules, when given", () => {
  const empty = { hasPath: () => false, hasEdge: () => false };
  const role = (a: Attributes) => (a.resource === "services" && a.verb === "list") || (a.resource === "nodes" && a.verb === "get") || (a.resource === "secrets");
  const rules = new NodeRules(empty, role);

  test("decide what the graph does not subdivide", () => {
    expect(rules.decide(attrs(node("n1"), "list", "services", "", "")).decision).toBe("allow");
    expect(rules.decide(attrs(node("n1"), "get", "nodes", "", "n2")).decision).toBe("allow");
    expect(rules.decide(attrs(node("n1"), "delete", "services", "app", "x")).decision).toBe("noOpinion");
  });

  test("never widen what the graph decides, nor undo a NodeRestriction denial", () => {
    expect(rules.decide(attrs(node("n1"), "get", "secrets", "app", "s")).decision).toBe("noOpinion");
    expect(rules.decide(attrs(node("n1"), "update", "nodes", "", "n2")).decision).toBe("deny");
  });
});
