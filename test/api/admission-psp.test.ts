// The PodSecurityPolicy admission plugin under RBAC: two users and ServiceAccounts that may use different
// policies; the pod defaulted by the policy that admits it and annotated with its name, a policy that
// admits unchanged preferred, and upstream's 403 listing what the usable policies refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TEST_TOKEN, type TestServer, startServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus } from "./fixtures.ts";
import { RBAC, bindingBody, clusterRole, roleRef, rule, subject } from "./rbac-fixtures.ts";

const NS = "psp";
let s: TestServer;
beforeAll(async () => {
  s = await startServer(["--authorization-mode=RBAC", "--enable-admission-plugins=PodSecurityPolicy", "--allow-privileged=true"]);
  // every request carries the admin's token (impersonating the users below where a test says so)
  const call = s.call;
  s.call = (method, path, body, headers) => call(method, path, body, { Authorization: `Bearer ${TEST_TOKEN}`, ...headers });
  await createNamespace(s, NS);
}, 60_000);
afterAll(async () => { await s?.stop(); }, 30_000);

const PSP = "/apis/policy/v1beta1/podsecuritypolicies";
const anyRule = { rule: "RunAsAny" };
const restricted = {
  metadata: {
    name: "restricted",
    annotations: {
      "seccomp.security.alpha.kubernetes.io/defaultProfileName": "runtime/default", "seccomp.security.alpha.kubernetes.io/allowedProfileNames": "runtime/default",
      "apparmor.security.beta.kubernetes.io/defaultProfileName": "runtime/default", "apparmor.security.beta.kubernetes.io/allowedProfileNames": "runtime/default",
    },
  },
  spec: {
    privileged: false, allowPrivilegeEscalation: false, requiredDropCapabilities: ["NET_RAW"],
    volumes: ["configMap", "secret", "projected", "emptyDir", "hostPath"], allowedHostPaths: [{ pathPrefix: "/var/log", readOnly: true }],
    hostPorts: [{ min: 8000, max: 8080 }], forbiddenSysctls: ["net.core.*"], seLinux: anyRule, runAsUser: { rule: "MustRunAsNonRoot" },
    fsGroup: { rule: "MustRunAs", ranges: [{ min: 1000, max: 2000 }] }, supplementalGroups: { rule: "MustRunAs", ranges: [{ min: 500, max: 600 }] },
  },
};
const unrestricted = {
  metadata: { name: "unrestricted" },
  spec: {
    privileged: true, allowedCapabilities: ["*"], volumes: ["*"], hostNetwork: true, hostPorts: [{ min: 0, max: 65535 }], hostPID: true, hostIPC: true,
    seLinux: anyRule, runAsUser: anyRule, fsGroup: anyRule, supplementalGroups: anyRule,
  },
};
const ranged = {
  metadata: { name: "ranged" },
  spec: { volumes: ["*"], seLinux: { rule: "MustRunAs", seLinuxOptions: { level: "s0:c1,c2" } }, runAsUser: { rule: "MustRunAs", ranges: [{ min: 1000, max: 1999 }] }, fsGroup: anyRule, supplementalGroups: anyRule },
};

const as = (user: string) => ({ "Impersonate-User": user });
const pod = (name: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}) => ({
  apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "busybox", ...container }], ...spec },
});
const create = (user: string | undefined, body: object) => s.call("POST", `/api/v1/namespaces/${NS}/pods`, body, user ? as(user) : undefined);
const refusal = (name: string, errors: string[]) => `pods "${name}" is forbidden: unable to validate against any pod security policy: [${errors.join(" ")}]`;

async function setUp() {
  if ((await s.call("GET", `${PSP}/restricted`)).status === 200) return;
  for (const p of [restricted, unrestricted, ranged]) expectCode(await s.call("POST", PSP, p), 201, `create PSP ${p.metadata.name}`);
  for (const sa of ["builder", "ranged"]) expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: sa } }), 201, `create SA ${sa}`);
  const roles: [string, object[]][] = [
    ["pod-writer", [rule(["create", "get", "update"], [""], ["pods"])]],
    ...["restricted", "unrestricted", "ranged"].map((p): [string, object[]] => [`psp-${p}`, [rule(["use"], ["policy"], ["podsecuritypolicies"], [p])]]),
  ];
  for (const [name, rules] of roles) expectCode(await s.call("POST", `${RBAC}/clusterroles`, clusterRole(name, rules)), 201, `role ${name}`);
  const bindings: [string, string, object[]][] = [
    ["writers", "pod-writer", [subject("User", "alice"), subject("User", "bob")]],
    ["alice-restricted", "psp-restricted", [subject("User", "alice")]],
    ["builder-unrestricted", "psp-unrestricted", [subject("ServiceAccount", "builder", NS)]],
    ["ranged-ranged", "psp-ranged", [subject("ServiceAccount", "ranged", NS)]],
  ];
  for (const [name, role, subjects] of bindings) {
    expectCode(await s.call("POST", `${RBAC}/namespaces/${NS}/rolebindings`, bindingBody(name, roleRef("ClusterRole", role), subjects)), 201, `binding ${name}`);
  }
}

describe("PodSecurityPolicy admission", () => {
  test("a policy's allowPrivilegeEscalation defaults to true", async () => {
    await setUp();
    expect((await s.call("GET", `${PSP}/unrestricted`)).body.spec.allowPrivilegeEscalation).toBe(true);
  });

  test("alice's pod is defaulted by the policy she may use and names it", async () => {
    await setUp();
    const r = await create("alice", pod("alice-plain"));
    expectCode(r, 201, "alice creates a plain pod");
    expect(r.body.metadata.annotations["kubernetes.io/psp"]).toBe("restricted");
    expect(r.body.metadata.annotations["seccomp.security.alpha.kubernetes.io/pod"]).toBe("runtime/default");
    expect(r.body.metadata.annotations["container.apparmor.security.beta.kubernetes.io/c"]).toBe("runtime/default");
    expect(r.body.spec.securityContext).toMatchObject({ fsGroup: 1000, supplementalGroups: [500], seccompProfile: { type: "RuntimeDefault" } });
    expect(r.body.spec.containers[0].securityContext).toEqual({ runAsNonRoot: true, capabilities: { drop: ["NET_RAW"] }, allowPrivilegeEscalation: false });
    // an update is checked against the named policy, and passes
    const cur = r.body;
    cur.metadata.labels = { app: "web" };
    expectCode(await s.call("PUT", `/api/v1/namespaces/${NS}/pods/alice-plain`, cur, as("alice")), 200, "alice labels her pod");
  });

  test("what the usable policies refuse is listed; a policy she may not use does not count", async () => {
    await setUp();
    const priv = await create("alice", pod("alice-priv", {}, { securityContext: { privileged: true } }));
    expect(expectStatus(priv, 403, "Forbidden", "alice's privileged pod").message)
      .toBe(refusal("alice-priv", ["spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed"]));
    const many = pod("alice-many", { hostNetwork: true, volumes: [{ name: "etc", hostPath: { path: "/etc" } }] }, {
      ports: [{ containerPort: 9000, hostPort: 9000 }], securityContext: { runAsUser: 0, capabilities: { add: ["SYS_ADMIN"] } }, volumeMounts: [{ name: "etc", mountPath: "/h" }],
    });
    expect(expectStatus(await create("alice", many), 403, "Forbidden", "alice's pod asking for much").message).toBe(refusal("alice-many", [
      "spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used",
      `spec.volumes[0].hostPath.pathPrefix: Invalid value: "/etc": is not allowed to be used`,
      "spec.containers[0].securityContext.runAsUser: Invalid value: 0: running with the root UID is forbidden",
      `spec.containers[0].securityContext.capabilities.add: Invalid value: "SYS_ADMIN": capability may not be added`,
      "spec.containers[0].hostPort: Invalid value: 9000: Host port 9000 is not allowed to be used. Allowed ports: [8000-8080]",
    ]));
    const sysctls = pod("alice-sysctls", { securityContext: { sysctls: [{ name: "net.ipv4.tcp_syncookies", value: "1" }, { name: "kernel.msgmax", value: "65536" }, { name: "net.core.somaxconn", value: "1024" }] } });
    expect(expectStatus(await create("alice", sysctls), 403, "Forbidden", "sysctls").message).toBe(refusal("alice-sysctls", [
      `pod.spec.securityContext.sysctls[1]: Forbidden: unsafe sysctl "kernel.msgmax" is not allowed`,
      `pod.spec.securityContext.sysctls[2]: Forbidden: sysctl "net.core.somaxconn" is not allowed`,
    ]));
    const unconfined = pod("alice-unconfined", {}, { securityContext: { seccompProfile: { type: "Unconfined" } } });
    expect(expectStatus(await create("alice", unconfined), 403, "Forbidden", "an unconfined container").message).toBe(refusal("alice-unconfined", [
      "pod.metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: Forbidden: unconfined is not an allowed seccomp profile. Valid values are runtime/default",
    ]));
    const apparmor: any = pod("alice-apparmor");
    apparmor.metadata.annotations = { "container.apparmor.security.beta.kubernetes.io/c": "unconfined" };
    expect(expectStatus(await create("alice", apparmor), 403, "Forbidden", "an unconfined AppArmor profile").message).toBe(refusal("alice-apparmor", [
      `pod.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: Forbidden: unconfined is not an allowed profile. Allowed values: "runtime/default"`,
    ]));
    const writable = pod("alice-logs", { volumes: [{ name: "logs", hostPath: { path: "/var/log/app" } }] }, { volumeMounts: [{ name: "logs", mountPath: "/logs" }] });
    expect(expectStatus(await create("alice", writable), 403, "Forbidden", "a writable allowed host path").message)
      .toBe(refusal("alice-logs", ["spec.containers[0].volumeMounts[0].readOnly: Invalid value: false: must be read-only"]));
    (writable.spec.containers[0] as any).volumeMounts[0].readOnly = true;
    expectCode(await create("alice", writable), 201, "a read-only allowed host path");
  });

  test("the pod's ServiceAccount may use a policy the user may not", async () => {
    await setUp();
    const r = await create("alice", pod("built", { serviceAccountName: "builder" }, { securityContext: { privileged: true } }));
    expectCode(r, 201, "a privileged pod as builder");
    expect(r.body.metadata.annotations["kubernetes.io/psp"]).toBe("unrestricted");
    const bob = await create("bob", pod("bob-ranged", { serviceAccountName: "ranged" }));
    expectCode(bob, 201, "bob's pod as ranged");
    expect(bob.body.metadata.annotations["kubernetes.io/psp"]).toBe("ranged");
    expect(bob.body.spec.containers[0].securityContext).toEqual({ runAsUser: 1000 });
    expect(bob.body.spec.securityContext.seLinuxOptions).toEqual({ level: "s0:c1,c2" });
    const level = await create("bob", pod("bob-level", { serviceAccountName: "ranged", securityContext: { seLinuxOptions: { level: "s0:c2,c1" } } }, { securityContext: { seLinuxOptions: { level: "s0:c3" } } }));
    expect(expectStatus(level, 403, "Forbidden", "another SELinux level").message)
      .toBe(refusal("bob-level", [`spec.containers[0].securityContext.seLinuxOptions.level: Invalid value: "s0:c3": must be s0:c1,c2`]));
    expect(expectStatus(await create("bob", pod("bob-five", { serviceAccountName: "ranged" }, { securityContext: { runAsUser: 5 } })), 403, "Forbidden", "uid 5").message)
      .toBe(refusal("bob-five", ["spec.containers[0].securityContext.runAsUser: Invalid value: 5: must be in the ranges: [{1000 1999}]"]));
  });

  test("no usable policy: 403 with nothing listed; a policy that admits unchanged wins over one that defaults", async () => {
    await setUp();
    expect(expectStatus(await create("bob", pod("bob-plain")), 403, "Forbidden", "bob without policies").message).toBe(refusal("bob-plain", []));
    // the admin may use every policy: "restricted" sorts first but would change the pod
    const r = await create(undefined, pod("admin-plain"));
    expectCode(r, 201, "the admin's plain pod");
    expect(r.body.metadata.annotations["kubernetes.io/psp"]).toBe("unrestricted");
    expect(r.body.spec.containers[0].securityContext).toBeUndefined();
  });
});
