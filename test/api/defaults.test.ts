// Issue 13 item 2: every built-in kind gets upstream v1.21's defaults, on create and on every update
// (PUT, each patch type, apply), and a Secret's stringData is merged into data and never kept.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import { expectCode, expectStatus, minimalBody, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);

const NS = "defaults";
let s: TestServer;
useServer(NS, (started) => (s = started));

const RBAC = "rbac.authorization.k8s.io";
const app = { app: "web" };
const container = (extra: Record<string, unknown> = {}) => ({ name: "c", image: "nginx:1.21", ...extra });
const template = (spec: Record<string, unknown> = {}) => ({ metadata: { labels: app }, spec: { containers: [container()], ...spec } });

/** What upstream fills into a pod template's spec (a Pod gets enableServiceLinks too). */
const TEMPLATE_SPEC = {
  dnsPolicy: "ClusterFirst", restartPolicy: "Always", schedulerName: "default-scheduler", securityContext: {},
  terminationGracePeriodSeconds: 30,
  containers: [{ imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", resources: {} }],
};

const col = (group: string, version: string, plural: string, namespaced = true) =>
  `${group ? `/apis/${group}/${version}` : `/api/${version}`}${namespaced ? `/namespaces/${NS}` : ""}/${plural}`;

async function create(path: string, body: Record<string, any>): Promise<any> {
  const r = await s.call("POST", path, body);
  expectCode(r, 201, `POST ${path} ${body.metadata?.name}`);
  const g = await s.call("GET", `${path}/${r.body.metadata.name}`);
  expectCode(g, 200, `GET ${path}/${r.body.metadata.name}`);
  // the defaults were stored: what GET reads is what POST answered (but for what the server's own parts
  // write just after a create: a CRD's status, with its new resourceVersion and managedFields)
  const own = ({ status, metadata: { resourceVersion, managedFields, ...metadata }, ...rest }: any) => ({ ...rest, metadata });
  expect(own(g.body)).toEqual(own(r.body));
  return g.body;
}

/** Per kind: a minimal object, the defaults upstream adds, and fields that must stay unset. */
interface Case { name: string; path: string; body: Record<string, any>; want: Record<string, any>; absent?: string[] }

const at = (o: any, path: string) => path.split(".").reduce((v, k) => (v === undefined || v === null ? undefined : v[k]), o);

const CASES: Case[] = [
  {
    name: "Pod: pod spec, containers, probes, env, volumes, requests from limits",
    path: col("", "v1", "pods"),
    body: {
      metadata: { name: "pod" },
      spec: {
        // no token volume from the ServiceAccount admission plugin: the volumes are this test's
        automountServiceAccountToken: false,
        containers: [container({
          ports: [{ containerPort: 80 }],
          livenessProbe: { httpGet: { port: 80 } },
          readinessProbe: { exec: { command: ["true"] }, periodSeconds: 5 },
          startupProbe: { tcpSocket: { port: 80 } },
          lifecycle: { preStop: { httpGet: { port: 80 } } },
          env: [{ name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
          resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m" } },
        })],
        initContainers: [{ name: "init", image: "busybox" }],
        volumes: [
          { name: "scratch" },
          { name: "s", secret: { secretName: "x" } },
          { name: "cm", configMap: { name: "x" } },
          { name: "dapi", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
          { name: "proj", projected: { sources: [{ serviceAccountToken: { path: "token" } }, { downwardAPI: { items: [{ path: "n", fieldRef: { fieldPath: "metadata.name" } }] } }] } },
          { name: "host", hostPath: { path: "/tmp" } },
        ],
      },
    },
    want: {
      spec: {
        dnsPolicy: "ClusterFirst", restartPolicy: "Always", schedulerName: "default-scheduler", securityContext: {},
        terminationGracePeriodSeconds: 30, enableServiceLinks: true, priority: 0, preemptionPolicy: "PreemptLowerPriority",
        containers: [{
          imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File",
          ports: [{ containerPort: 80, protocol: "TCP" }],
          livenessProbe: { httpGet: { port: 80, path: "/", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          readinessProbe: { timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3 },
          startupProbe: { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          lifecycle: { preStop: { httpGet: { path: "/", scheme: "HTTP" } } },
          env: [{ valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "spec.nodeName" } } }],
          resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m", memory: "1Gi" } },
        }],
        initContainers: [{ imagePullPolicy: "Always", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", resources: {} }],
        volumes: [
          { name: "scratch", emptyDir: {} },
          { secret: { defaultMode: 420 } },
          { configMap: { defaultMode: 420 } },
          { downwardAPI: { defaultMode: 420, items: [{ fieldRef: { apiVersion: "v1" } }] } },
          { projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3600 } }, { downwardAPI: { items: [{ fieldRef: { apiVersion: "v1" } }] } }] } },
          { hostPath: { path: "/tmp", type: "" } },
        ],
      },
    },
  },
  {
    name: "Deployment: strategy {} becomes RollingUpdate 25%/25%; history, deadline, replicas; template defaults",
    path: col("apps", "v1", "deployments"),
    body: { metadata: { name: "deploy" }, spec: { strategy: {}, selector: { matchLabels: app }, template: template() } },
    want: {
      spec: {
        replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
        template: { spec: TEMPLATE_SPEC },
      },
    },
    absent: ["spec.template.spec.enableServiceLinks", "spec.template.spec.priority"],
  },
  {
    name: "Deployment: a Recreate strategy gets no rollingUpdate",
    path: col("apps", "v1", "deployments"),
    body: { metadata: { name: "recreate" }, spec: { strategy: { type: "Recreate" }, selector: { matchLabels: app }, template: template() } },
    want: { spec: { strategy: { type: "Recreate" } } },
    absent: ["spec.strategy.rollingUpdate"],
  },
  {
    name: "StatefulSet: RollingUpdate with partition 0, OrderedReady, history; claim templates",
    path: col("apps", "v1", "statefulsets"),
    body: {
      metadata: { name: "sts" },
      spec: {
        serviceName: "svc", selector: { matchLabels: app }, template: template(),
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
      },
    },
    want: {
      spec: {
        replicas: 1, revisionHistoryLimit: 10, podManagementPolicy: "OrderedReady",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        template: { spec: TEMPLATE_SPEC },
        volumeClaimTemplates: [{ spec: { volumeMode: "Filesystem" }, status: { phase: "Pending" } }],
      },
    },
  },
  {
    name: "DaemonSet: RollingUpdate with maxUnavailable 1 (no maxSurge in v1.21), history",
    path: col("apps", "v1", "daemonsets"),
    body: { metadata: { name: "ds" }, spec: { selector: { matchLabels: app }, template: template() } },
    want: { spec: { revisionHistoryLimit: 10, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } }, template: { spec: TEMPLATE_SPEC } } },
    absent: ["spec.updateStrategy.rollingUpdate.maxSurge"],
  },
  {
    name: "ReplicaSet: one replica",
    path: col("apps", "v1", "replicasets"),
    body: { metadata: { name: "rs" }, spec: { selector: { matchLabels: app }, template: template() } },
    want: { spec: { replicas: 1, template: { spec: TEMPLATE_SPEC } } },
  },
  {
    name: "ReplicationController: selector and labels from the template's labels, one replica",
    path: col("", "v1", "replicationcontrollers"),
    body: { metadata: { name: "rc" }, spec: { template: template() } },
    want: { metadata: { labels: app }, spec: { replicas: 1, selector: app, template: { spec: TEMPLATE_SPEC } } },
  },
  {
    name: "PodTemplate: the template's pod spec",
    path: col("", "v1", "podtemplates"),
    body: { metadata: { name: "pt" }, template: template() },
    want: { template: { spec: TEMPLATE_SPEC } },
  },
  {
    name: "Job: parallelism, completions, backoffLimit; labels from its template (completionMode and suspend are v1.22's)",
    path: col("batch", "v1", "jobs"),
    body: { metadata: { name: "job" }, spec: { template: template({ restartPolicy: "Never" }) } },
    want: {
      metadata: { labels: { app: "web" } },
      spec: { parallelism: 1, completions: 1, backoffLimit: 6, template: { spec: { ...TEMPLATE_SPEC, restartPolicy: "Never" } } },
    },
    absent: ["spec.completionMode", "spec.suspend"],
  },
  {
    name: "Job: a parallel job keeps completions unset; without template labels it is labelled as its pods",
    path: col("batch", "v1", "jobs"),
    body: { metadata: { name: "work-queue" }, spec: { parallelism: 3, template: { spec: { containers: [container()], restartPolicy: "Never" } } } },
    want: { metadata: { labels: { "job-name": "work-queue" } }, spec: { parallelism: 3, backoffLimit: 6 } },
    absent: ["spec.completions"],
  },
  {
    name: "CronJob: policy, suspend, history limits; its job template's pod template (not a Job's own defaults)",
    path: col("batch", "v1", "cronjobs"),
    body: { metadata: { name: "cj" }, spec: { schedule: "*/5 * * * *", jobTemplate: { spec: { template: template({ restartPolicy: "OnFailure" }) } } } },
    want: {
      spec: {
        concurrencyPolicy: "Allow", suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1,
        jobTemplate: { spec: { template: { spec: { ...TEMPLATE_SPEC, restartPolicy: "OnFailure" } } } },
      },
    },
    absent: ["spec.jobTemplate.spec.backoffLimit", "spec.jobTemplate.spec.parallelism"],
  },
  {
    name: "Service: type, affinity, protocol, targetPort, address families",
    path: col("", "v1", "services"),
    body: { metadata: { name: "svc" }, spec: { selector: app, ports: [{ port: 80 }] } },
    want: { spec: { type: "ClusterIP", sessionAffinity: "None", ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack", ports: [{ port: 80, protocol: "TCP", targetPort: 80 }] } },
    absent: ["spec.externalTrafficPolicy"],
  },
  {
    name: "Service: NodePort gets externalTrafficPolicy Cluster; ClientIP affinity its timeout",
    path: col("", "v1", "services"),
    body: { metadata: { name: "svc-np" }, spec: { type: "NodePort", sessionAffinity: "ClientIP", selector: app, ports: [{ port: 80, targetPort: "http" }] } },
    want: { spec: { externalTrafficPolicy: "Cluster", sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } }, ports: [{ targetPort: "http" }] } },
  },
  {
    name: "Service: headless without selector requires both families; ExternalName has none",
    path: col("", "v1", "services"),
    body: { metadata: { name: "svc-headless" }, spec: { clusterIP: "None", ports: [{ port: 80 }] } },
    want: { spec: { clusterIPs: ["None"], ipFamilyPolicy: "RequireDualStack", ipFamilies: ["IPv4", "IPv6"] } },
  },
  {
    name: "Service: ExternalName has no address families",
    path: col("", "v1", "services"),
    body: { metadata: { name: "svc-ext" }, spec: { type: "ExternalName", externalName: "example.com" } },
    want: { spec: { type: "ExternalName", sessionAffinity: "None" } },
    absent: ["spec.ipFamilies", "spec.ipFamilyPolicy", "spec.clusterIP"],
  },
  {
    name: "Secret: type Opaque",
    path: col("", "v1", "secrets"),
    body: { metadata: { name: "secret" } },
    want: { type: "Opaque" },
  },
  {
    name: "Endpoints: port protocol",
    path: col("", "v1", "endpoints"),
    body: { metadata: { name: "ep" }, subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }] },
    want: { subsets: [{ ports: [{ port: 80, protocol: "TCP" }] }] },
  },
  {
    name: "PersistentVolumeClaim: volumeMode Filesystem",
    path: col("", "v1", "persistentvolumeclaims"),
    body: { metadata: { name: "pvc" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
    want: { spec: { volumeMode: "Filesystem" }, status: { phase: "Pending" } },
  },
  {
    name: "PersistentVolume: reclaim policy Retain, volumeMode Filesystem",
    path: col("", "v1", "persistentvolumes", false),
    body: { metadata: { name: "defaults-pv" }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv" } } },
    want: { spec: { persistentVolumeReclaimPolicy: "Retain", volumeMode: "Filesystem", hostPath: { type: "" } }, status: { phase: "Pending" } },
  },
  {
    name: "LimitRange: a container's default limit from max, default request from the limit",
    path: col("", "v1", "limitranges"),
    body: { metadata: { name: "lr" }, spec: { limits: [{ type: "Container", max: { cpu: "1" }, min: { memory: "1Mi" } }] } },
    want: { spec: { limits: [{ default: { cpu: "1" }, defaultRequest: { cpu: "1", memory: "1Mi" } }] } },
  },
  {
    name: "HorizontalPodAutoscaler: minReplicas 1",
    path: col("autoscaling", "v1", "horizontalpodautoscalers"),
    body: { metadata: { name: "hpa" }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 3 } },
    want: { spec: { minReplicas: 1 } },
    absent: ["spec.targetCPUUtilizationPercentage"],
  },
  {
    name: "NetworkPolicy: policyTypes from its rules, port protocol",
    path: col("networking.k8s.io", "v1", "networkpolicies"),
    body: { metadata: { name: "np" }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } },
    want: { spec: { policyTypes: ["Ingress", "Egress"], egress: [{ ports: [{ port: 53, protocol: "TCP" }] }] } },
  },
  {
    name: "EndpointSlice: port name and protocol",
    path: col("discovery.k8s.io", "v1", "endpointslices"),
    body: { metadata: { name: "es" }, addressType: "IPv4", endpoints: [{ addresses: ["10.0.0.1"] }], ports: [{ port: 80 }] },
    want: { ports: [{ port: 80, name: "", protocol: "TCP" }] },
  },
  {
    name: "RoleBinding: roleRef and subject API groups",
    path: col(RBAC, "v1", "rolebindings"),
    body: {
      metadata: { name: "rb" }, roleRef: { kind: "Role", name: "r" },
      subjects: [{ kind: "User", name: "alice" }, { kind: "Group", name: "devs" }, { kind: "ServiceAccount", name: "default", namespace: NS }],
    },
    want: { roleRef: { apiGroup: RBAC }, subjects: [{ apiGroup: RBAC }, { apiGroup: RBAC }, { kind: "ServiceAccount" }] },
    absent: ["subjects.2.apiGroup"],
  },
  {
    name: "StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate",
    path: col("storage.k8s.io", "v1", "storageclasses", false),
    body: { metadata: { name: "defaults-sc" }, provisioner: "example.com/p" },
    want: { reclaimPolicy: "Delete", volumeBindingMode: "Immediate" },
  },
  {
    name: "CSIDriver: v1.21's spec defaults",
    path: col("storage.k8s.io", "v1", "csidrivers", false),
    body: { metadata: { name: "defaults.csi.example.com" }, spec: {} },
    want: {
      spec: {
        attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: "ReadWriteOnceWithFSType",
        volumeLifecycleModes: ["Persistent"], requiresRepublish: false,
      },
    },
  },
  {
    name: "PriorityClass: preemptionPolicy PreemptLowerPriority",
    path: col("scheduling.k8s.io", "v1", "priorityclasses", false),
    body: { metadata: { name: "defaults-pc" }, value: 10 },
    want: { preemptionPolicy: "PreemptLowerPriority" },
  },
  {
    name: "MutatingWebhookConfiguration: each webhook's policies, selectors, timeout, rules' scope, service port",
    path: col("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", false),
    body: {
      metadata: { name: "defaults-mwc" },
      webhooks: [{
        name: "w.example.com", sideEffects: "None", admissionReviewVersions: ["v1"],
        clientConfig: { service: { namespace: NS, name: "hook" } },
        // DELETE: this file deletes no pods, so the webhook (which does not exist) is never called
        rules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
      }],
    },
    want: {
      webhooks: [{
        failurePolicy: "Fail", matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10,
        reinvocationPolicy: "Never", rules: [{ scope: "*" }], clientConfig: { service: { port: 443 } },
      }],
    },
  },
  {
    name: "ValidatingWebhookConfiguration: the same but reinvocationPolicy",
    path: col("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false),
    body: {
      metadata: { name: "defaults-vwc" },
      webhooks: [{ name: "w.example.com", sideEffects: "None", admissionReviewVersions: ["v1"], clientConfig: { url: "https://example.com/hook" } }],
    },
    want: { webhooks: [{ failurePolicy: "Fail", matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10 }] },
    absent: ["webhooks.0.reinvocationPolicy"],
  },
  {
    name: "CustomResourceDefinition: singular, listKind, conversion None; the storage version stored",
    path: col("apiextensions.k8s.io", "v1", "customresourcedefinitions", false),
    body: {
      metadata: { name: "gadgets.example.com" },
      spec: {
        group: "example.com", scope: "Namespaced", names: { plural: "gadgets", kind: "Gadget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
      },
    },
    want: { spec: { names: { singular: "gadget", listKind: "GadgetList" }, conversion: { strategy: "None" } }, status: { storedVersions: ["v1"] } },
  },
];

describe("defaults on create", () => {
  for (const c of CASES) {
    test(c.name, async () => {
      const got = await create(c.path, c.body);
      expect(got).toMatchObject(c.want);
      for (const p of c.absent ?? []) expect({ [p]: at(got, p) }).toEqual({ [p]: undefined });
    });
  }

  test("imagePullPolicy follows the image's tag: latest (said or implied) pulls always, a tag or digest if not present", async () => {
    const digest = `sha256:${"a".repeat(64)}`;
    const images: [string, string][] = [
      ["nginx", "Always"], ["nginx:latest", "Always"], ["nginx:1.21", "IfNotPresent"], [`nginx@${digest}`, "IfNotPresent"],
      [`nginx:latest@${digest}`, "Always"], ["localhost:5000/team/app", "Always"], ["registry.example.com:5000/app:v2", "IfNotPresent"],
    ];
    const got = await create(col("", "v1", "pods"), {
      metadata: { name: "images" },
      spec: { containers: images.map(([image], i) => ({ name: `c${i}`, image })) },
    });
    expect(got.spec.containers.map((c: any) => [c.image, c.imagePullPolicy])).toEqual(images);
  });

  test("a pod on the host's network uses its container ports as host ports", async () => {
    const got = await create(col("", "v1", "pods"), {
      metadata: { name: "hostnet" }, spec: { hostNetwork: true, containers: [container({ ports: [{ containerPort: 8080 }] })] },
    });
    expect(got.spec.containers[0].ports).toEqual([{ containerPort: 8080, hostPort: 8080, protocol: "TCP" }]);
  });

  test("a pod's QoS class is computed on create, after limits have become requests", async () => {
    const limitsOnly = await create(col("", "v1", "pods"), {
      metadata: { name: "qos-guaranteed" }, spec: { containers: [container({ resources: { limits: { cpu: "1", memory: "1Gi" } } })] },
    });
    expect(limitsOnly.status.qosClass).toBe("Guaranteed");
    const requestOnly = await create(col("", "v1", "pods"), {
      metadata: { name: "qos-burstable" }, spec: { containers: [container({ resources: { requests: { cpu: "100m" } } })] },
    });
    expect(requestOnly.status.qosClass).toBe("Burstable");
  });

  test("a Namespace is labelled with its name, generated names included", async () => {
    const named = await create("/api/v1/namespaces", { metadata: { name: "defaults-ns", labels: { team: "a" } } });
    expect(named.metadata.labels).toEqual({ team: "a", "kubernetes.io/metadata.name": "defaults-ns" });
    const generated = await create("/api/v1/namespaces", { metadata: { generateName: "defaults-gen-" } });
    expect(generated.metadata.labels).toEqual({ "kubernetes.io/metadata.name": generated.metadata.name });
  });
});

describe("defaults on update", () => {
  const deployments = col("apps", "v1", "deployments");
  const merge = { "content-type": "application/merge-patch+json" };
  const strategic = { "content-type": "application/strategic-merge-patch+json" };

  test("PUT of an object without its defaults gets them again and bumps no generation", async () => {
    const made = await create(deployments, { metadata: { name: "put" }, spec: { selector: { matchLabels: app }, template: template() } });
    const bare = structuredClone(made);
    delete bare.spec.strategy;
    delete bare.spec.revisionHistoryLimit;
    delete bare.spec.template.spec.dnsPolicy;
    delete bare.spec.template.spec.containers[0].imagePullPolicy;
    const r = await s.call("PUT", `${deployments}/put`, bare);
    expectCode(r, 200, "PUT deployment without defaults");
    expect(r.body.spec).toEqual(made.spec);
    expect(r.body.metadata.generation).toBe(1);
    expect(r.body.metadata.resourceVersion).toBe(made.metadata.resourceVersion);
  });

  test("a merge patch removing the strategy gets the default strategy back; a strategic patch's new container its defaults", async () => {
    await create(deployments, { metadata: { name: "patched" }, spec: { strategy: { type: "Recreate" }, selector: { matchLabels: app }, template: template() } });
    const m = await s.call("PATCH", `${deployments}/patched`, { spec: { strategy: null } }, merge);
    expectCode(m, 200, "merge patch strategy: null");
    expect(m.body.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
    const sp = await s.call("PATCH", `${deployments}/patched`, { spec: { template: { spec: { containers: [{ name: "sidecar", image: "busybox", livenessProbe: { exec: { command: ["true"] } } }] } } } }, strategic);
    expectCode(sp, 200, "strategic patch adding a container");
    const sidecar = sp.body.spec.template.spec.containers.find((c: any) => c.name === "sidecar");
    expect(sidecar).toMatchObject({
      imagePullPolicy: "Always", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", resources: {},
      livenessProbe: { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    });
  });

  test("a JSON patch adding a volume without a source makes it an emptyDir", async () => {
    await create(deployments, { metadata: { name: "jsonpatch" }, spec: { selector: { matchLabels: app }, template: template() } });
    const r = await s.call("PATCH", `${deployments}/jsonpatch`, [{ op: "add", path: "/spec/template/spec/volumes", value: [{ name: "tmp" }] }], { "content-type": "application/json-patch+json" });
    expectCode(r, 200, "JSON patch adding a volume");
    expect(r.body.spec.template.spec.volumes).toEqual([{ name: "tmp", emptyDir: {} }]);
  });

  test("apply of a StatefulSet gets its update strategy, and no manager owns the defaults", async () => {
    const config = { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "applied" }, spec: { serviceName: "svc", selector: { matchLabels: app }, template: template() } };
    const path = `${col("apps", "v1", "statefulsets")}/applied?fieldManager=test`;
    const r = await s.call("PATCH", path, config, { "content-type": "application/apply-patch+yaml" });
    expectCode(r, 201, "apply StatefulSet");
    expect(r.body.spec.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { partition: 0 } });
    expect(JSON.stringify(r.body.metadata.managedFields)).not.toContain("updateStrategy");
  });

  test("a status write is defaulted too: a CertificateSigningRequest condition without a status holds", async () => {
    const def = BUILTIN.find((d) => d.kind === "CertificateSigningRequest")!;
    const csrs = col("certificates.k8s.io", "v1", "certificatesigningrequests", false);
    const made = await create(csrs, minimalBody(def, "defaults-csr"));
    const r = await s.call("PUT", `${csrs}/defaults-csr/status`, { ...made, status: { conditions: [{ type: "Failed", reason: "Tested", message: "by a test" }] } });
    expectCode(r, 200, "PUT status with a condition");
    expect(r.body.status.conditions).toMatchObject([{ type: "Failed", status: "True" }]);
  });

  test("the Namespace name label cannot be removed or changed", async () => {
    await create("/api/v1/namespaces", { metadata: { name: "defaults-keep" } });
    const label = "kubernetes.io/metadata.name";
    const m = await s.call("PATCH", "/api/v1/namespaces/defaults-keep", { metadata: { labels: { [label]: null, team: "b" } } }, merge);
    expectCode(m, 200, "merge patch removing the name label");
    expect(m.body.metadata.labels).toEqual({ [label]: "defaults-keep", team: "b" });
    const cur = (await s.call("GET", "/api/v1/namespaces/defaults-keep")).body;
    const r = await s.call("PUT", "/api/v1/namespaces/defaults-keep", { ...cur, metadata: { ...cur.metadata, labels: { [label]: "other" } } });
    expectCode(r, 200, "PUT changing the name label");
    expect(r.body.metadata.labels).toEqual({ [label]: "defaults-keep" });
  });

  test("a Service changed from NodePort to ClusterIP loses its node ports and external traffic policy", async () => {
    const services = col("", "v1", "services");
    const np = await create(services, { metadata: { name: "np-to-cip" }, spec: { type: "NodePort", selector: app, ports: [{ port: 80, name: "http" }, { port: 443, name: "https" }] } });
    expect(np.spec.ports.every((p: any) => p.nodePort >= 30000)).toBe(true);
    const r = await s.call("PATCH", `${services}/np-to-cip`, { spec: { type: "ClusterIP" } }, merge);
    expectCode(r, 200, "merge patch type ClusterIP");
    expect(r.body.spec.type).toBe("ClusterIP");
    expect(r.body.spec.ports.map((p: any) => p.nodePort)).toEqual([undefined, undefined]);
    expect(r.body.spec.externalTrafficPolicy).toBeUndefined();
    expect(r.body.spec.clusterIP).toBe(np.spec.clusterIP);
    // the same through PUT, from LoadBalancer
    const lb = await create(services, { metadata: { name: "lb-to-cip" }, spec: { type: "LoadBalancer", selector: app, ports: [{ port: 80 }] } });
    const put = await s.call("PUT", `${services}/lb-to-cip`, { ...lb, spec: { ...lb.spec, type: "ClusterIP" } });
    expectCode(put, 200, "PUT type ClusterIP");
    expect(put.body.spec.ports[0].nodePort).toBeUndefined();
    // the freed node port can be asked for again
    const again = await s.call("POST", services, { metadata: { name: "np-again" }, spec: { type: "NodePort", selector: app, ports: [{ port: 80, nodePort: np.spec.ports[0].nodePort }] } });
    expectCode(again, 201, "POST NodePort asking for the freed port");
  });
});

describe("Secret stringData is merged into data and never kept", () => {
  const secrets = col("", "v1", "secrets");
  const b64 = (v: string) => Buffer.from(v).toString("base64");
  const merge = { "content-type": "application/merge-patch+json" };

  /** Reads the Secret back (GET and in the list): data as wanted, no stringData anywhere. */
  async function expectStored(name: string, data: Record<string, string>, what: string) {
    const g = await s.call("GET", `${secrets}/${name}`);
    expectCode(g, 200, `GET after ${what}`);
    expect({ what, data: g.body.data, stringData: g.body.stringData }).toEqual({ what, data, stringData: undefined });
    const l = await s.call("GET", secrets);
    const item = l.body.items.find((i: any) => i.metadata.name === name);
    expect({ what, listed: item.data, stringData: item.stringData }).toEqual({ what, listed: data, stringData: undefined });
  }

  test("POST: stringData is base64-encoded into data, winning over data's value of the same key", async () => {
    const r = await s.call("POST", secrets, { metadata: { name: "sd-post" }, data: { a: b64("from-data"), b: b64("kept") }, stringData: { a: "from-stringData", c: "ünï" } });
    expectCode(r, 201, "POST with stringData");
    expect(r.body.stringData).toBeUndefined();
    expect(r.body.type).toBe("Opaque");
    await expectStored("sd-post", { a: b64("from-stringData"), b: b64("kept"), c: b64("ünï") }, "POST");
  });

  test("PUT, merge, strategic and JSON patches, apply: each one's stringData lands in data", async () => {
    const made = await create(secrets, { metadata: { name: "sd-writes" }, data: { a: b64("1") } });
    const put = await s.call("PUT", `${secrets}/sd-writes`, { ...made, stringData: { b: "2" } });
    expectCode(put, 200, "PUT with stringData");
    expect(put.body.stringData).toBeUndefined();
    await expectStored("sd-writes", { a: b64("1"), b: b64("2") }, "PUT");

    expectCode(await s.call("PATCH", `${secrets}/sd-writes`, { stringData: { c: "3" } }, merge), 200, "merge patch");
    await expectStored("sd-writes", { a: b64("1"), b: b64("2"), c: b64("3") }, "merge patch");

    expectCode(await s.call("PATCH", `${secrets}/sd-writes`, { stringData: { a: "one" } }, { "content-type": "application/strategic-merge-patch+json" }), 200, "strategic patch");
    await expectStored("sd-writes", { a: b64("one"), b: b64("2"), c: b64("3") }, "strategic patch");

    const jp = [{ op: "add", path: "/stringData", value: { d: "4" } }];
    expectCode(await s.call("PATCH", `${secrets}/sd-writes`, jp, { "content-type": "application/json-patch+json" }), 200, "JSON patch");
    await expectStored("sd-writes", { a: b64("one"), b: b64("2"), c: b64("3"), d: b64("4") }, "JSON patch");

    const apply = { apiVersion: "v1", kind: "Secret", metadata: { name: "sd-writes" }, stringData: { e: "5" } };
    const ap = await s.call("PATCH", `${secrets}/sd-writes?fieldManager=test&force=true`, apply, { "content-type": "application/apply-patch+yaml" });
    expectCode(ap, 200, "apply");
    expect(ap.body.stringData).toBeUndefined();
    await expectStored("sd-writes", { a: b64("one"), b: b64("2"), c: b64("3"), d: b64("4"), e: b64("5") }, "apply");
  });

  test("apply creating a Secret, and a dry run, return no stringData", async () => {
    const apply = { apiVersion: "v1", kind: "Secret", metadata: { name: "sd-apply" }, stringData: { DB_PASSWORD: "s3cret" } };
    const r = await s.call("PATCH", `${secrets}/sd-apply?fieldManager=kubectl`, apply, { "content-type": "application/apply-patch+yaml" });
    expectCode(r, 201, "apply creating a Secret");
    await expectStored("sd-apply", { DB_PASSWORD: b64("s3cret") }, "apply create");
    const dry = await s.call("POST", `${secrets}?dryRun=All`, { metadata: { name: "sd-dry" }, stringData: { k: "v" } });
    expectCode(dry, 201, "dry-run POST");
    expect({ data: dry.body.data, stringData: dry.body.stringData }).toEqual({ data: { k: b64("v") }, stringData: undefined });
  });

  test("stringData that is not a map of strings is refused", async () => {
    expectStatus(await s.call("POST", secrets, { metadata: { name: "sd-bad" }, stringData: { a: 1 } }), 400, "BadRequest", "POST stringData with a number");
  });
});
