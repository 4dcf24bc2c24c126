// Issue 13 items 5, 6 and 8 with stock kubectl: `kubectl describe` (which lists the object's events with an
// involvedObject field selector) and `kubectl events --for` on every kubectl build found, the order
// strategic merge patches leave lists in (`kubectl patch`, `kubectl apply`), and the commands that send
// DeleteOptions as protobuf (`kubectl drain --dry-run=server`, `kubectl debug --replace`); and the Python
// dynamic client's server-side apply with `force=True`.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(60_000);

const SDK_BIN = "/usr/lib/google-cloud-sdk/bin";
/** Debian's kubernetes-client 1.20, unpacked beside the system's kubectl by .ci/run. */
const KUBECTL_1_20 = process.env.KUBECTL_1_20 ?? "/opt/kubernetes-client-1.20/usr/bin/kubectl";
/** kubectl on PATH, then every versioned build next to it (kubectl.1.27 ... kubectl.1.33). */
const BUILDS = ["kubectl", ...(existsSync(SDK_BIN) ? readdirSync(SDK_BIN).filter((f) => /^kubectl\.1\.\d+$/.test(f)).map((f) => join(SDK_BIN, f)) : [])];

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

async function run(bin: string, args: string[], stdin?: string) {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: stdin ? new Blob([stdin]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`\`${bin.split("/").pop()} ${args.join(" ")}\` exited ${code}\nstdout: ${out}\nstderr: ${err}`);
  return out;
}

const containersOf = async (deployment: string): Promise<string[]> =>
  JSON.parse(await run("kubectl", ["get", "deployment", deployment, "-o", "json"])).spec.template.spec.containers.map((c: any) => c.name);

describe("events of an object", () => {
  let uid = "";
  beforeAll(async () => {
    await run("kubectl", ["run", "web", "--image=nginx:1.21", "--restart=Never"]);
    uid = JSON.parse(await run("kubectl", ["get", "pod", "web", "-o", "json"])).metadata.uid;
    const event = (name: string, reason: string, message: string, objUid: string) => JSON.stringify({
      apiVersion: "v1", kind: "Event", metadata: { name },
      involvedObject: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "default", uid: objUid },
      reason, message, type: "Normal", source: { component: "kite-e2e" },
      firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"), lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"), count: 1,
    });
    await run("kubectl", ["create", "-f", "-"], event("web.1", "Scheduled", "assigned default/web to node-1", uid));
    // an event of an earlier pod of the same name: describe (which selects on the uid) leaves it out
    await run("kubectl", ["create", "-f", "-"], event("web.old", "Killing", "stopping the old web", "uid-of-an-older-web"));
  });

  for (const bin of [KUBECTL_1_20, ...BUILDS]) {
    const label = bin === KUBECTL_1_20 ? "kubectl 1.20" : bin.split("/").pop()!;
    test(`${label}: describe pod lists the pod's events`, async () => {
      const out = await run(bin, ["describe", "pod", "web"]);
      const events = out.slice(out.indexOf("\nEvents:"));
      expect(events).toContain("Scheduled");
      expect(events).toContain("assigned default/web to node-1");
      expect(events).not.toContain("stopping the old web");
    });

    // `kubectl events` came with 1.26
    if (bin !== KUBECTL_1_20) test(`${label}: events --for pod/web`, async () => {
      const out = await run(bin, ["events", "--for", "pod/web"]);
      expect(out).toContain("assigned default/web to node-1");
      expect(out).toContain("Pod/web");
      expect(out).toContain("stopping the old web");
    });
  }
});

describe("strategic merge patch list order", () => {
  const deployment = (containers: string[]) => JSON.stringify({
    apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "order" },
    spec: {
      selector: { matchLabels: { app: "order" } },
      template: { metadata: { labels: { app: "order" } }, spec: { containers: containers.map((name) => ({ name, image: "busybox:1.36" })) } },
    },
  });

  test("kubectl apply appends a new container after the existing ones ($setElementOrder)", async () => {
    await run("kubectl", ["apply", "-f", "-"], deployment(["nginx"]));
    await run("kubectl", ["apply", "-f", "-"], deployment(["nginx", "sidecar"]));
    expect(await containersOf("order")).toEqual(["nginx", "sidecar"]);
    await run("kubectl", ["apply", "-f", "-"], deployment(["sidecar", "nginx"]));
    expect(await containersOf("order")).toEqual(["sidecar", "nginx"]);
  });

  test("kubectl patch without an order puts the patch's items first, as upstream's merge does", async () => {
    await run("kubectl", ["apply", "-f", "-"], deployment(["nginx"]));
    await run("kubectl", ["patch", "deployment", "order", "-p", JSON.stringify({ spec: { template: { spec: { containers: [{ name: "redis", image: "redis:6" }] } } } })]);
    expect(await containersOf("order")).toEqual(["redis", "nginx"]);
    // with $setElementOrder the client says where the new item goes
    await run("kubectl", ["patch", "deployment", "order", "-p", JSON.stringify({
      spec: { template: { spec: { "$setElementOrder/containers": [{ name: "redis" }, { name: "nginx" }, { name: "tail" }], containers: [{ name: "tail", image: "busybox:1.36" }] } } },
    })]);
    expect(await containersOf("order")).toEqual(["redis", "nginx", "tail"]);
  });
});

describe("DeleteOptions in protobuf", () => {
  test("kubectl drain --dry-run=server selects the node's pods and deletes none", async () => {
    await run("kubectl", ["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: "drained" } }));
    for (const name of ["on-drained-1", "on-drained-2"]) {
      await run("kubectl", ["create", "-f", "-"], JSON.stringify({
        apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: "drained", containers: [{ name: "c", image: "nginx:1.21" }] },
      }));
    }
    // With --disable-eviction kubectl deletes (a dry run, DeleteOptions in protobuf), then waits for pods no
    // dry run removes: the wait running out means every delete was accepted. (Evictions are
    // test/controllers/disruption.test.ts's.)
    const p = Bun.spawn(["kubectl", `--kubeconfig=${s.kubeconfig}`, "drain", "drained", "--dry-run=server", "--force", "--disable-eviction", "--timeout=3s"], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(out).toContain("node/drained cordoned (server dry run)");
    expect(err).not.toContain("DeleteOptions");
    expect(err).toContain(`There are pending pods in node "drained" when an error occurred: context deadline exceeded\npod/on-drained-1\npod/on-drained-2`);
    const pods = JSON.parse(await run("kubectl", ["get", "pods", "--field-selector", "spec.nodeName=drained", "-o", "json"])).items;
    expect(pods.map((x: any) => x.metadata.name).sort()).toEqual(["on-drained-1", "on-drained-2"]);
    expect(JSON.parse(await run("kubectl", ["get", "node", "drained", "-o", "json"])).spec?.unschedulable).toBeUndefined();
  });

  test("kubectl debug --copy-to --replace deletes the original", async () => {
    await run("kubectl", ["run", "debugged", "--image=nginx:1.21", "--restart=Never"]);
    await run("kubectl", ["debug", "debugged", "--copy-to=debugged-copy", "--replace", "--image=busybox:1.36", "--container=debugger"]);
    const names = JSON.parse(await run("kubectl", ["get", "pods", "-o", "json"])).items.map((p: any) => p.metadata.name);
    expect(names).toContain("debugged-copy");
    expect(names).not.toContain("debugged");
  });
});

describe("the Python client's force=True", () => {
  const APPLY_PY = join(import.meta.dir, "clients", "apply.py");
  async function apply(manager: string, value: string, force: boolean) {
    const p = Bun.spawn(["/usr/bin/python3", APPLY_PY, s.kubeconfig, "default", "py-applied", manager, value, force ? "yes" : "no"], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`apply.py exited ${code}: ${out}${err}`);
    return JSON.parse(out);
  }

  test("server_side_apply(force_conflicts=True) takes over a field another manager owns", async () => {
    expect(await apply("first", "1", false)).toEqual({ data: { k: "1" } });
    expect(await apply("second", "2", false)).toMatchObject({ status: 409 });
    expect(await apply("second", "2", true)).toEqual({ data: { k: "2" } });
  });
});
