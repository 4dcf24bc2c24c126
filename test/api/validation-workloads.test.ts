// Validation of Pods, pod templates and workloads against a real `kite apiserver`: for each kind a valid
// object is created, and each invalid one is refused with upstream v1.21's cause (field path, reason,
// message words); updates that upstream refuses (immutable fields) are refused too.
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, useServer } from "./fixtures.ts";

const NS = "valwl";
let s: TestServer;
// Validation alone: ServiceAccount admission would refuse a missing account (403) before validation sees its
// name, and DefaultTolerationSeconds' tolerations would be missing from the minimal pods this file PUTs.
useServer(NS, (started) => (s = started), ["--disable-admission-plugins=ServiceAccount,DefaultTolerationSeconds"]);

type Kind = "pod" | "podtemplate" | "rc" | "deploy" | "rs" | "sts" | "ds" | "job" | "cronjob";
const PATHS: Record<Kind, [string, string, string]> = {
  pod: ["v1", "Pod", "pods"], podtemplate: ["v1", "PodTemplate", "podtemplates"], rc: ["v1", "ReplicationController", "replicationcontrollers"],
  deploy: ["apps/v1", "Deployment", "deployments"], rs: ["apps/v1", "ReplicaSet", "replicasets"], sts: ["apps/v1", "StatefulSet", "statefulsets"],
  ds: ["apps/v1", "DaemonSet", "daemonsets"], job: ["batch/v1", "Job", "jobs"], cronjob: ["batch/v1", "CronJob", "cronjobs"],
};
const collection = (k: Kind) => `${PATHS[k][0] === "v1" ? "/api/v1" : `/apis/${PATHS[k][0]}`}/namespaces/${NS}/${PATHS[k][2]}`;

const APP = { app: "web" };
const podSpec = (restartPolicy?: string): any => ({ containers: [{ name: "c", image: "nginx:1.21" }], ...(restartPolicy ? { restartPolicy } : {}) });
const template = (restartPolicy?: string): any => ({ metadata: { labels: { ...APP } }, spec: podSpec(restartPolicy) });
const SPECS: Record<Kind, () => any> = {
  pod: () => ({ spec: podSpec() }),
  podtemplate: () => ({ template: template() }),
  rc: () => ({ spec: { replicas: 1, selector: { ...APP }, template: template() } }),
  deploy: () => ({ spec: { replicas: 2, selector: { matchLabels: { ...APP } }, template: template() } }),
  rs: () => ({ spec: { replicas: 1, selector: { matchLabels: { ...APP } }, template: template() } }),
  sts: () => ({ spec: { replicas: 1, serviceName: "web", selector: { matchLabels: { ...APP } }, template: template() } }),
  ds: () => ({ spec: { selector: { matchLabels: { ...APP } }, template: template() } }),
  job: () => ({ spec: { template: { spec: podSpec("Never") } } }),
  cronjob: () => ({ spec: { schedule: "*/5 * * * *", jobTemplate: { spec: { template: { spec: podSpec("OnFailure") } } } } }),
};

let serial = 0;
function body(k: Kind, change?: (o: any) => void): any {
  const o = { apiVersion: PATHS[k][0], kind: PATHS[k][1], metadata: { name: `${k}-${++serial}` }, ...SPECS[k]() };
  change?.(o);
  return o;
}
/** The pod spec inside an object of any kind. */
function pod(o: any): any {
  if (o.kind === "Pod") return o.spec;
  if (o.kind === "PodTemplate") return o.template.spec;
  if (o.kind === "CronJob") return o.spec.jobTemplate.spec.template.spec;
  return o.spec.template.spec;
}
const prefix = (k: Kind) => ({ pod: "spec", podtemplate: "template.spec", cronjob: "spec.jobTemplate.spec.template.spec" } as Record<string, string>)[k] ?? "spec.template.spec";

type Want = { field: string; reason: string; message: string };
function expectCause(r: { status: number; body: any; headers: Headers }, want: Want, what: string) {
  const st = expectStatus(r, 422, "Invalid", what);
  const causes: any[] = st.details?.causes ?? [];
  const hit = causes.find((c) => c.field === want.field && c.reason === want.reason && String(c.message).includes(want.message));
  if (!hit) throw new Error(`${what}: no cause ${JSON.stringify(want)} among ${JSON.stringify(causes)}`);
  expect(st.message).toContain(`${want.field}: `);
}

describe("valid objects are created", () => {
  const extra: [Kind, string, (o: any) => void][] = [
    ["pod", "everything upstream allows", (o) => {
      o.spec.volumes = [{ name: "data", emptyDir: {} }, { name: "cfg", configMap: { name: "cfg", items: [{ key: "a", path: "a.txt" }] } }, { name: "none" }];
      o.spec.containers[0] = {
        name: "main", image: "nginx:1.21", ports: [{ name: "http", containerPort: 80 }, { containerPort: 53, protocol: "UDP" }],
        env: [{ name: "A", value: "1" }, { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }, { name: "L", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }],
        envFrom: [{ configMapRef: { name: "cfg" }, prefix: "CFG_" }],
        volumeMounts: [{ name: "data", mountPath: "/data", subPath: "sub" }, { name: "none", mountPath: "/none" }],
        resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { cpu: 1, memory: "128Mi" } },
        livenessProbe: { httpGet: { port: "http", path: "/healthz" }, periodSeconds: 10 },
        readinessProbe: { tcpSocket: { port: 80 } }, startupProbe: { exec: { command: ["true"] } },
      };
      o.spec.initContainers = [{ name: "init", image: "busybox", command: ["true"] }];
      o.spec.tolerations = [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 30 }, { operator: "Exists" }];
      o.spec.nodeSelector = { "kubernetes.io/os": "linux" };
    }],
    ["deploy", "Recreate strategy and matchExpressions", (o) => {
      o.spec.strategy = { type: "Recreate" };
      o.spec.selector = { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }, { key: "tier", operator: "DoesNotExist" }] };
    }],
    ["deploy", "rollingUpdate with one of maxSurge/maxUnavailable 0", (o) => { o.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: "100%" } }; }],
    ["rc", "a selector defaulted from the template's labels", (o) => { delete o.spec.selector; }],
    ["ds", "OnDelete", (o) => { o.spec.updateStrategy = { type: "OnDelete" }; }],
    ["sts", "Parallel with a partition", (o) => { o.spec.podManagementPolicy = "Parallel"; o.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 1 } }; }],
    ["job", "a manual selector", (o) => {
      o.spec.manualSelector = true; o.spec.selector = { matchLabels: { ...APP } }; o.spec.template.metadata = { labels: { ...APP } };
      o.spec.parallelism = 0; o.spec.completions = 3; o.spec.backoffLimit = 0;
    }],
    ...["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly", "@every 1h30m", "0 0 1-15/2 JAN,mar MON-fri", "? * * * 0"].map(
      (sch): [Kind, string, (o: any) => void] => ["cronjob", `schedule ${sch}`, (o) => { o.spec.schedule = sch; o.spec.concurrencyPolicy = "Forbid"; }]),
  ];
  const cases: [Kind, string, ((o: any) => void) | undefined][] = [...(Object.keys(PATHS) as Kind[]).map((k): [Kind, string, undefined] => [k, "minimal", undefined]), ...extra];
  for (const [k, what, change] of cases) {
    test(`${PATHS[k][1]}: ${what}`, async () => {
      const r = await s.call("POST", collection(k), body(k, change));
      expectCode(r, 201, `POST ${PATHS[k][1]} ${what}`);
    });
  }
});

// Pod-spec rules, run on every kind that carries a pod spec (the StatefulSet's template is not checked by v1.21).
const POD_KINDS: Kind[] = ["pod", "podtemplate", "rc", "deploy", "rs", "ds", "job", "cronjob"];
type PodCase = [string, (spec: any) => void, string, string, string];
const POD_CASES: PodCase[] = [
  ["container name Bad_Name", (p) => { p.containers[0].name = "Bad_Name"; }, "containers[0].name", "FieldValueInvalid", `Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of`],
  ["two containers with one name", (p) => { p.containers.push({ name: "c", image: "x" }); }, "containers[1].name", "FieldValueDuplicate", `Duplicate value: "c"`],
  ["an init container named as a container", (p) => { p.initContainers = [{ name: "c", image: "x" }]; }, "initContainers[0].name", "FieldValueDuplicate", `Duplicate value: "c"`],
  ["no containers", (p) => { p.containers = []; }, "containers", "FieldValueRequired", "Required value"],
  ["no image", (p) => { delete p.containers[0].image; }, "containers[0].image", "FieldValueRequired", "Required value"],
  ["volumeMount naming no volume", (p) => { p.containers[0].volumeMounts = [{ name: "x", mountPath: "/x" }]; }, "containers[0].volumeMounts[0].name", "FieldValueNotFound", `Not found: "x"`],
  ["two mounts on one path", (p) => { p.volumes = [{ name: "v", emptyDir: {} }]; p.containers[0].volumeMounts = [{ name: "v", mountPath: "/x" }, { name: "v", mountPath: "/x" }]; }, "containers[0].volumeMounts[1].mountPath", "FieldValueInvalid", `Invalid value: "/x": must be unique`],
  ["a subPath going up", (p) => { p.volumes = [{ name: "v", emptyDir: {} }]; p.containers[0].volumeMounts = [{ name: "v", mountPath: "/x", subPath: "../etc" }]; }, "containers[0].volumeMounts.subPath", "FieldValueInvalid", "must not contain '..'"],
  ["two volumes with one name", (p) => { p.volumes = [{ name: "v", emptyDir: {} }, { name: "v", emptyDir: {} }]; }, "volumes[1].name", "FieldValueDuplicate", `Duplicate value: "v"`],
  ["volume name V!", (p) => { p.volumes = [{ name: "V!", emptyDir: {} }]; }, "volumes[0].name", "FieldValueInvalid", "a lowercase RFC 1123 label"],
  ["a volume with two sources", (p) => { p.volumes = [{ name: "v", emptyDir: {}, hostPath: { path: "/x" } }]; }, "volumes[0].hostPath", "FieldValueForbidden", "may not specify more than 1 volume type"],
  ["a secret volume without secretName", (p) => { p.volumes = [{ name: "v", secret: {} }]; }, "volumes[0].secret.secretName", "FieldValueRequired", "Required value"],
  ["a configMap volume's absolute item path", (p) => { p.volumes = [{ name: "v", configMap: { name: "c", items: [{ key: "k", path: "/etc/x" }] } }]; }, "volumes[0].configMap.items[0].path", "FieldValueInvalid", "must be a relative path"],
  ["a claim without claimName", (p) => { p.volumes = [{ name: "v", persistentVolumeClaim: {} }]; }, "volumes[0].persistentVolumeClaim.claimName", "FieldValueRequired", "Required value"],
  ["restartPolicy Sometimes", (p) => { p.restartPolicy = "Sometimes"; }, "restartPolicy", "FieldValueNotSupported", `Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`],
  ["dnsPolicy Maybe", (p) => { p.dnsPolicy = "Maybe"; }, "dnsPolicy", "FieldValueNotSupported", `supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`],
  ["requests above limits", (p) => { p.containers[0].resources = { requests: { cpu: "2" }, limits: { cpu: "1" } }; }, "containers[0].resources.requests", "FieldValueInvalid", `Invalid value: "2": must be less than or equal to cpu limit`],
  ["memory requests above limits", (p) => { p.containers[0].resources = { requests: { memory: "1Gi" }, limits: { memory: "512Mi" } }; }, "containers[0].resources.requests", "FieldValueInvalid", "must be less than or equal to memory limit"],
  ["a negative quantity", (p) => { p.containers[0].resources = { limits: { memory: "-1" } }; }, "containers[0].resources.limits[memory]", "FieldValueInvalid", "must be greater than or equal to 0"],
  ["an unknown resource", (p) => { p.containers[0].resources = { limits: { gpu: "1" } }; }, "containers[0].resources.limits[gpu]", "FieldValueInvalid", "must be a standard resource for containers"],
  ["an extended resource requested below its limit", (p) => { p.containers[0].resources = { requests: { "example.com/gpu": "1" }, limits: { "example.com/gpu": "2" } }; }, "containers[0].resources.requests", "FieldValueInvalid", "must be equal to example.com/gpu limit"],
  ["containerPort 70000", (p) => { p.containers[0].ports = [{ containerPort: 70000 }]; }, "containers[0].ports[0].containerPort", "FieldValueInvalid", "Invalid value: 70000: must be between 1 and 65535, inclusive"],
  ["containerPort 0", (p) => { p.containers[0].ports = [{ containerPort: 0 }]; }, "containers[0].ports[0].containerPort", "FieldValueRequired", "Required value"],
  ["hostPort 65536", (p) => { p.containers[0].ports = [{ containerPort: 80, hostPort: 65536 }]; }, "containers[0].ports[0].hostPort", "FieldValueInvalid", "must be between 1 and 65535, inclusive"],
  ["protocol HTTP", (p) => { p.containers[0].ports = [{ containerPort: 80, protocol: "HTTP" }]; }, "containers[0].ports[0].protocol", "FieldValueNotSupported", `Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`],
  ["two ports with one name", (p) => { p.containers[0].ports = [{ name: "web", containerPort: 80 }, { name: "web", containerPort: 81 }]; }, "containers[0].ports[1].name", "FieldValueDuplicate", `Duplicate value: "web"`],
  ["port name too long", (p) => { p.containers[0].ports = [{ name: "a-very-long-port-name", containerPort: 80 }]; }, "containers[0].ports[0].name", "FieldValueInvalid", "must be no more than 15 characters"],
  ["one host port twice", (p) => { p.containers.push({ name: "d", image: "x", ports: [{ containerPort: 81, hostPort: 8080 }] }); p.containers[0].ports = [{ containerPort: 80, hostPort: 8080 }]; }, "containers[1].ports[0].hostPort", "FieldValueDuplicate", `Duplicate value: "TCP//8080"`],
  ["env name 1A", (p) => { p.containers[0].env = [{ name: "1A", value: "x" }]; }, "containers[0].env[0].name", "FieldValueInvalid", "a valid environment variable name must consist of"],
  ["env valueFrom with no source", (p) => { p.containers[0].env = [{ name: "A", valueFrom: {} }]; }, "containers[0].env[0].valueFrom", "FieldValueInvalid", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"],
  ["env value and valueFrom", (p) => { p.containers[0].env = [{ name: "A", value: "v", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }]; }, "containers[0].env[0].valueFrom", "FieldValueInvalid", "may not be specified when `value` is not empty"],
  ["env fieldRef to an unknown field", (p) => { p.containers[0].env = [{ name: "A", valueFrom: { fieldRef: { fieldPath: "spec.foo" } } }]; }, "containers[0].env[0].valueFrom.fieldRef.fieldPath", "FieldValueInvalid", `Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo`],
  ["env fieldRef to a field only volumes may name", (p) => { p.containers[0].env = [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.labels" } } }]; }, "containers[0].env[0].valueFrom.fieldRef.fieldPath", "FieldValueNotSupported", `Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP", "status.podIPs"`],
  ["envFrom with no source", (p) => { p.containers[0].envFrom = [{ prefix: "X_" }]; }, "containers[0].envFrom", "FieldValueInvalid", "must specify one of: `configMapRef` or `secretRef`"],
  ["a probe with no handler", (p) => { p.containers[0].livenessProbe = { periodSeconds: 5 }; }, "containers[0].livenessProbe", "FieldValueRequired", "must specify a handler type"],
  ["a probe with two handlers", (p) => { p.containers[0].readinessProbe = { exec: { command: ["true"] }, tcpSocket: { port: 80 } }; }, "containers[0].readinessProbe.tcpSocket", "FieldValueForbidden", "may not specify more than 1 handler type"],
  ["a negative probe period", (p) => { p.containers[0].readinessProbe = { tcpSocket: { port: 80 }, periodSeconds: -1 }; }, "containers[0].readinessProbe.periodSeconds", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"],
  ["a liveness successThreshold of 2", (p) => { p.containers[0].livenessProbe = { tcpSocket: { port: 80 }, successThreshold: 2 }; }, "containers[0].livenessProbe.successThreshold", "FieldValueInvalid", "Invalid value: 2: must be 1"],
  ["an httpGet port out of range", (p) => { p.containers[0].livenessProbe = { httpGet: { port: 0 } }; }, "containers[0].livenessProbe.httpGet.port", "FieldValueInvalid", "must be between 1 and 65535, inclusive"],
  ["an httpGet probe without a port", (p) => { p.containers[0].readinessProbe = { httpGet: { path: "/" } }; }, "containers[0].readinessProbe.httpGet.port", "FieldValueInvalid", "Invalid value: 0: must be between 1 and 65535, inclusive"],
  ["imagePullPolicy Sometimes", (p) => { p.containers[0].imagePullPolicy = "Sometimes"; }, "containers[0].imagePullPolicy", "FieldValueNotSupported", `supported values: "Always", "IfNotPresent", "Never"`],
  ["a toleration operator Maybe", (p) => { p.tolerations = [{ key: "k", operator: "Maybe" }]; }, "tolerations[0].operator", "FieldValueNotSupported", `supported values: "Equal", "Exists"`],
  ["a nodeSelector key with spaces", (p) => { p.nodeSelector = { "a b": "c" }; }, "nodeSelector", "FieldValueInvalid", `Invalid value: "a b": name part must consist of`],
  ["serviceAccountName Bad_SA", (p) => { p.serviceAccountName = "Bad_SA"; }, "serviceAccountName", "FieldValueInvalid", "a lowercase RFC 1123 subdomain"],
];

describe("pod spec rules, in a Pod and in every pod template", () => {
  for (const k of POD_KINDS) {
    for (const [what, change, field, reason, message] of POD_CASES) {
      test(`${PATHS[k][1]}: ${what}`, async () => {
        const r = await s.call("POST", collection(k), body(k, (o) => change(pod(o))));
        expectCause(r, { field: `${prefix(k)}.${field}`, reason, message }, `POST ${PATHS[k][1]} with ${what}`);
      });
    }
  }
});

describe("cpu \"lots\" is refused while decoding, as upstream", () => {
  for (const k of POD_KINDS) {
    test(PATHS[k][1], async () => {
      const r = await s.call("POST", collection(k), body(k, (o) => { pod(o).containers[0].resources = { limits: { cpu: "lots" } }; }));
      const st = expectStatus(r, 400, "BadRequest", `POST ${PATHS[k][1]} with cpu "lots"`);
      expect(st.message).toContain(`${PATHS[k][1]} in version "v1" cannot be handled as a ${PATHS[k][1]}: `);
      expect(st.message).toContain("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    });
  }
  test("replicas \"three\" is not a number", async () => {
    const r = await s.call("POST", collection("deploy"), body("deploy", (o) => { o.spec.replicas = "three"; }));
    expect(expectStatus(r, 400, "BadRequest", "replicas three").message).toContain("cannot be handled as a Deployment");
  });
});

const SEL_MISMATCH = "`selector` does not match template `labels`";
const KIND_CASES: [Kind, string, (o: any) => void, string, string, string][] = [
  // replicas and selectors
  ...(["rc", "deploy", "rs", "sts"] as Kind[]).map((k): [Kind, string, (o: any) => void, string, string, string] =>
    [k, "replicas -1", (o) => { o.spec.replicas = -1; }, "spec.replicas", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"]),
  ...(["deploy", "rs", "sts", "ds"] as Kind[]).map((k): [Kind, string, (o: any) => void, string, string, string] =>
    [k, "template labels the selector does not match", (o) => { o.spec.template.metadata.labels = { app: "other" }; }, "spec.template.metadata.labels", "FieldValueInvalid", `Invalid value: map[string]string{"app":"other"}: ${SEL_MISMATCH}`]),
  ...(["deploy", "rs", "sts"] as Kind[]).map((k): [Kind, string, (o: any) => void, string, string, string] =>
    [k, "no selector", (o) => { delete o.spec.selector; }, "spec.selector", "FieldValueRequired", "Required value"]),
  ["deploy", "an empty selector", (o) => { o.spec.selector = {}; }, "spec.selector", "FieldValueInvalid", "empty selector is invalid for deployment"],
  ["rs", "an empty selector", (o) => { o.spec.selector = {}; }, "spec.selector", "FieldValueInvalid", "empty selector is invalid for deployment"],
  ["ds", "an empty selector", (o) => { o.spec.selector = {}; }, "spec.selector", "FieldValueInvalid", "empty selector is invalid for daemonset"],
  ["ds", "no selector (it selects nothing)", (o) => { delete o.spec.selector; }, "spec.template.metadata.labels", "FieldValueInvalid", `Invalid value: map[string]string{"app":"web"}: ${SEL_MISMATCH}`],
  ["sts", "an unparsable selector", (o) => { o.spec.selector = { matchExpressions: [{ key: "app", operator: "Like" }] }; }, "spec.selector.matchExpressions[0].operator", "FieldValueInvalid", "not a valid selector operator"],
  ["sts", "an empty selector", (o) => { o.spec.selector = {}; }, "spec.selector", "FieldValueInvalid", "empty selector is not valid for statefulset."],
  ["deploy", "a selector operator Like", (o) => { o.spec.selector = { matchExpressions: [{ key: "app", operator: "Like", values: ["web"] }] }; }, "spec.selector.matchExpressions[0].operator", "FieldValueInvalid", `Invalid value: "Like": not a valid selector operator`],
  ["deploy", "In without values", (o) => { o.spec.selector = { matchExpressions: [{ key: "app", operator: "In" }] }; }, "spec.selector.matchExpressions[0].values", "FieldValueRequired", "must be specified when `operator` is 'In' or 'NotIn'"],
  ["rs", "Exists with values", (o) => { o.spec.selector = { matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }] }; }, "spec.selector.matchExpressions[0].values", "FieldValueForbidden", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
  ["deploy", "a selector key with spaces", (o) => { o.spec.selector = { matchLabels: { "a b": "web" } }; }, "spec.selector.matchLabels", "FieldValueInvalid", `Invalid value: "a b"`],
  ["rc", "template labels the selector does not match", (o) => { o.spec.selector = { app: "other" }; }, "spec.template.metadata.labels", "FieldValueInvalid", SEL_MISMATCH],
  ["rc", "no selector and no template labels", (o) => { delete o.spec.selector; o.spec.template.metadata.labels = {}; }, "spec.selector", "FieldValueRequired", "Required value"],
  ["deploy", "template labels invalid", (o) => { o.spec.template.metadata.labels["a b"] = "c"; }, "spec.template.labels", "FieldValueInvalid", `Invalid value: "a b"`],
  ["deploy", "an invalid selector (the template is then not checked)", (o) => { o.spec.selector = { matchLabels: { "a b": "c" } }; }, "spec.selector", "FieldValueInvalid", "invalid label selector"],
  // restart policies of workloads
  ...(["rc", "deploy", "rs", "ds", "sts"] as Kind[]).map((k): [Kind, string, (o: any) => void, string, string, string] =>
    [k, "restartPolicy Never", (o) => { o.spec.template.spec.restartPolicy = "Never"; }, "spec.template.spec.restartPolicy", "FieldValueNotSupported", `Unsupported value: "Never": supported values: "Always"`]),
  ["deploy", "activeDeadlineSeconds in the template", (o) => { o.spec.template.spec.activeDeadlineSeconds = 10; }, "spec.template.spec.activeDeadlineSeconds", "FieldValueInvalid", "activeDeadlineSeconds in ReplicaSet is not Supported"],
  ["job", "restartPolicy Always (the default)", (o) => { delete o.spec.template.spec.restartPolicy; }, "spec.template.spec.restartPolicy", "FieldValueNotSupported", `Unsupported value: "Always": supported values: "OnFailure", "Never"`],
  ["cronjob", "restartPolicy Always", (o) => { o.spec.jobTemplate.spec.template.spec.restartPolicy = "Always"; }, "spec.jobTemplate.spec.template.spec.restartPolicy", "FieldValueNotSupported", `supported values: "OnFailure", "Never"`],
  // Deployment strategy
  ["deploy", "strategy type Blue", (o) => { o.spec.strategy = { type: "Blue" }; }, "spec.strategy", "FieldValueNotSupported", `supported values: "Recreate", "RollingUpdate"`],
  ["deploy", "Recreate with rollingUpdate", (o) => { o.spec.strategy = { type: "Recreate", rollingUpdate: { maxSurge: 1 } }; }, "spec.strategy.rollingUpdate", "FieldValueForbidden", "may not be specified when strategy `type` is 'Recreate'"],
  ["deploy", "maxSurge and maxUnavailable both 0", (o) => { o.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: "0%" } }; }, "spec.strategy.rollingUpdate.maxUnavailable", "FieldValueInvalid", "may not be 0 when `maxSurge` is 0"],
  ["deploy", "maxSurge 10 percent", (o) => { o.spec.strategy = { rollingUpdate: { maxSurge: "10 percent" } }; }, "spec.strategy.rollingUpdate.maxSurge", "FieldValueInvalid", "a valid percent string must be a numeric string followed by an ending '%'"],
  ["deploy", "maxUnavailable 150%", (o) => { o.spec.strategy = { rollingUpdate: { maxUnavailable: "150%" } }; }, "spec.strategy.rollingUpdate.maxUnavailable", "FieldValueInvalid", "must not be greater than 100%"],
  ["deploy", "maxSurge -1", (o) => { o.spec.strategy = { rollingUpdate: { maxSurge: -1 } }; }, "spec.strategy.rollingUpdate.maxSurge", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"],
  ["deploy", "progressDeadlineSeconds not above minReadySeconds", (o) => { o.spec.minReadySeconds = 30; o.spec.progressDeadlineSeconds = 30; }, "spec.progressDeadlineSeconds", "FieldValueInvalid", "must be greater than minReadySeconds"],
  ["deploy", "revisionHistoryLimit -1", (o) => { o.spec.revisionHistoryLimit = -1; }, "spec.revisionHistoryLimit", "FieldValueInvalid", "must be greater than or equal to 0"],
  // StatefulSet and DaemonSet
  ["sts", "podManagementPolicy Random", (o) => { o.spec.podManagementPolicy = "Random"; }, "spec.podManagementPolicy", "FieldValueInvalid", "must be 'OrderedReady' or 'Parallel'"],
  ["sts", "updateStrategy Blue", (o) => { o.spec.updateStrategy = { type: "Blue" }; }, "spec.updateStrategy", "FieldValueInvalid", "must be 'RollingUpdate' or 'OnDelete'"],
  ["sts", "OnDelete with rollingUpdate", (o) => { o.spec.updateStrategy = { type: "OnDelete", rollingUpdate: { partition: 1 } }; }, "spec.updateStrategy.rollingUpdate", "FieldValueInvalid", "only allowed for updateStrategy 'RollingUpdate'"],
  ["sts", "a negative partition", (o) => { o.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: -1 } }; }, "spec.updateStrategy.rollingUpdate.partition", "FieldValueInvalid", "must be greater than or equal to 0"],
  ["ds", "updateStrategy Blue", (o) => { o.spec.updateStrategy = { type: "Blue" }; }, "spec.updateStrategy", "FieldValueNotSupported", `supported values: "RollingUpdate", "OnDelete"`],
  ["ds", "maxUnavailable 0", (o) => { o.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0 } }; }, "spec.updateStrategy.rollingUpdate.maxUnavailable", "FieldValueInvalid", "cannot be 0"],
  // Job
  ...(["parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"]).map((f): [Kind, string, (o: any) => void, string, string, string] =>
    ["job", `${f} -1`, (o) => { o.spec[f] = -1; }, `spec.${f}`, "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"]),
  ["job", "completionMode Sometimes", (o) => { o.spec.completionMode = "Sometimes"; }, "spec.completionMode", "FieldValueNotSupported", `supported values: "NonIndexed", "Indexed"`],
  ["job", "a manual selector the template does not match", (o) => { o.spec.manualSelector = true; o.spec.selector = { matchLabels: { app: "x" } }; }, "spec.template.metadata.labels", "FieldValueInvalid", SEL_MISMATCH],
  ["job", "a manual selector without labels", (o) => { o.spec.manualSelector = true; }, "spec.selector", "FieldValueRequired", "Required value"],
  // CronJob
  ["cronjob", "schedule `not a schedule`", (o) => { o.spec.schedule = "not a schedule"; }, "spec.schedule", "FieldValueInvalid", `Invalid value: "not a schedule": expected exactly 5 fields, found 3: [not a schedule]`],
  ["cronjob", "no schedule", (o) => { delete o.spec.schedule; }, "spec.schedule", "FieldValueRequired", "Required value"],
  ["cronjob", "minute 60", (o) => { o.spec.schedule = "60 * * * *"; }, "spec.schedule", "FieldValueInvalid", "end of range (60) above maximum (59): 60"],
  ["cronjob", "day of week 7", (o) => { o.spec.schedule = "0 0 * * 7"; }, "spec.schedule", "FieldValueInvalid", "end of range (7) above maximum (6): 7"],
  ["cronjob", "a word for a minute", (o) => { o.spec.schedule = "x * * * *"; }, "spec.schedule", "FieldValueInvalid", `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`],
  ["cronjob", "@fortnightly", (o) => { o.spec.schedule = "@fortnightly"; }, "spec.schedule", "FieldValueInvalid", "unrecognized descriptor: @fortnightly"],
  ["cronjob", "@every with no duration", (o) => { o.spec.schedule = "@every soon"; }, "spec.schedule", "FieldValueInvalid", "failed to parse duration @every soon"],
  ["cronjob", "concurrencyPolicy Sometimes", (o) => { o.spec.concurrencyPolicy = "Sometimes"; }, "spec.concurrencyPolicy", "FieldValueNotSupported", `Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`],
  ["cronjob", "a selector in the job template", (o) => { o.spec.jobTemplate.spec.selector = { matchLabels: { a: "b" } }; }, "spec.jobTemplate.spec.selector", "FieldValueInvalid", "`selector` will be auto-generated"],
  ["cronjob", "startingDeadlineSeconds -1", (o) => { o.spec.startingDeadlineSeconds = -1; }, "spec.startingDeadlineSeconds", "FieldValueInvalid", "must be greater than or equal to 0"],
  ["cronjob", "a name of 53 characters", (o) => { o.metadata.name = "c".repeat(53); }, "metadata.name", "FieldValueInvalid", "must be no more than 52 characters"],
  ["cronjob", "job template parallelism -1", (o) => { o.spec.jobTemplate.spec.parallelism = -1; }, "spec.jobTemplate.spec.parallelism", "FieldValueInvalid", "must be greater than or equal to 0"],
];

describe("rules of each workload kind", () => {
  for (const [k, what, change, field, reason, message] of KIND_CASES) {
    test(`${PATHS[k][1]}: ${what}`, async () => {
      const r = await s.call("POST", collection(k), body(k, change));
      expectCause(r, { field, reason, message }, `POST ${PATHS[k][1]} with ${what}`);
    });
  }
  test("a StatefulSet's pod template is not validated by v1.21 beyond labels and restart policy", async () => {
    const r = await s.call("POST", collection("sts"), body("sts", (o) => { o.spec.template.spec.containers[0].name = "Bad_Name"; }));
    expectCode(r, 201, "POST StatefulSet with container Bad_Name");
  });
  test("one request reports every cause", async () => {
    const r = await s.call("POST", collection("deploy"), body("deploy", (o) => {
      o.spec.replicas = -1;
      o.spec.template.spec.containers.push({ name: "c", image: "x", ports: [{ containerPort: 70000 }] });
    }));
    const st = expectStatus(r, 422, "Invalid", "POST deployment with three faults");
    expect(st.details.causes.map((c: any) => c.field).sort()).toEqual(["spec.replicas", "spec.template.spec.containers[1].name", "spec.template.spec.containers[1].ports[0].containerPort"]);
    expect(st.message).toStartWith(`Deployment.apps "${st.details.name}" is invalid: [`);
    // nothing was stored
    expectCode(await s.call("GET", `${collection("deploy")}/${st.details.name}`), 404, "GET refused deployment");
  });
});

/** Creates a valid object, then PUTs it back changed; returns the reply. */
async function update(k: Kind, change: (o: any) => void, create?: (o: any) => void) {
  const c = await s.call("POST", collection(k), body(k, create));
  expectCode(c, 201, `POST ${PATHS[k][1]}`);
  const next = structuredClone(c.body);
  change(next);
  return s.call("PUT", `${collection(k)}/${c.body.metadata.name}`, next);
}

describe("updates", () => {
  const IMMUTABLE: [Kind, string, (o: any) => void, string, string, string][] = [
    ...(["deploy", "rs", "ds"] as Kind[]).map((k): [Kind, string, (o: any) => void, string, string, string] => [k, "the selector", (o) => {
      o.spec.selector = { matchLabels: { app: "web", tier: "x" } }; o.spec.template.metadata.labels.tier = "x";
    }, "spec.selector", "FieldValueInvalid", `Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`]),
    ["sts", "serviceName", (o) => { o.spec.serviceName = "other"; }, "spec", "FieldValueForbidden", "Forbidden: updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden"],
    ["sts", "podManagementPolicy", (o) => { o.spec.podManagementPolicy = "Parallel"; }, "spec", "FieldValueForbidden", "updates to statefulset spec for fields other than"],
    ["sts", "replicas to -1", (o) => { o.spec.replicas = -1; }, "spec.replicas", "FieldValueInvalid", "must be greater than or equal to 0"],
    ["job", "the template", (o) => { o.spec.template.spec.containers[0].image = "nginx:1.22"; }, "spec.template", "FieldValueInvalid", "field is immutable"],
    ["job", "completions", (o) => { o.spec.completions = 3; }, "spec.completions", "FieldValueInvalid", "Invalid value: 3: field is immutable"],
    ["job", "the selector", (o) => { o.spec.selector.matchLabels.extra = "x"; }, "spec.selector", "FieldValueInvalid", "field is immutable"],
    ["pod", "a container's name", (o) => { o.spec.containers[0].name = "d"; }, "spec", "FieldValueForbidden", "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)"],
    ["pod", "an added container", (o) => { o.spec.containers.push({ name: "d", image: "x" }); }, "spec.containers", "FieldValueForbidden", "pod updates may not add or remove containers"],
    ["pod", "a longer activeDeadlineSeconds", (o) => { o.spec.activeDeadlineSeconds = 200; }, "spec.activeDeadlineSeconds", "FieldValueInvalid", "must be less than or equal to previous value"],
    ["deploy", "an invalid template", (o) => { o.spec.template.spec.containers[0].name = "Bad_Name"; }, "spec.template.spec.containers[0].name", "FieldValueInvalid", "a lowercase RFC 1123 label"],
    ["cronjob", "the schedule to `not a schedule`", (o) => { o.spec.schedule = "not a schedule"; }, "spec.schedule", "FieldValueInvalid", "expected exactly 5 fields"],
  ];
  for (const [k, what, change, field, reason, message] of IMMUTABLE) {
    test(`${PATHS[k][1]}: changing ${what} is refused`, async () => {
      const r = await update(k, change, k === "pod" ? (o) => { o.spec.activeDeadlineSeconds = 100; } : undefined);
      expectCause(r, { field, reason, message }, `PUT ${PATHS[k][1]} changing ${what}`);
    });
  }

  const ALLOWED: [Kind, string, (o: any) => void][] = [
    ["deploy", "replicas, template and strategy", (o) => { o.spec.replicas = 5; o.spec.template.spec.containers[0].image = "nginx:1.22"; o.spec.strategy = { type: "Recreate" }; }],
    ["sts", "replicas, template and updateStrategy", (o) => { o.spec.replicas = 3; o.spec.template.spec.containers[0].image = "nginx:1.22"; o.spec.updateStrategy = { type: "OnDelete" }; }],
    ["rc", "the selector (not immutable on v1 ReplicationControllers)", (o) => { o.spec.selector = { app: "web", tier: "x" }; o.spec.template.metadata.labels.tier = "x"; }],
    ["job", "parallelism and labels", (o) => { o.spec.parallelism = 2; o.metadata.labels = { touched: "yes" }; }],
    ["pod", "the image, a shorter deadline and a new toleration", (o) => { o.spec.containers[0].image = "nginx:1.22"; o.spec.activeDeadlineSeconds = 50; o.spec.tolerations = [...(o.spec.tolerations ?? []), { key: "k", operator: "Exists" }]; }],
    ["podtemplate", "the template", (o) => { o.template.spec.containers[0].image = "nginx:1.22"; }],
    ["cronjob", "schedule and job template", (o) => { o.spec.schedule = "@hourly"; o.spec.jobTemplate.spec.template.spec.containers[0].image = "busybox"; }],
  ];
  for (const [k, what, change] of ALLOWED) {
    test(`${PATHS[k][1]}: changing ${what} is allowed`, async () => {
      const r = await update(k, change, k === "pod" ? (o) => { o.spec.activeDeadlineSeconds = 100; } : undefined);
      expectCode(r, 200, `PUT ${PATHS[k][1]} changing ${what}`);
    });
  }

  test("a Pod PUT without the defaulted fields, changing only the image, is allowed (defaults apply first)", async () => {
    const c = await s.call("POST", collection("pod"), body("pod"));
    expectCode(c, 201, "POST pod");
    const { name, resourceVersion } = c.body.metadata;
    const next = { apiVersion: "v1", kind: "Pod", metadata: { name, resourceVersion }, spec: { containers: [{ name: "c", image: "nginx:1.22" }] } };
    const u = await s.call("PUT", `${collection("pod")}/${name}`, next);
    expectCode(u, 200, "PUT minimal pod with a new image");
    expect(u.body.spec.containers[0].image).toBe("nginx:1.22");
  });

  test("a status write does not re-validate the spec, a merge patch of an invalid spec is refused", async () => {
    const c = await s.call("POST", collection("deploy"), body("deploy"));
    expectCode(c, 201, "POST deployment");
    const name = c.body.metadata.name;
    const st = structuredClone(c.body);
    st.status = { replicas: 1, observedGeneration: 1 };
    expectCode(await s.call("PUT", `${collection("deploy")}/${name}/status`, st), 200, "PUT status");
    const p = await s.call("PATCH", `${collection("deploy")}/${name}`, { spec: { replicas: -3 } }, { "Content-Type": "application/merge-patch+json" });
    expectCause(p, { field: "spec.replicas", reason: "FieldValueInvalid", message: "Invalid value: -3: must be greater than or equal to 0" }, "PATCH replicas -3");
    expect((await s.call("GET", `${collection("deploy")}/${name}`)).body.spec.replicas).toBe(2);
  });
});
