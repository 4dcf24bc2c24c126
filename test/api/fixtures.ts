// Shared pieces of the black-box API tests: paths, minimal valid bodies per kind, and assertions that
// say what was asked and what came back when they fail.
import type { ResourceDef } from "../../pkg/registry/types.ts";
import { afterAll, beforeAll } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";

export type Reply = { status: number; body: any; headers: Headers };

/** `/api/v1` or `/apis/G/V`. */
export const gvPath = (d: { group: string; version: string }) => (d.group ? `/apis/${d.group}/${d.version}` : `/api/${d.version}`);

/** Collection or item path of a type; the namespace is used only for namespaced types. */
export function pathFor(d: ResourceDef, ns: string, name?: string): string {
  const scope = d.namespaced && ns ? `/namespaces/${ns}` : "";
  return `${gvPath(d)}${scope}/${d.plural}${name ? `/${encodeURIComponent(name)}` : ""}`;
}

export const apiVersionOf = (d: { group: string; version: string }) => (d.group ? `${d.group}/${d.version}` : d.version);

/** A label for a type in test names: `apps/v1 deployments`, `v1 pods`. */
export const typeLabel = (d: ResourceDef) => `${apiVersionOf(d)} ${d.plural}`;

const show = (r: Reply) => (typeof r.body === "string" ? r.body : JSON.stringify(r.body)).slice(0, 600);

/** Fails with the request label, the expected code and the whole reply. */
export function expectCode(r: Reply, code: number, what: string): void {
  if (r.status !== code) throw new Error(`${what}: expected HTTP ${code}, got ${r.status}: ${show(r)}`);
}

/** The reply is an upstream-shaped failure Status with this code and reason. */
export function expectStatus(r: Reply, code: number, reason: string, what: string): any {
  expectCode(r, code, what);
  const s = r.body;
  const problems: string[] = [];
  if (typeof s !== "object" || s === null) problems.push("body is not a JSON object");
  else {
    if (s.kind !== "Status") problems.push(`kind ${JSON.stringify(s.kind)} != "Status"`);
    if (s.apiVersion !== "v1") problems.push(`apiVersion ${JSON.stringify(s.apiVersion)} != "v1"`);
    if (s.status !== "Failure") problems.push(`status ${JSON.stringify(s.status)} != "Failure"`);
    if (s.code !== code) problems.push(`code ${JSON.stringify(s.code)} != ${code}`);
    if (s.reason !== reason) problems.push(`reason ${JSON.stringify(s.reason)} != ${JSON.stringify(reason)}`);
    if (typeof s.message !== "string" || !s.message) problems.push("message missing");
  }
  const ct = r.headers.get("content-type") ?? "";
  if (!ct.startsWith("application/json")) problems.push(`Content-Type ${JSON.stringify(ct)} is not application/json`);
  if (problems.length) throw new Error(`${what}: not a ${code} ${reason} Status (${problems.join("; ")}): ${show(r)}`);
  return s;
}

/** A fresh object came back from a create: server-set metadata is present. */
export function expectServerMeta(o: any, what: string): void {
  const m = o?.metadata ?? {};
  const problems: string[] = [];
  if (typeof m.uid !== "string" || !/^[0-9a-f-]{36}$/.test(m.uid)) problems.push(`uid ${JSON.stringify(m.uid)}`);
  if (typeof m.creationTimestamp !== "string" || Number.isNaN(Date.parse(m.creationTimestamp))) problems.push(`creationTimestamp ${JSON.stringify(m.creationTimestamp)}`);
  if (typeof m.resourceVersion !== "string" || !m.resourceVersion) problems.push(`resourceVersion ${JSON.stringify(m.resourceVersion)}`);
  if (problems.length) throw new Error(`${what}: server-set metadata missing or wrong: ${problems.join("; ")}`);
}

/** Polls fn until it returns a truthy value or the deadline passes. */
export async function until<T>(fn: () => Promise<T>, what: string, ms = 10_000, every = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await Bun.sleep(every);
  }
}

/** The objects the server puts in every namespace (builtin-objects.test.ts): ServiceAccount default, ConfigMap kube-root-ca.crt. */
export const NAMESPACE_BUILTINS = { serviceaccounts: "default", configmaps: "kube-root-ca.crt" } as const;

/** Creates a namespace and waits for its built-in objects, so tests that count objects see them settled. */
/**
 * The server a test file talks to: started (with namespace `ns` and its built-in objects) before the
 * file's tests, stopped after them; `set` hands it to the file's `s`.
 */
export function useServer(ns: string, set: (s: TestServer) => void, args: string[] = []): void {
  let s: TestServer | undefined;
  beforeAll(async () => {
    s = await startServer(args);
    set(s);
    await createNamespace(s, ns);
  }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);
}

export async function createNamespace(s: TestServer, name: string): Promise<void> {
  const r = await s.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  expectCode(r, 201, `create namespace ${name}`);
  for (const [resource, obj] of Object.entries(NAMESPACE_BUILTINS)) {
    await until(async () => (await s.call("GET", `/api/v1/namespaces/${name}/${resource}/${obj}`)).status === 200, `${resource}/${obj} in namespace ${name}`);
  }
}

const podSpec = (restartPolicy?: string) => ({
  containers: [{ name: "c", image: "nginx:1.21" }],
  ...(restartPolicy ? { restartPolicy } : {}),
});
const template = (labels: Record<string, string>, restartPolicy?: string) => ({ metadata: { labels }, spec: podSpec(restartPolicy) });
const RBAC = "rbac.authorization.k8s.io";

/** A real PEM certificate request (P-256, CN=kite-test), as upstream parses spec.request. */
const TEST_CSR = `-----BEGIN CERTIFICATE REQUEST-----
MIHlMIGNAgEAMCsxEjAQBgNVBAMMCWtpdGUtdGVzdDEVMBMGA1UECgwMc3lzdGVt
Om5vZGVzMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEY+NXTtKC91+V8pKr+JDk
cxAadBLynLwKux/2CpwaTUUdleu1qbuHEOhRquSpSMy+T1CZ+qPCkvdUQ8H6EiSE
/qAAMAoGCCqGSM49BAMCA0cAMEQCIHao4WwSU+XR96FgaLSRVuW/PEf53BN05n/7
7yDTHilZAiBJy1A8KX/XDpkR/GBwfFBibX4sdNGG+5nKJ8mM85Rxsg==
-----END CERTIFICATE REQUEST-----
`;

/**
 * A minimal body that upstream v1.21 accepts for the kind, named `name` (a CustomResourceDefinition is
 * named after its plural and group, so its name is derived from `name`). Keyed by `group/Kind`. `ns` is
 * the namespace the object goes to (events name their involved object's namespace).
 */
export function minimalBody(d: ResourceDef, name: string, ns = ""): any {
  const app = { app: name.slice(0, 63) };
  const bodies: Record<string, () => any> = {
    "/Namespace": () => ({}),
    "/Pod": () => ({ spec: podSpec() }),
    "/Service": () => ({ spec: { ports: [{ port: 80, targetPort: 8080 }], selector: app } }),
    "/Endpoints": () => ({ subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }] }),
    "/ConfigMap": () => ({ data: { key: "value" } }),
    "/Secret": () => ({ type: "Opaque", data: { key: Buffer.from("value").toString("base64") } }),
    "/ServiceAccount": () => ({}),
    "/Node": () => ({ spec: {} }),
    "/Event": () => ({
      involvedObject: { kind: "Pod", name: "p", namespace: ns }, reason: "Tested", message: "a test event",
      type: "Normal", source: { component: "kite-test" },
    }),
    "/PersistentVolume": () => ({ spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv" } } }),
    "/PersistentVolumeClaim": () => ({ spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }),
    "/LimitRange": () => ({ spec: { limits: [{ type: "Container", max: { cpu: "1" } }] } }),
    "/ResourceQuota": () => ({ spec: { hard: { pods: "10" } } }),
    "/ReplicationController": () => ({ spec: { replicas: 1, selector: app, template: template(app) } }),
    "/PodTemplate": () => ({ template: template(app) }),
    "apps/Deployment": () => ({ spec: { replicas: 1, selector: { matchLabels: app }, template: template(app) } }),
    "apps/ReplicaSet": () => ({ spec: { replicas: 1, selector: { matchLabels: app }, template: template(app) } }),
    "apps/StatefulSet": () => ({ spec: { replicas: 1, serviceName: "svc", selector: { matchLabels: app }, template: template(app) } }),
    "apps/DaemonSet": () => ({ spec: { selector: { matchLabels: app }, template: template(app) } }),
    "apps/ControllerRevision": () => ({ revision: 1, data: {} }),
    "batch/Job": () => ({ spec: { template: template({}, "Never") } }),
    "batch/CronJob": () => ({ spec: { schedule: "*/5 * * * *", jobTemplate: { spec: { template: template({}, "OnFailure") } } } }),
    "autoscaling/HorizontalPodAutoscaler": () => ({ spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 3 } }),
    "coordination.k8s.io/Lease": () => ({ spec: { holderIdentity: "holder", leaseDurationSeconds: 15 } }),
    [`${RBAC}/Role`]: () => ({ rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }] }),
    [`${RBAC}/ClusterRole`]: () => ({ rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }] }),
    [`${RBAC}/RoleBinding`]: () => ({ roleRef: { apiGroup: RBAC, kind: "Role", name: "r" }, subjects: [{ kind: "User", name: "alice", apiGroup: RBAC }] }),
    [`${RBAC}/ClusterRoleBinding`]: () => ({ roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "r" }, subjects: [{ kind: "User", name: "alice", apiGroup: RBAC }] }),
    "networking.k8s.io/Ingress": () => ({ spec: { defaultBackend: { service: { name: "svc", port: { number: 80 } } } } }),
    "networking.k8s.io/IngressClass": () => ({ spec: { controller: "example.com/ingress" } }),
    "networking.k8s.io/NetworkPolicy": () => ({ spec: { podSelector: {} } }),
    "policy/PodSecurityPolicy": () => ({ spec: { seLinux: { rule: "RunAsAny" }, runAsUser: { rule: "RunAsAny" }, supplementalGroups: { rule: "RunAsAny" }, fsGroup: { rule: "RunAsAny" } } }),
    // an APIService is named version.group
    "apiregistration.k8s.io/APIService": () => {
      const group = `${name.replace(/[^a-z0-9-]/g, "") || "api"}.example.com`;
      return { metadata: { name: `v1.${group}` }, spec: { group, version: "v1", groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: "default", name: "api" } } };
    },
    "policy/PodDisruptionBudget": () => ({ spec: { minAvailable: 1, selector: { matchLabels: app } } }),
    "scheduling.k8s.io/PriorityClass": () => ({ value: 1000, description: "test" }),
    "flowcontrol.apiserver.k8s.io/FlowSchema": () => ({ spec: { priorityLevelConfiguration: { name: "global-default" } } }),
    "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": () => ({ spec: { type: "Limited", limited: { limitResponse: { type: "Reject" } } } }),
    "storage.k8s.io/StorageClass": () => ({ provisioner: "example.com/provisioner" }),
    "storage.k8s.io/CSIDriver": () => ({ spec: { attachRequired: true } }),
    "storage.k8s.io/CSINode": () => ({ spec: { drivers: [] } }),
    "storage.k8s.io/VolumeAttachment": () => ({ spec: { attacher: "csi.example.com", nodeName: "node-1", source: { persistentVolumeName: "pv-1" } } }),
    "events.k8s.io/Event": () => ({
      eventTime: "2021-04-08T12:00:00.000000Z", reportingController: "example.com/test", reportingInstance: "test-1",
      action: "Testing", reason: "Tested", type: "Normal", note: "a test event", regarding: { kind: "Pod", name: "p", namespace: ns },
    }),
    "discovery.k8s.io/EndpointSlice": () => ({ addressType: "IPv4", endpoints: [{ addresses: ["10.0.0.1"] }], ports: [{ port: 80, protocol: "TCP", name: "http" }] }),
    "node.k8s.io/RuntimeClass": () => ({ handler: "runc" }),
    "certificates.k8s.io/CertificateSigningRequest": () => ({
      spec: { request: Buffer.from(TEST_CSR).toString("base64"), signerName: "example.com/signer", usages: ["client auth"] },
    }),
    "apiextensions.k8s.io/CustomResourceDefinition": () => {
      const plural = name.replace(/[^a-z]/g, "") || "widgets";
      return {
        metadata: { name: `${plural}.example.com` },
        spec: {
          group: "example.com", scope: "Namespaced",
          names: { plural, singular: `${plural}x`, kind: "Widget", listKind: "WidgetList" },
          versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
        },
      };
    },
    "admissionregistration.k8s.io/MutatingWebhookConfiguration": () => ({ webhooks: [] }),
    "admissionregistration.k8s.io/ValidatingWebhookConfiguration": () => ({ webhooks: [] }),
  };
  const make = bodies[`${d.group}/${d.kind}`];
  if (!make) throw new Error(`no minimal body for ${d.group}/${d.kind}: add one to test/api/fixtures.ts`);
  const { metadata, ...rest } = make();
  return { apiVersion: apiVersionOf(d), kind: d.kind, metadata: { name, ...(metadata ?? {}) }, ...rest };
}

/** A streaming watch: events as they arrive. */
export async function openWatch(s: TestServer, path: string) {
  const res = await s.req(path);
  if (res.status !== 200) throw new Error(`GET ${path}: expected 200, got ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const queue: any[] = [];
  let ended = false;
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (line) queue.push(JSON.parse(line));
        }
      }
    } catch { /* cancelled */ }
    ended = true;
  })();
  return {
    /** Waits for `n` events in all (or the stream's end, or the deadline) and returns them. */
    async take(n: number, ms = 5000): Promise<any[]> {
      const deadline = Date.now() + ms;
      while (queue.length < n && !ended && Date.now() < deadline) await Bun.sleep(5);
      return queue.slice(0, n);
    },
    close() { reader.cancel().catch(() => {}); },
  };
}

/**
 * Drops empty maps and lists: protobuf has no way to tell `labels: {}` or `webhooks: []` from an absent
 * field (upstream's JSON drops them too, through omitempty), so comparisons of the two forms ignore them.
 */
export function dropEmpty(v: any): any {
  if (Array.isArray(v)) return v.map(dropEmpty);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, any> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = dropEmpty(x);
    if (y && typeof y === "object" && (Array.isArray(y) ? y.length === 0 : Object.keys(y).length === 0)) continue;
    out[k] = y;
  }
  return out;
}
