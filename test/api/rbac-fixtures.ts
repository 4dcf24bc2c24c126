// Fixtures of the RBAC tests: RBAC objects in a few words, and a server under --authorization-mode=RBAC
// on a store seeded under AlwaysAllow (the tests have no other way to be an administrator yet).
import { startServer, type TestServer } from "../helpers/server.ts";
import { expectCode } from "./fixtures.ts";

export const RBAC = "/apis/rbac.authorization.k8s.io/v1";
export const RBAC_GROUP = "rbac.authorization.k8s.io";
export const ANON = "system:anonymous";

export const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]) => ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
export const clusterRole = (name: string, rules: object[], labels?: Record<string, string>) => ({ metadata: { name, ...(labels ? { labels } : {}) }, rules });
export const subject = (kind: "User" | "Group" | "ServiceAccount", name: string, namespace?: string) =>
  (kind === "ServiceAccount" ? { kind, name, ...(namespace ? { namespace } : {}) } : { kind, name, apiGroup: RBAC_GROUP });
export const roleRef = (kind: "Role" | "ClusterRole", name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
export const bindingBody = (name: string, ref: object, subjects: object[]) => ({ metadata: { name }, roleRef: ref, subjects });

/** Writes objects through a server, failing on anything but 201. */
export async function writeAll(s: TestServer, objs: [string, object][]) {
  for (const [path, body] of objs) expectCode(await s.call("POST", path, body), 201, `seed ${path}`);
}

/** A store seeded under AlwaysAllow, then the server under test on it with RBAC. */
export async function rbacServer(seed: [string, object][], args: string[] = []): Promise<TestServer> {
  const seeder = await startServer();
  await writeAll(seeder, seed);
  await seeder.stop();
  return startServer(["--authorization-mode=RBAC", ...args], seeder.dataDir);
}

export const ns = (name: string): [string, object] => ["/api/v1/namespaces", { metadata: { name } }];
export const pod = (namespace: string, name: string): [string, object] =>
  [`/api/v1/namespaces/${namespace}/pods`, { metadata: { name }, spec: { containers: [{ name: "c", image: "busybox" }] } }];
