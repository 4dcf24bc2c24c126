// The default admission plugins, each seen from a client: what they fill in and what they refuse, in
// upstream's words.
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, useServer } from "./fixtures.ts";

const NS = "admission-plugins";
let s: TestServer;
useServer(NS, (started) => (s = started));

const pod = (name: string, spec: Record<string, unknown> = {}, ns = NS) => ({
  apiVersion: "v1", kind: "Pod", metadata: { name, namespace: ns }, spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
});
const createPod = (p: any) => s.call("POST", `/api/v1/namespaces/${p.metadata.namespace}/pods`, p);

describe("NamespaceLifecycle", () => {
  test("a missing namespace is 404 for the namespace", async () => {
    const st = expectStatus(await createPod(pod("p", {}, "no-such-ns")), 404, "NotFound", "create in a missing namespace");
    expect(st.message).toBe(`namespaces "no-such-ns" not found`);
  });
});

describe("ServiceAccount and DefaultTolerationSeconds", () => {
  test("a pod runs as default, with the projected token volume in every container and the two tolerations", async () => {
    const r = await createPod(pod("plain", { initContainers: [{ name: "i", image: "busybox" }] }));
    expectCode(r, 201, "create a pod");
    const spec = r.body.spec;
    expect(spec.serviceAccountName).toBe("default");
    const vol = spec.volumes.find((v: any) => v.name.startsWith("kube-api-access-"));
    expect(vol.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(vol.projected).toEqual({
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
      defaultMode: 420,
    });
    for (const c of [...spec.containers, ...spec.initContainers]) {
      expect(c.volumeMounts).toContainEqual({ name: vol.name, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" });
    }
    expect(spec.tolerations).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
  });

  test("automountServiceAccountToken false: no token; a toleration of its own is kept", async () => {
    const own = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 };
    const r = await createPod(pod("no-token", { automountServiceAccountToken: false, tolerations: [own] }));
    expectCode(r, 201, "create a pod without a token");
    expect(r.body.spec.volumes ?? []).toEqual([]);
    expect(r.body.spec.tolerations).toEqual([own, { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }]);
  });

  test("a ServiceAccount that does not exist is 403", async () => {
    const st = expectStatus(await createPod(pod("ghost", { serviceAccountName: "ghost" })), 403, "Forbidden", "create with a missing account");
    expect(st.message).toBe(`pods "ghost" is forbidden: error looking up service account ${NS}/ghost: serviceaccount "ghost" not found`);
  });
});

describe("TaintNodesByCondition", () => {
  test("a new node starts with the not-ready NoSchedule taint", async () => {
    const r = await s.call("POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "admission-node" } });
    expectCode(r, 201, "create a node");
    expect(r.body.spec.taints).toEqual([{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]);
  });
});

describe("storage", () => {
  test("a claim gets the default StorageClass and the protection finalizer", async () => {
    expectCode(await s.call("POST", "/apis/storage.k8s.io/v1/storageclasses", {
      metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } }, provisioner: "example.com/x",
    }), 201, "create the default class");
    const r = await s.call("POST", `/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
      metadata: { name: "claim" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    expectCode(r, 201, "create a claim");
    expect(r.body.spec.storageClassName).toBe("standard");
    expect(r.body.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
  });

  test("PersistentVolumeClaimResize: a claim grows only when its class allows expansion", async () => {
    const merge = { "Content-Type": "application/merge-patch+json" };
    // only a bound claim's request may change at all (validation); then the class decides
    expectCode(await s.call("PATCH", `/api/v1/namespaces/${NS}/persistentvolumeclaims/claim/status`, { status: { phase: "Bound" } }, merge), 200, "bind the claim");
    const r = await s.call("PATCH", `/api/v1/namespaces/${NS}/persistentvolumeclaims/claim`, { spec: { resources: { requests: { storage: "2Gi" } } } }, merge);
    const st = expectStatus(r, 403, "Forbidden", "grow a claim");
    expect(st.message).toBe(`persistentvolumeclaims "claim" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`);
  });
});

describe("LimitRanger", () => {
  test("defaults from the namespace's LimitRange, and its maximum in upstream's words", async () => {
    expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/limitranges`, {
      metadata: { name: "limits" },
      spec: { limits: [{ type: "Container", default: { cpu: "500m" }, defaultRequest: { cpu: "100m" }, max: { cpu: "1" } }] },
    }), 201, "create a LimitRange");
    const r = await createPod(pod("limited"));
    expectCode(r, 201, "create a pod under the LimitRange");
    expect(r.body.spec.containers[0].resources).toEqual({ limits: { cpu: "500m" }, requests: { cpu: "100m" } });
    expect(r.body.metadata.annotations["kubernetes.io/limit-ranger"]).toBe("LimitRanger plugin set: cpu request for container c; cpu limit for container c");
    const big = pod("big", { containers: [{ name: "c", image: "busybox", resources: { limits: { cpu: "2" } } }] });
    const st = expectStatus(await createPod(big), 403, "Forbidden", "create a pod over the maximum");
    expect(st.message).toBe(`pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`);
    expectCode(await s.call("DELETE", `/api/v1/namespaces/${NS}/limitranges/limits`), 200, "delete the LimitRange");
  });
});

describe("ResourceQuota", () => {
  test("creates past the hard limit are refused with upstream's message; status.used follows", async () => {
    expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/resourcequotas`, { metadata: { name: "few" }, spec: { hard: { configmaps: "3" } } }), 201, "create a quota");
    // the namespace holds kube-root-ca.crt already
    for (const n of ["q1", "q2"]) expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: n } }), 201, `configmap ${n}`);
    const st = expectStatus(await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "q3" } }), 403, "Forbidden", "one too many");
    expect(st.message).toBe(`configmaps "q3" is forbidden: exceeded quota: few, requested: configmaps=1, used: configmaps=3, limited: configmaps=3`);
    const q = await s.call("GET", `/api/v1/namespaces/${NS}/resourcequotas/few`);
    expect(q.body.status).toEqual({ hard: { configmaps: "3" }, used: { configmaps: "3" } });
  });
});

describe("RuntimeClass and Priority", () => {
  test("a RuntimeClass that does not exist is 403; one that does adds its overhead", async () => {
    const st = expectStatus(await createPod(pod("rc-missing", { runtimeClassName: "gvisor" })), 403, "Forbidden", "missing RuntimeClass");
    expect(st.message).toBe(`pods "rc-missing" is forbidden: pod rejected: RuntimeClass "gvisor" not found`);
    expectCode(await s.call("POST", "/apis/node.k8s.io/v1/runtimeclasses", { metadata: { name: "gvisor" }, handler: "runsc", overhead: { podFixed: { memory: "64Mi" } } }), 201, "create the RuntimeClass");
    const r = await createPod(pod("rc", { runtimeClassName: "gvisor" }));
    expectCode(r, 201, "pod with a RuntimeClass");
    expect(r.body.spec.overhead).toEqual({ memory: "64Mi" });
  });
});

test("the plugin metrics name each plugin", async () => {
  const text = await (await s.req("/metrics")).text();
  expect(text).toMatch(/^apiserver_admission_controller_admission_duration_seconds_count\{name="ServiceAccount",operation="CREATE",rejected="false",type="admit"\} \d+$/m);
  expect(text).toMatch(/^apiserver_admission_controller_admission_duration_seconds_bucket\{name="LimitRanger",operation="CREATE",rejected="true",type="validate",le="0.005"\} \d+$/m);
  expect(text).toMatch(/^apiserver_admission_step_admission_duration_seconds_count\{operation="CREATE",rejected="true",type="validate"\} \d+$/m);
});
