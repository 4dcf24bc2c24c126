// Stock kubectl against a real `kite apiserver`: client-side `kubectl apply -f` (last-applied annotation,
// strategic merge patches), `kubectl apply --server-side` (field managers, conflicts, --force-conflicts),
// `kubectl patch --type=merge|json|strategic`, `kubectl diff -f` and `kubectl create --dry-run=server -f`,
// for a ConfigMap, a Deployment with two containers and a Service with two ports (issue 4, item 4).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { kubectl as runKubectl, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(60_000);

const NS = "kubectl-apply";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const HAS_KUBECTL = !!Bun.which("kubectl");

let s: TestServer;

beforeAll(async () => {
  s = await startServer();
  const r = await s.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  if (r.status !== 201) throw new Error(`create namespace: ${r.status} ${JSON.stringify(r.body)}`);
}, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

type Run = { code: number; out: string; err: string };
/** kubectl in the test namespace; stdin is the manifest for `-f -`. */
const kubectl = (args: string[], stdin?: string): Promise<Run> => runKubectl(s, ["-n", NS, ...args], stdin);
/** Fails with the whole command output unless kubectl exited 0. */
async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}\nstdout: ${r.out}\nstderr: ${r.err}`);
  return r.out;
}
const apply = (manifest: string, ...flags: string[]) => ok(["apply", ...flags, "-f", "-"], manifest);

const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const SVC = `/api/v1/namespaces/${NS}/services`;
async function get(path: string): Promise<any> {
  const r = await s.call("GET", path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
const managers = (o: any) => (o.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.operation}`).sort();
const ownsData = (o: any, manager: string, key: string) =>
  (o.metadata.managedFields ?? []).some((e: any) => e.manager === manager && Object.hasOwn(e.fieldsV1?.["f:data"] ?? {}, `f:${key}`));

const configMap = (name: string, data: Record<string, string>) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`).join("\n")}
`;

interface C { name: string; image: string; env?: [string, string][] }
const deployment = (name: string, containers: C[], replicas = 2) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels: {app: ${name}}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
${containers.map((c) => `      - name: ${c.name}
        image: ${c.image}${c.env ? `
        env:
${c.env.map(([k, v]) => `        - name: ${k}
          value: "${v}"`).join("\n")}` : ""}`).join("\n")}
`;

interface P { name: string; port: number; targetPort: number }
const service = (name: string, ports: P[]) => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector: {app: ${name}}
  ports:
${ports.map((p) => `  - name: ${p.name}
    port: ${p.port}
    targetPort: ${p.targetPort}
    protocol: TCP`).join("\n")}
`;

const containers = (d: any) => d.spec.template.spec.containers.map((c: any) => ({ name: c.name, image: c.image, ...(c.env ? { env: c.env } : {}) }));
const ports = (svc: any) => svc.spec.ports.map((p: any) => ({ name: p.name, port: p.port, targetPort: p.targetPort, protocol: p.protocol }));

const TWO_CONTAINERS: C[] = [
  { name: "web", image: "nginx:1.20", env: [["MODE", "prod"], ["LEVEL", "info"]] },
  { name: "sidecar", image: "busybox:1.33" },
];
const ONE_CONTAINER: C[] = [{ name: "web", image: "nginx:1.21", env: [["MODE", "staging"], ["EXTRA", "yes"]] }];
const TWO_PORTS: P[] = [{ name: "http", port: 80, targetPort: 8080 }, { name: "https", port: 443, targetPort: 8443 }];
const CHANGED_PORTS: P[] = [{ name: "https", port: 443, targetPort: 9443 }, { name: "metrics", port: 9090, targetPort: 9090 }];

describe.skipIf(!HAS_KUBECTL)("kubectl apply (client-side)", () => {
  test("ConfigMap: created with the last-applied annotation; unchanged; configured by a strategic merge patch", async () => {
    expect(await apply(configMap("csa-cm", { color: "blue", size: "large" }))).toBe("configmap/csa-cm created\n");
    const cm = await get(`${CM}/csa-cm`);
    expect(cm.data).toEqual({ color: "blue", size: "large" });
    const last = JSON.parse(cm.metadata.annotations[LAST_APPLIED]);
    expect(last).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "csa-cm", namespace: NS }, data: { color: "blue", size: "large" } });
    expect(managers(cm)).toEqual(["kubectl-client-side-apply/Update"]);

    expect(await apply(configMap("csa-cm", { color: "blue", size: "large" }))).toBe("configmap/csa-cm unchanged\n");
    expect((await get(`${CM}/csa-cm`)).metadata.resourceVersion).toBe(cm.metadata.resourceVersion);

    // Someone else adds a key; the applier changes one, drops one, adds one: the other writer's key stays.
    await ok(["patch", "configmap", "csa-cm", "--type=merge", "-p", '{"data":{"owner":"ops"}}']);
    expect(await apply(configMap("csa-cm", { color: "red", shape: "round" }))).toBe("configmap/csa-cm configured\n");
    const after = await get(`${CM}/csa-cm`);
    expect(after.data).toEqual({ color: "red", shape: "round", owner: "ops" });
    expect(JSON.parse(after.metadata.annotations[LAST_APPLIED]).data).toEqual({ color: "red", shape: "round" });
  });

  test("Deployment with two containers: edit one container's image and env, remove the other", async () => {
    expect(await apply(deployment("csa-dep", TWO_CONTAINERS))).toBe("deployment.apps/csa-dep created\n");
    const d = await get(`${DEP}/csa-dep`);
    expect(containers(d)).toEqual([
      { name: "web", image: "nginx:1.20", env: [{ name: "MODE", value: "prod" }, { name: "LEVEL", value: "info" }] },
      { name: "sidecar", image: "busybox:1.33" },
    ]);
    expect(d.metadata.annotations[LAST_APPLIED]).toBeTruthy();

    expect(await apply(deployment("csa-dep", ONE_CONTAINER))).toBe("deployment.apps/csa-dep configured\n");
    const after = await get(`${DEP}/csa-dep`);
    expect(containers(after)).toEqual([{ name: "web", image: "nginx:1.21", env: [{ name: "MODE", value: "staging" }, { name: "EXTRA", value: "yes" }] }]);
    expect(after.spec.replicas).toBe(2);
    expect(after.metadata.generation).toBe(2);
    expect(await apply(deployment("csa-dep", ONE_CONTAINER))).toBe("deployment.apps/csa-dep unchanged\n");
  });

  test("Service with two ports: change one, drop one, add one", async () => {
    expect(await apply(service("csa-svc", TWO_PORTS))).toBe("service/csa-svc created\n");
    const svc = await get(`${SVC}/csa-svc`);
    expect(ports(svc)).toEqual(TWO_PORTS.map((p) => ({ ...p, protocol: "TCP" })));
    expect(await apply(service("csa-svc", CHANGED_PORTS))).toBe("service/csa-svc configured\n");
    const after = await get(`${SVC}/csa-svc`);
    expect(ports(after)).toEqual(CHANGED_PORTS.map((p) => ({ ...p, protocol: "TCP" })));
    expect(after.spec.clusterIP).toBe(svc.spec.clusterIP);
  });
});

describe.skipIf(!HAS_KUBECTL)("kubectl apply --server-side", () => {
  test("ConfigMap: two field managers conflict; --force-conflicts takes the field over", async () => {
    expect(await apply(configMap("ssa-cm", { color: "blue", size: "large" }), "--server-side")).toBe("configmap/ssa-cm serverside-applied\n");
    const cm = await get(`${CM}/ssa-cm`);
    expect(managers(cm)).toEqual(["kubectl/Apply"]);
    expect(ownsData(cm, "kubectl", "color") && ownsData(cm, "kubectl", "size")).toBe(true);

    // A second manager that wants another color conflicts, and nothing changes.
    const conflict = await kubectl(["apply", "--server-side", "--field-manager=team-b", "-f", "-"], configMap("ssa-cm", { color: "green" }));
    expect(conflict.code).not.toBe(0);
    expect(conflict.err).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.color');
    expect((await get(`${CM}/ssa-cm`)).metadata.resourceVersion).toBe(cm.metadata.resourceVersion);

    // The same value is no conflict: ownership is shared.
    expect(await apply(configMap("ssa-cm", { size: "large" }), "--server-side", "--field-manager=team-b")).toBe("configmap/ssa-cm serverside-applied\n");
    expect(ownsData(await get(`${CM}/ssa-cm`), "team-b", "size")).toBe(true);

    // --force-conflicts: team-b takes color from kubectl.
    expect(await apply(configMap("ssa-cm", { color: "green", size: "large" }), "--server-side", "--field-manager=team-b", "--force-conflicts")).toBe("configmap/ssa-cm serverside-applied\n");
    const forced = await get(`${CM}/ssa-cm`);
    expect(forced.data).toEqual({ color: "green", size: "large" });
    expect(ownsData(forced, "team-b", "color")).toBe(true);
    expect(ownsData(forced, "kubectl", "color")).toBe(false);

    // Now kubectl's unchanged config conflicts with team-b.
    const back = await kubectl(["apply", "--server-side", "-f", "-"], configMap("ssa-cm", { color: "blue", size: "large" }));
    expect(back.code).not.toBe(0);
    expect(back.err).toContain('conflict with "team-b": .data.color');

    // kubectl drops size: team-b still owns it, so it stays; team-b drops it: it goes.
    await apply(configMap("ssa-cm", { color: "green", extra: "1" }), "--server-side");
    expect((await get(`${CM}/ssa-cm`)).data).toEqual({ color: "green", size: "large", extra: "1" });
    await apply(configMap("ssa-cm", { color: "green" }), "--server-side", "--field-manager=team-b");
    expect((await get(`${CM}/ssa-cm`)).data).toEqual({ color: "green", extra: "1" });
  });

  test("Deployment with two containers: edit one container's image and env, remove the other", async () => {
    expect(await apply(deployment("ssa-dep", TWO_CONTAINERS), "--server-side")).toBe("deployment.apps/ssa-dep serverside-applied\n");
    expect(containers(await get(`${DEP}/ssa-dep`)).map((c: any) => c.name)).toEqual(["web", "sidecar"]);
    expect(await apply(deployment("ssa-dep", ONE_CONTAINER), "--server-side")).toBe("deployment.apps/ssa-dep serverside-applied\n");
    const after = await get(`${DEP}/ssa-dep`);
    expect(containers(after)).toEqual([{ name: "web", image: "nginx:1.21", env: [{ name: "MODE", value: "staging" }, { name: "EXTRA", value: "yes" }] }]);
    expect(after.metadata.generation).toBe(2);

    // Another manager changing the image conflicts; with --force-conflicts it wins.
    const other = deployment("ssa-dep", [{ name: "web", image: "nginx:1.22" }]);
    const c = await kubectl(["apply", "--server-side", "--field-manager=release-bot", "-f", "-"], other);
    expect(c.code).not.toBe(0);
    expect(c.err).toContain('conflict with "kubectl": .spec.template.spec.containers[name="web"].image');
    await apply(other, "--server-side", "--field-manager=release-bot", "--force-conflicts");
    const won = await get(`${DEP}/ssa-dep`);
    expect(won.spec.template.spec.containers[0].image).toBe("nginx:1.22");
    expect(won.spec.template.spec.containers[0].env).toEqual([{ name: "MODE", value: "staging" }, { name: "EXTRA", value: "yes" }]);
  });

  test("Service with two ports: change one, drop one, add one", async () => {
    expect(await apply(service("ssa-svc", TWO_PORTS), "--server-side")).toBe("service/ssa-svc serverside-applied\n");
    expect(await apply(service("ssa-svc", CHANGED_PORTS), "--server-side")).toBe("service/ssa-svc serverside-applied\n");
    expect(ports(await get(`${SVC}/ssa-svc`))).toEqual(CHANGED_PORTS.map((p) => ({ ...p, protocol: "TCP" })));
  });

  test("apply --dry-run=server stores nothing", async () => {
    expect(await apply(configMap("ssa-dry", { a: "1" }), "--server-side", "--dry-run=server")).toBe("configmap/ssa-dry serverside-applied (server dry run)\n");
    expect((await s.call("GET", `${CM}/ssa-dry`)).status).toBe(404);
  });
});

describe.skipIf(!HAS_KUBECTL)("kubectl patch", () => {
  test("--type=merge, --type=json and --type=strategic (the default)", async () => {
    await apply(configMap("patched", { a: "1", b: "2" }));
    expect(await ok(["patch", "configmap", "patched", "--type=merge", "-p", '{"data":{"a":null,"c":"3"}}'])).toBe("configmap/patched patched\n");
    expect((await get(`${CM}/patched`)).data).toEqual({ b: "2", c: "3" });

    expect(await ok(["patch", "configmap", "patched", "--type=json", "-p", '[{"op":"test","path":"/data/b","value":"2"},{"op":"replace","path":"/data/b","value":"20"}]'])).toBe("configmap/patched patched\n");
    expect((await get(`${CM}/patched`)).data).toEqual({ b: "20", c: "3" });

    // A failing test op: kubectl reports the server's error and nothing changes.
    const rv = (await get(`${CM}/patched`)).metadata.resourceVersion;
    const bad = await kubectl(["patch", "configmap", "patched", "--type=json", "-p", '[{"op":"test","path":"/data/b","value":"nope"},{"op":"remove","path":"/data/c"}]']);
    expect(bad.code).not.toBe(0);
    // A 422 Invalid without causes: kubectl prints "The request is invalid: <message>".
    expect(bad.err).toMatch(/The request is invalid|Error from server/);
    expect((await get(`${CM}/patched`)).metadata.resourceVersion).toBe(rv);

    // A patch that changes nothing.
    expect(await ok(["patch", "configmap", "patched", "--type=merge", "-p", '{"data":{"b":"20"}}'])).toBe("configmap/patched patched (no change)\n");

    await apply(deployment("patched", TWO_CONTAINERS));
    const smp = '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"LEVEL","$patch":"delete"}]},{"name":"sidecar","image":"busybox:1.34"}]}}}}';
    expect(await ok(["patch", "deployment", "patched", "-p", smp])).toBe("deployment.apps/patched patched\n");
    expect(containers(await get(`${DEP}/patched`))).toEqual([
      { name: "web", image: "nginx:1.20", env: [{ name: "MODE", value: "prod" }] },
      { name: "sidecar", image: "busybox:1.34" },
    ]);
    expect(await ok(["patch", "deployment", "patched", "--type=strategic", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}'])).toBe("deployment.apps/patched patched\n");
    expect(containers(await get(`${DEP}/patched`)).map((c: any) => c.name)).toEqual(["web"]);

    await apply(service("patched", TWO_PORTS));
    await ok(["patch", "service", "patched", "-p", '{"spec":{"ports":[{"port":443,"targetPort":9443}]}}']);
    expect(ports(await get(`${SVC}/patched`))).toEqual([
      { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
      { name: "https", port: 443, targetPort: 9443, protocol: "TCP" },
    ]);
  });

  test("--subresource=status patches only the status", async () => {
    await apply(deployment("status-patched", TWO_CONTAINERS));
    await ok(["patch", "deployment", "status-patched", "--subresource=status", "--type=merge", "-p", '{"spec":{"replicas":9},"status":{"observedGeneration":1,"replicas":2}}']);
    const d = await get(`${DEP}/status-patched`);
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 2 });
    expect(d.spec.replicas).toBe(2);
  });
});

describe.skipIf(!HAS_KUBECTL)("kubectl diff", () => {
  test("exit 1 with a diff when the manifest differs, 0 and no output when it matches; nothing is changed", async () => {
    const manifest = configMap("diffed", { a: "1", b: "2" });
    await apply(manifest);
    const before = await get(`${CM}/diffed`);

    const same = await kubectl(["diff", "-f", "-"], manifest);
    expect(same.err.split("\n").filter((l) => l && !l.startsWith("WARNING: version difference")).join("\n")).toBe("");
    expect(same.out).toBe("");
    expect(same.code).toBe(0);

    const changed = await kubectl(["diff", "-f", "-"], configMap("diffed", { a: "10", c: "3" }));
    expect(changed.code).toBe(1);
    expect(changed.out).toContain('-  a: "1"');
    expect(changed.out).toContain('+  a: "10"');
    expect(changed.out).toContain('-  b: "2"');
    expect(changed.out).toContain('+  c: "3"');
    expect(await get(`${CM}/diffed`)).toEqual(before);

    // A Deployment edit shows up in the diff too, and is not applied.
    await apply(deployment("diffed", TWO_CONTAINERS));
    const dep = await get(`${DEP}/diffed`);
    const d = await kubectl(["diff", "-f", "-"], deployment("diffed", ONE_CONTAINER));
    expect(d.code).toBe(1);
    expect(d.out).toContain("+        image: nginx:1.21");
    expect(d.out).toContain("-      - image: busybox:1.33");
    expect(await get(`${DEP}/diffed`)).toEqual(dep);

    // An object that does not exist yet diffs as wholly new.
    const fresh = await kubectl(["diff", "-f", "-"], configMap("diffed-new", { a: "1" }));
    expect(fresh.code).toBe(1);
    expect(fresh.out).toContain("+  name: diffed-new");
    expect((await s.call("GET", `${CM}/diffed-new`)).status).toBe(404);
  });

  test("--server-side diff", async () => {
    const manifest = configMap("diffed-ssa", { a: "1" });
    await apply(manifest, "--server-side");
    const same = await kubectl(["diff", "--server-side", "-f", "-"], manifest);
    expect(same.out).toBe("");
    expect(same.code).toBe(0);
    const changed = await kubectl(["diff", "--server-side", "-f", "-"], configMap("diffed-ssa", { a: "2" }));
    expect(changed.code).toBe(1);
    expect(changed.out).toContain('+  a: "2"');
    expect((await get(`${CM}/diffed-ssa`)).data).toEqual({ a: "1" });
  });
});

describe.skipIf(!HAS_KUBECTL)("kubectl create --dry-run=server", () => {
  test("prints the server's answer and stores nothing", async () => {
    const out = await ok(["create", "--dry-run=server", "-f", "-"], configMap("dry-created", { a: "1" }));
    expect(out).toBe("configmap/dry-created created (server dry run)\n");
    expect((await s.call("GET", `${CM}/dry-created`)).status).toBe(404);
    const yaml = await ok(["create", "--dry-run=server", "-o", "jsonpath={.metadata.name} {.data.a} {.metadata.uid}", "-f", "-"], configMap("dry-created", { a: "1" }));
    expect(yaml).toMatch(/^dry-created 1 [0-9a-f-]{36}$/);
    const d = await ok(["create", "--dry-run=server", "-f", "-"], deployment("dry-created", TWO_CONTAINERS));
    expect(d).toBe("deployment.apps/dry-created created (server dry run)\n");
    expect((await s.call("GET", `${DEP}/dry-created`)).status).toBe(404);
  });

  test("an object that exists fails as the real create would (AlreadyExists)", async () => {
    await apply(configMap("dry-existing", { a: "1" }));
    const r = await kubectl(["create", "--dry-run=server", "-f", "-"], configMap("dry-existing", { a: "2" }));
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("AlreadyExists");
    expect((await get(`${CM}/dry-existing`)).data).toEqual({ a: "1" });
  });
});
