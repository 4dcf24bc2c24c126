// The scheduler's simple filters, case by case against upstream v1.21's documented behaviour
// (pkg/scheduler/framework/plugins/*): which nodes a pod may go to, and the reason given when not.
import { describe, expect, test } from "bun:test";
import { Code, NodeInfo, pluginNames as N, type Node, type Pod } from "../../pkg/scheduler/index.ts";
import { FakeListers, makeFramework, makeNode, makePod, plugin, runFilter } from "../helpers/sched-fixtures.ts";

/** The filter's verdict as [code, reasons] ([0, []] for a fit). */
function verdict(name: string, pod: Pod, node: Node | NodeInfo, args?: unknown, fwk = makeFramework()): [Code, string[]] {
  const ni = node instanceof NodeInfo ? node : new NodeInfo(node);
  const s = runFilter(plugin(name, args, fwk), pod, ni);
  return s ? [s.code, s.reasons] : [Code.Success, []];
}
const FIT: [Code, string[]] = [Code.Success, []];
const U = Code.Unschedulable;
const UU = Code.UnschedulableAndUnresolvable;

describe("NodeUnschedulable", () => {
  const cordoned = makeNode("n", { spec: { unschedulable: true } });
  test.each([
    ["schedulable node", makePod("p"), makeNode("n"), FIT],
    ["cordoned node", makePod("p"), cordoned, [UU, ["node(s) were unschedulable"]]],
    ["cordoned node, pod tolerates the unschedulable taint", makePod("p", { spec: { tolerations: [{ key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" }] } }), cordoned, FIT],
  ] as const)("%s", (_n, pod, node, want) => expect(verdict(N.NodeUnschedulable, pod, node)).toEqual(want as any));
});

describe("NodeName", () => {
  test.each([
    ["no nodeName", makePod("p"), FIT],
    ["matching nodeName", makePod("p", { nodeName: "n" }), FIT],
    ["other nodeName", makePod("p", { nodeName: "m" }), [UU, ["node(s) didn't match the requested node name"]]],
  ] as const)("%s", (_n, pod, want) => expect(verdict(N.NodeName, pod, makeNode("n"))).toEqual(want as any));
});

describe("TaintToleration", () => {
  const tainted = (effect: string, value = "v") => makeNode("n", { spec: { taints: [{ key: "k", value, effect }] } });
  const tol = (t: object) => makePod("p", { spec: { tolerations: [t as any] } });
  test.each([
    ["no taints", makePod("p"), makeNode("n"), FIT],
    ["NoSchedule not tolerated", makePod("p"), tainted("NoSchedule"), [UU, ["node(s) had taint {k: v}, that the pod didn't tolerate"]]],
    ["NoExecute not tolerated", makePod("p"), tainted("NoExecute"), [UU, ["node(s) had taint {k: v}, that the pod didn't tolerate"]]],
    ["empty taint value", makePod("p"), tainted("NoSchedule", ""), [UU, ["node(s) had taint {k: }, that the pod didn't tolerate"]]],
    ["PreferNoSchedule never filters", makePod("p"), tainted("PreferNoSchedule"), FIT],
    ["Equal with the value", tol({ key: "k", operator: "Equal", value: "v", effect: "NoSchedule" }), tainted("NoSchedule"), FIT],
    ["default operator is Equal", tol({ key: "k", value: "v" }), tainted("NoSchedule"), FIT],
    ["Equal with another value", tol({ key: "k", value: "w", effect: "NoSchedule" }), tainted("NoSchedule"), [UU, ["node(s) had taint {k: v}, that the pod didn't tolerate"]]],
    ["Exists on the key", tol({ key: "k", operator: "Exists" }), tainted("NoExecute"), FIT],
    ["Exists without key tolerates everything", tol({ operator: "Exists" }), tainted("NoSchedule"), FIT],
    ["other effect", tol({ key: "k", operator: "Exists", effect: "NoExecute" }), tainted("NoSchedule"), [UU, ["node(s) had taint {k: v}, that the pod didn't tolerate"]]],
  ] as const)("%s", (_n, pod, node, want) => expect(verdict(N.TaintToleration, pod, node)).toEqual(want as any));
});

describe("NodeAffinity", () => {
  const node = makeNode("n1", { labels: { zone: "a", gen: "5" } });
  const reason = [UU, ["node(s) didn't match Pod's node affinity"]];
  const required = (...terms: object[]) => makePod("p", { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms as any } } } } });
  const expr = (key: string, operator: string, values?: string[]) => ({ matchExpressions: [{ key, operator, values }] });
  test.each([
    ["no constraints", makePod("p"), FIT],
    ["nodeSelector matches", makePod("p", { spec: { nodeSelector: { zone: "a" } } }), FIT],
    ["nodeSelector does not match", makePod("p", { spec: { nodeSelector: { zone: "b" } } }), reason],
    ["nodeSelector needs every label", makePod("p", { spec: { nodeSelector: { zone: "a", disk: "ssd" } } }), reason],
    ["In", required(expr("zone", "In", ["a", "b"])), FIT],
    ["NotIn", required(expr("zone", "NotIn", ["a"])), reason],
    ["Exists", required(expr("gen", "Exists")), FIT],
    ["DoesNotExist", required(expr("gen", "DoesNotExist")), reason],
    ["Gt", required(expr("gen", "Gt", ["4"])), FIT],
    ["Lt", required(expr("gen", "Lt", ["5"])), reason],
    ["terms are ORed", required(expr("zone", "In", ["b"]), expr("zone", "In", ["a"])), FIT],
    ["expressions in a term are ANDed", required({ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }, { key: "gen", operator: "In", values: ["6"] }] }), reason],
    ["matchFields on metadata.name", required({ matchFields: [{ key: "metadata.name", operator: "In", values: ["n1"] }] }), FIT],
    ["matchFields NotIn", required({ matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["n1"] }] }), reason],
    ["an empty term matches nothing", required({}), reason],
    ["no terms match nothing", required(), reason],
    ["nodeSelector and affinity must both hold", { ...required(expr("zone", "In", ["a"])), spec: { ...required(expr("zone", "In", ["a"])).spec, nodeSelector: { zone: "b" } } }, reason],
  ] as const)("%s", (_n, pod, want) => expect(verdict(N.NodeAffinity, pod as Pod, node)).toEqual(want as any));

  test("the profile's addedAffinity applies to every pod first", () => {
    const args = { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [expr("zone", "In", ["b"])] } } };
    expect(verdict(N.NodeAffinity, makePod("p"), node, args)).toEqual([UU, ["node(s) didn't match scheduler-enforced node affinity"]]);
    expect(verdict(N.NodeAffinity, makePod("p"), makeNode("n2", { labels: { zone: "b" } }), args)).toEqual(FIT);
  });
});

describe("NodePorts", () => {
  const withPort = (name: string, hostPort: number, hostIP?: string, protocol?: string) =>
    makePod(name, { spec: { containers: [{ name: "c", ports: [{ containerPort: 80, hostPort, hostIP, protocol }] }] } });
  const reason = [U, ["node(s) didn't have free ports for the requested pod ports"]];
  test.each([
    ["no host ports", makePod("p"), [withPort("a", 8080)], FIT],
    ["free port", withPort("p", 8081), [withPort("a", 8080)], FIT],
    ["same port", withPort("p", 8080), [withPort("a", 8080)], reason],
    ["other protocol", withPort("p", 8080, undefined, "UDP"), [withPort("a", 8080)], FIT],
    ["other IPs", withPort("p", 8080, "10.0.0.2"), [withPort("a", 8080, "10.0.0.1")], FIT],
    ["0.0.0.0 clashes with a specific IP", withPort("p", 8080), [withPort("a", 8080, "10.0.0.1")], reason],
    ["a specific IP clashes with 0.0.0.0", withPort("p", 8080, "10.0.0.1"), [withPort("a", 8080)], reason],
  ] as const)("%s", (_n, pod, existing, want) => {
    expect(verdict(N.NodePorts, pod, new NodeInfo(makeNode("n"), ...existing))).toEqual(want as any);
  });
});

describe("NodeResourcesFit", () => {
  const node = (alloc: Record<string, string>) => makeNode("n", { allocatable: { pods: "110", ...alloc } });
  const req = (requests: Record<string, string>, spec = {}) => makePod("p", { requests, spec });
  const on = (n: Node, ...pods: Pod[]) => new NodeInfo(n, ...pods);
  const n4 = node({ cpu: "4", memory: "8Gi", "ephemeral-storage": "10Gi", "example.com/gpu": "2" });
  test.each([
    ["fits", req({ cpu: "1", memory: "1Gi" }), on(n4, req({ cpu: "3" })), FIT],
    ["cpu exactly used up fits", req({ cpu: "1" }), on(n4, req({ cpu: "3" })), FIT],
    ["insufficient cpu", req({ cpu: "1500m" }), on(n4, req({ cpu: "3" })), [U, ["Insufficient cpu"]]],
    ["insufficient cpu and memory", req({ cpu: "5", memory: "9Gi" }), on(n4), [U, ["Insufficient cpu", "Insufficient memory"]]],
    ["insufficient ephemeral-storage", req({ "ephemeral-storage": "11Gi" }), on(n4), [U, ["Insufficient ephemeral-storage"]]],
    ["extended resource", req({ "example.com/gpu": "3" }), on(n4), [U, ["Insufficient example.com/gpu"]]],
    ["extended resource the node lacks", req({ "example.com/fpga": "1" }), on(n4), [U, ["Insufficient example.com/fpga"]]],
    ["hugepages", req({ "hugepages-2Mi": "4Mi" }), on(n4), [U, ["Insufficient hugepages-2Mi"]]],
    ["too many pods", makePod("p"), on(node({ cpu: "4", pods: "1" }), makePod("a")), [U, ["Too many pods"]]],
    ["too many pods and cpu", req({ cpu: "5" }), on(node({ cpu: "4", pods: "1" }), makePod("a")), [U, ["Too many pods", "Insufficient cpu"]]],
    ["init containers count by their max", req({ cpu: "1" }, { initContainers: [{ name: "i", resources: { requests: { cpu: "4500m" } } }] }), on(n4), [U, ["Insufficient cpu"]]],
    ["init container below the sum fits", req({ cpu: "2" }, { initContainers: [{ name: "i", resources: { requests: { cpu: "1" } } }] }), on(n4, req({ cpu: "2" })), FIT],
    ["pod overhead counts", req({ cpu: "3" }, { overhead: { cpu: "1500m" } }), on(n4), [U, ["Insufficient cpu"]]],
    ["existing pods' init containers count", req({ cpu: "1" }), on(n4, req({ cpu: "1" }, { initContainers: [{ name: "i", resources: { requests: { cpu: "3500m" } } }] })), [U, ["Insufficient cpu"]]],
    ["existing pods' overhead counts", req({ cpu: "1" }), on(n4, req({ cpu: "2" }, { overhead: { cpu: "1500m" } })), [U, ["Insufficient cpu"]]],
  ] as const)("%s", (_n, pod, ni, want) => expect(verdict(N.NodeResourcesFit, pod, ni)).toEqual(want as any));

  test("ignoredResources and ignoredResourceGroups skip extended resources", () => {
    const pod = req({ "example.com/fpga": "1", "vendor.io/x": "1" });
    expect(verdict(N.NodeResourcesFit, pod, n4, { ignoredResources: ["example.com/fpga"] })).toEqual([U, ["Insufficient vendor.io/x"]]);
    expect(verdict(N.NodeResourcesFit, pod, n4, { ignoredResources: ["example.com/fpga"], ignoredResourceGroups: ["vendor.io"] })).toEqual(FIT);
  });
});

describe("VolumeBinding", () => {
  const listers = new FakeListers();
  const fwk = makeFramework({}, listers);
  const claim = (name: string, spec: object, annotations: Record<string, string> = {}) =>
    listers.pvcs.set(`default/${name}`, { metadata: { name, namespace: "default", annotations }, spec });
  listers.classes.set("wffc", { metadata: { name: "wffc" }, provisioner: "x", volumeBindingMode: "WaitForFirstConsumer" });
  listers.classes.set("now", { metadata: { name: "now" }, provisioner: "x", volumeBindingMode: "Immediate" });
  claim("bound", { volumeName: "pv1" }, { "pv.kubernetes.io/bind-completed": "yes" });
  claim("zoned", { volumeName: "pv2" }, { "pv.kubernetes.io/bind-completed": "yes" });
  claim("late", { storageClassName: "wffc" });
  claim("immediate", { storageClassName: "now" });
  listers.pvs.set("pv1", { metadata: { name: "pv1" }, spec: {} });
  listers.pvs.set("pv2", { metadata: { name: "pv2" }, spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }] } } } });
  const using = (...claims: string[]) => makePod("p", { spec: { volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })) } });
  const zoneA = makeNode("a", { labels: { zone: "a" } });
  const zoneB = makeNode("b", { labels: { zone: "b" } });
  test.each([
    ["no claims", makePod("p"), zoneA, FIT],
    ["a bound claim", using("bound"), zoneB, FIT],
    ["a missing claim", using("nope"), zoneA, [UU, ['persistentvolumeclaim "nope" not found']]],
    ["an unbound Immediate claim", using("immediate"), zoneA, [UU, ["pod has unbound immediate PersistentVolumeClaims"]]],
    ["a WaitForFirstConsumer claim", using("late"), zoneA, FIT],
    ["a volume whose node affinity allows the node", using("zoned"), zoneA, FIT],
    ["a volume whose node affinity excludes the node", using("zoned"), zoneB, [UU, ["node(s) had volume node affinity conflict"]]],
  ] as const)("%s", (_n, pod, node, want) => expect(verdict(N.VolumeBinding, pod, node, undefined, fwk)).toEqual(want as any));
});

describe("VolumeRestrictions", () => {
  const vol = (src: object) => ({ name: "v", ...src });
  const using = (name: string, ...volumes: object[]) => makePod(name, { spec: { volumes: volumes as any } });
  const reason = [U, ["node(s) had no available disk"]];
  const gce = (pdName: string, readOnly = false) => vol({ gcePersistentDisk: { pdName, readOnly } });
  const rbd = (monitors: string[], image: string, readOnly = false) => vol({ rbd: { monitors, image, readOnly } });
  test.each([
    ["no volumes", makePod("p"), [using("a", gce("d1"))], FIT],
    ["another GCE disk", using("p", gce("d2")), [using("a", gce("d1"))], FIT],
    ["the same GCE disk", using("p", gce("d1")), [using("a", gce("d1"))], reason],
    ["the same GCE disk read-only everywhere", using("p", gce("d1", true)), [using("a", gce("d1", true))], FIT],
    ["the same EBS volume, even read-only", using("p", vol({ awsElasticBlockStore: { volumeID: "v1", readOnly: true } })), [using("a", vol({ awsElasticBlockStore: { volumeID: "v1", readOnly: true } }))], reason],
    ["the same iSCSI IQN", using("p", vol({ iscsi: { iqn: "iqn.1" } })), [using("a", vol({ iscsi: { iqn: "iqn.1" } }))], reason],
    ["the same RBD image on overlapping monitors", using("p", rbd(["m1", "m2"], "img")), [using("a", rbd(["m2"], "img"))], reason],
    ["the same RBD image on other monitors", using("p", rbd(["m1"], "img")), [using("a", rbd(["m3"], "img"))], FIT],
  ] as const)("%s", (_n, pod, existing, want) => {
    expect(verdict(N.VolumeRestrictions, pod, new NodeInfo(makeNode("n"), ...existing))).toEqual(want as any);
  });
});

describe("VolumeZone", () => {
  const listers = new FakeListers();
  const fwk = makeFramework({}, listers);
  listers.pvcs.set("default/east", { metadata: { name: "east", namespace: "default" }, spec: { volumeName: "pv-east" } });
  listers.pvcs.set("default/multi", { metadata: { name: "multi", namespace: "default" }, spec: { volumeName: "pv-multi" } });
  listers.pvcs.set("default/late", { metadata: { name: "late", namespace: "default" }, spec: { storageClassName: "wffc" } });
  listers.pvcs.set("default/classless", { metadata: { name: "classless", namespace: "default" }, spec: {} });
  listers.classes.set("wffc", { metadata: { name: "wffc" }, volumeBindingMode: "WaitForFirstConsumer" });
  listers.pvs.set("pv-east", { metadata: { name: "pv-east", labels: { "topology.kubernetes.io/zone": "east" } }, spec: {} });
  listers.pvs.set("pv-multi", { metadata: { name: "pv-multi", labels: { "topology.kubernetes.io/zone": "east__west" } }, spec: {} });
  const using = (claim: string) => makePod("p", { spec: { volumes: [{ name: "v", persistentVolumeClaim: { claimName: claim } }] } });
  const inZone = (zone: string) => makeNode(zone, { labels: { "topology.kubernetes.io/zone": zone } });
  const reason = [UU, ["node(s) had no available volume zone"]];
  test.each([
    ["a volume in the node's zone", using("east"), inZone("east"), FIT],
    ["a volume in another zone", using("east"), inZone("west"), reason],
    ["a volume in several zones", using("multi"), inZone("west"), FIT],
    ["a node without zone labels", using("east"), makeNode("plain"), FIT],
    ["an unbound claim waiting for its consumer", using("late"), inZone("west"), FIT],
    ["an unbound claim without a class", using("classless"), inZone("west"), [UU, ["PersistentVolumeClaim had no pv name and storageClass name"]]],
    ["a missing claim", using("gone"), inZone("west"), [UU, ['persistentvolumeclaim "gone" not found']]],
  ] as const)("%s", (_n, pod, node, want) => expect(verdict(N.VolumeZone, pod, node, undefined, fwk)).toEqual(want as any));
});

describe("EBSLimits, GCEPDLimits, AzureDiskLimits", () => {
  const listers = new FakeListers();
  const fwk = makeFramework({}, listers);
  listers.pvcs.set("default/claim", { metadata: { name: "claim", namespace: "default" }, spec: { volumeName: "pv-ebs" } });
  listers.pvs.set("pv-ebs", { metadata: { name: "pv-ebs" }, spec: { awsElasticBlockStore: { volumeID: "vol-pv" } } });
  const ebs = (...ids: string[]) => ids.map((id, i) => ({ name: `e${i}`, awsElasticBlockStore: { volumeID: id } }));
  const pod = (name: string, volumes: object[]) => makePod(name, { spec: { volumes: volumes as any } });
  const node = (limit?: string) => makeNode("n", { allocatable: { cpu: "4", memory: "8Gi", pods: "110", ...(limit ? { "attachable-volumes-aws-ebs": limit } : {}) } });
  const reason = [U, ["node(s) exceed max volume count"]];
  test.each([
    ["under the node's limit", pod("p", ebs("a")), [pod("x", ebs("b"))], node("2"), FIT],
    ["over the node's limit", pod("p", ebs("a")), [pod("x", ebs("b", "c"))], node("2"), reason],
    ["a disk already attached counts once", pod("p", ebs("b")), [pod("x", ebs("b", "c"))], node("2"), FIT],
    ["a disk through a bound claim", pod("p", [{ name: "v", persistentVolumeClaim: { claimName: "claim" } }]), [pod("x", ebs("b", "c"))], node("2"), reason],
    ["other disk types do not count", pod("p", [{ name: "g", gcePersistentDisk: { pdName: "d" } }]), [pod("x", ebs("b", "c"))], node("2"), FIT],
    ["the default of 39 without a node limit", pod("p", ebs("a")), [pod("x", ebs(...Array.from({ length: 39 }, (_, i) => `v${i}`)))], node(), reason],
  ] as const)("%s", (_n, p, existing, n, want) => {
    expect(verdict(N.EBSLimits, p, new NodeInfo(n, ...existing), undefined, fwk)).toEqual(want as any);
  });
});

describe("NodeVolumeLimits (CSI)", () => {
  const listers = new FakeListers();
  const fwk = makeFramework({}, listers);
  for (const i of [1, 2, 3]) {
    listers.pvcs.set(`default/c${i}`, { metadata: { name: `c${i}`, namespace: "default" }, spec: { volumeName: `pv${i}` } });
    listers.pvs.set(`pv${i}`, { metadata: { name: `pv${i}` }, spec: { csi: { driver: "ebs.csi.aws.com", volumeHandle: `h${i}` } } });
  }
  listers.pvcs.set("default/new", { metadata: { name: "new", namespace: "default" }, spec: { storageClassName: "csi" } });
  listers.classes.set("csi", { metadata: { name: "csi" }, provisioner: "ebs.csi.aws.com", volumeBindingMode: "WaitForFirstConsumer" });
  listers.csiNodes.set("limited", { metadata: { name: "limited" }, spec: { drivers: [{ name: "ebs.csi.aws.com", nodeID: "i-1", allocatable: { count: 2 } }] } });
  const claims = (name: string, ...cs: string[]) => makePod(name, { spec: { volumes: cs.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })) } });
  const on = (node: string, ...pods: Pod[]) => new NodeInfo(makeNode(node), ...pods);
  const reason = [U, ["node(s) exceed max volume count"]];
  test.each([
    ["within the CSINode's count", claims("p", "c2"), on("limited", claims("a", "c1")), FIT],
    ["over the CSINode's count", claims("p", "c3"), on("limited", claims("a", "c1", "c2")), reason],
    ["a volume already attached counts once", claims("p", "c2"), on("limited", claims("a", "c1", "c2")), FIT],
    ["an unbound claim counts for its provisioner", claims("p", "new"), on("limited", claims("a", "c1", "c2")), reason],
    ["a node without limits", claims("p", "c3"), on("free", claims("a", "c1", "c2")), FIT],
  ] as const)("%s", (_n, pod, ni, want) => expect(verdict(N.NodeVolumeLimits, pod, ni, undefined, fwk)).toEqual(want as any));
});
