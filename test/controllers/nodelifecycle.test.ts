// The node lifecycle controller against a real server and `kite controller-manager` with short grace periods,
// the test playing the kubelets (each node's Lease in kube-node-lease and its Ready condition): a node whose
// Lease stops being renewed goes Unknown with upstream's reason and message, its pods are marked not Ready,
// it is tainted unreachable (NoSchedule and NoExecute), its pods are evicted as their tolerations say, and
// once renewed and Ready again it loses the taints; a node that never posts status, one NotReady, and no
// evictions when every node is silent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startControllerManager } from "../helpers/controllers.ts";
import { until, type TestComponent } from "../helpers/component.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";
const PODS = "/api/v1/namespaces/default/pods";
const GRACE_MS = 2000;
let s: TestServer, cm: TestComponent;
/** The nodes whose Lease the test renews. */
const alive = new Set<string>();
/** When each node's last renewal was sent (no later than the server stored it). */
const renewedAt = new Map<string, number>();
let renewing = true;
let renewals: Promise<void>;

const stamp = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const micro = () => new Date().toISOString().replace(/Z$/, "000Z");

/** A Node whose kubelet posts `ready` now (null: no status), with its Lease, renewed by the test from now on. */
async function kubeletNode(name: string, ready: "True" | "False" | null = "True"): Promise<void> {
  const t = stamp();
  const status = ready ? { conditions: [{ type: "Ready", status: ready, reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: t, lastTransitionTime: t }] } : {};
  expect((await s.call("POST", "/api/v1/nodes", { metadata: { name }, status })).status).toBe(201);
  expect((await s.call("POST", LEASES, { metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() } })).status).toBe(201);
  alive.add(name);
}

async function postReady(name: string): Promise<void> {
  const t = stamp();
  const r = await s.call("PATCH", `/api/v1/nodes/${name}/status`, { status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: t, lastTransitionTime: t }] } }, { "content-type": "application/merge-patch+json" });
  expect(r.status).toBe(200);
}

const node = async (name: string) => (await s.call("GET", `/api/v1/nodes/${name}`)).body;
const condition = (n: any, type: string) => (n.status?.conditions ?? []).find((c: any) => c.type === type);
const taints = (n: any) => (n.spec?.taints ?? []).map((t: any) => `${t.key}:${t.effect}`).sort();
const events = async (name: string) => ((await s.call("GET", "/apis/events.k8s.io/v1/events")).body.items as any[]).filter((e) => e.regarding?.name === name);

/** A Running, Ready pod bound to `nodeName`, with `tolerations`. */
async function boundPod(name: string, nodeName: string, tolerations?: unknown[]): Promise<void> {
  const r = await s.call("POST", PODS, { metadata: { name }, spec: { nodeName, ...(tolerations ? { tolerations } : {}), containers: [{ name: "c", image: "img" }] } });
  expect(r.status).toBe(201);
  const t = stamp();
  const st = await s.call("PATCH", `${PODS}/${name}/status`, { status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: t }] } }, { "content-type": "application/merge-patch+json" });
  expect(st.status).toBe(200);
}

/** The pod once it is being deleted or gone; undefined while it stays. */
const deleted = async (name: string) => {
  const r = await s.call("GET", `${PODS}/${name}`);
  return r.status === 404 || r.body.metadata.deletionTimestamp ? true : undefined;
};

beforeAll(async () => {
  // The controller's own taints and evictions are under test: without the admission plugins that give a new
  // Node the not-ready taint and every pod 300 s tolerations of not-ready and unreachable nodes.
  s = await startServer(["--disable-admission-plugins=DefaultTolerationSeconds,TaintNodesByCondition"]);
  renewals = (async () => {
    while (renewing) {
      for (const name of alive) {
        const sent = Date.now();
        const r = await s.call("PATCH", `${LEASES}/${name}`, { spec: { renewTime: micro() } }, { "content-type": "application/merge-patch+json" });
        if (r.status !== 200) throw new Error(`renewing the lease of ${name}: ${r.status}`);
        renewedAt.set(name, sent);
      }
      await Bun.sleep(200);
    }
  })();
  cm = await startControllerManager(s, "nodelifecycle", [`--node-monitor-grace-period=${GRACE_MS}ms`, "--node-monitor-period=200ms", "--node-startup-grace-period=3s"]);
});
afterAll(async () => { renewing = false; await renewals; await cm?.stop(); await s?.stop(); });

test("a node whose Lease stops goes Unknown, is tainted unreachable, loses its pods as their tolerations say, and recovers", async () => {
  await kubeletNode("lost");
  await kubeletNode("steady");
  await boundPod("plain", "lost");
  await boundPod("brief", "lost", [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 3 }]);
  await boundPod("patient", "lost", [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 3600 }]);
  await boundPod("forever", "lost", [{ operator: "Exists" }]);
  await boundPod("elsewhere", "steady");
  // renewed for longer than the grace period: nothing happens
  await Bun.sleep(GRACE_MS * 1.5);
  expect(condition(await node("lost"), "Ready").status).toBe("True");

  alive.delete("lost");
  const lost = await until(async () => { const n = await node("lost"); return condition(n, "Ready").status === "Unknown" ? n : undefined; }, "the node Unknown", 20_000);
  // not before the grace period ran out since the last renewal
  expect(Date.now() - renewedAt.get("lost")!).toBeGreaterThanOrEqual(GRACE_MS);
  expect(condition(lost, "Ready")).toMatchObject({ status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status." });
  expect(condition(lost, "MemoryPressure")).toMatchObject({ status: "Unknown", reason: "NodeStatusNeverUpdated", message: "Kubelet never posted node status." });
  const tainted = await until(async () => { const n = await node("lost"); return taints(n).length === 2 ? n : undefined; }, "the unreachable taints");
  expect(taints(tainted)).toEqual(["node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"]);
  expect(tainted.spec.taints.find((t: any) => t.effect === "NoExecute").timeAdded).toBeString();

  // a pod that tolerates nothing goes at once, one with 3 s after them; the others stay, marked not Ready
  await until(() => deleted("plain"), "the untolerating pod evicted");
  expect(await deleted("brief")).toBeUndefined();
  await until(() => deleted("brief"), "the 3 s pod evicted", 15_000);
  expect(await deleted("patient")).toBeUndefined();
  expect(await deleted("forever")).toBeUndefined();
  const patient = (await s.call("GET", `${PODS}/patient`)).body;
  expect(condition(patient, "Ready").status).toBe("False");
  const evictions = (await until(async () => { const e = await events("plain"); return e.length ? e : undefined; }, "eviction events")).map((e) => `${e.reason}: ${e.note}`);
  expect(evictions).toContain("TaintManagerEviction: Marking for deletion Pod default/plain");
  expect((await events("patient")).map((e) => `${e.type} ${e.reason}: ${e.note}`)).toContain("Warning NodeNotReady: Node is not ready");
  expect((await events("lost")).map((e) => e.note)).toContain("Node lost status is now: NodeNotReady");

  // the other node and its pod are untouched
  const steady = await node("steady");
  expect(condition(steady, "Ready").status).toBe("True");
  expect(taints(steady)).toEqual([]);
  expect(condition((await s.call("GET", `${PODS}/elsewhere`)).body, "Ready").status).toBe("True");

  // the kubelet is back: the Lease is renewed and Ready posted; the taints go and the planned eviction is cancelled
  alive.add("lost");
  await postReady("lost");
  await until(async () => (taints(await node("lost")).length === 0 ? true : undefined), "the taints removed");
  expect(condition(await node("lost"), "Ready").status).toBe("True");
  await until(async () => ((await events("patient")).some((e) => e.note === "Cancelling deletion of Pod default/patient") || undefined), "the cancellation event");
  await Bun.sleep(GRACE_MS * 1.5);
  expect(condition(await node("lost"), "Ready").status).toBe("True");
  expect(await deleted("patient")).toBeUndefined();
}, 60_000);

test("a node that never posts its status is Unknown after the startup grace period; a NotReady node is tainted not-ready", async () => {
  await kubeletNode("mute", null);
  alive.delete("mute");
  const mute = await until(async () => { const n = await node("mute"); return condition(n, "Ready") ? n : undefined; }, "mute's conditions", 15_000);
  expect(condition(mute, "Ready")).toMatchObject({ status: "Unknown", reason: "NodeStatusNeverUpdated", message: "Kubelet never posted node status.", lastHeartbeatTime: mute.metadata.creationTimestamp });

  await kubeletNode("sick", "False");
  const sick = await until(async () => { const n = await node("sick"); return taints(n).length === 2 ? n : undefined; }, "the not-ready taints");
  expect(taints(sick)).toEqual(["node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/not-ready:NoSchedule"]);
  // an unschedulable node is tainted so too, and keeps taints the controller does not own
  const r = await s.call("PATCH", "/api/v1/nodes/steady", { spec: { unschedulable: true, taints: [{ key: "team", value: "a", effect: "NoSchedule" }] } }, { "content-type": "application/merge-patch+json" });
  expect(r.status).toBe(200);
  await until(async () => (taints(await node("steady")).length === 2 ? true : undefined), "the unschedulable taint");
  expect(taints(await node("steady"))).toEqual(["node.kubernetes.io/unschedulable:NoSchedule", "team:NoSchedule"]);
}, 30_000);

test("when every node is silent (master disruption mode) nothing is evicted and the NoExecute taints go", async () => {
  const names = ["lost", "steady", "mute", "sick"];
  alive.clear();
  await until(async () => {
    const nodes = await Promise.all(names.map(node));
    return nodes.every((n) => condition(n, "Ready").status !== "True") ? true : undefined;
  }, "every node not Ready", 20_000);
  await until(async () => {
    const nodes = await Promise.all(names.map(node));
    return nodes.every((n) => !(n.spec.taints ?? []).some((t: any) => t.effect === "NoExecute")) ? true : undefined;
  }, "no NoExecute taint left", 10_000);
  expect(taints(await node("steady"))).toContain("node.kubernetes.io/unreachable:NoSchedule");
  await Bun.sleep(1000);
  expect(await deleted("elsewhere")).toBeUndefined();
  expect(await deleted("patient")).toBeUndefined();
}, 40_000);
