// Validation of the built-in kinds other than Pods and workloads, table-driven: per kind a valid object
// (201), invalid ones (422 Invalid naming upstream's field path, reason and message words), and updates that
// upstream allows or refuses (immutable fields).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import type { ResourceDef } from "../../pkg/registry/types.ts";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, minimalBody, pathFor, useServer } from "./fixtures.ts";

setDefaultTimeout(60_000);

const NS = "valid";
const R = "FieldValueRequired", I = "FieldValueInvalid", NS_ = "FieldValueNotSupported", D = "FieldValueDuplicate";
const F = "FieldValueForbidden", TL = "FieldValueTooLong";
const RBAC = "rbac.authorization.k8s.io";
const b64 = (s: string) => Buffer.from(s).toString("base64");

type Mutate = (o: any) => void;
/** An object upstream refuses: what to change in the valid one, then the cause it must give. */
type Bad = [label: string, change: Mutate, field: string, reason: string, words?: string];
/** An update: the object as created (start), the change, and the cause it must give (none: 200 OK). */
interface Update { label: string; start?: Mutate; change: Mutate; field?: string; reason?: string; words?: string | ((changed: any) => string) }
interface Table { kind: string; group?: string; good?: [string, Mutate][]; bad: Bad[]; updates?: Update[] }

const port = (p: object) => (o: any) => { o.spec.ports = [{ port: 80, ...p }]; };
const webhook = {
  name: "hook.example.com", clientConfig: { url: "https://hook.example.com/check" }, failurePolicy: "Ignore",
  rules: [{ operations: ["CREATE"], apiGroups: ["example.com"], apiVersions: ["v1"], resources: ["widgets"] }],
  sideEffects: "None", admissionReviewVersions: ["v1"],
};
const withHook = (h: object) => (o: any) => { o.webhooks = [{ ...structuredClone(webhook), ...h }]; };
const ingressRule = (r: object) => (o: any) => {
  o.spec = { rules: [{ host: "example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } }, ...r }] } }] };
};
const netpolIngress = (rule: object) => (o: any) => { o.spec.ingress = [rule]; };
const limit = (l: object) => (o: any) => { o.spec.limits = [l]; };
const FC = "flowcontrol.apiserver.k8s.io";
const fsRule = (rule: object) => (o: any) => { o.spec.rules = [{ subjects: [{ kind: "User", user: { name: "alice" } }], ...rule }]; };
const limited = (l: object) => (o: any) => { o.spec = { type: "Limited", limited: l }; };
const crdName = (o: any) => { o.metadata.name = `${o.spec.names.plural}.${o.spec.group}`; };

const TABLES: Table[] = [
  {
    kind: "Service",
    good: [
      ["ExternalName", (o) => { o.spec = { type: "ExternalName", externalName: "db.example.com." }; }],
      ["named ports", (o) => { o.spec.ports = [{ name: "http", port: 80 }, { name: "https", port: 443, targetPort: "https" }]; }],
    ],
    bad: [
      ["port 70000", port({ port: 70000 }), "spec.ports[0].port", I, "Invalid value: 70000: must be between 1 and 65535, inclusive"],
      ["protocol HTTP", port({ protocol: "HTTP" }), "spec.ports[0].protocol", NS_, `Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`],
      ["two ports, one name", (o) => { o.spec.ports = [{ name: "a", port: 80 }, { name: "a", port: 81 }]; }, "spec.ports[1].name", D, `Duplicate value: "a"`],
      ["two ports, no names", (o) => { o.spec.ports = [{ port: 80 }, { port: 81 }]; }, "spec.ports[0].name", R],
      ["a port name not a DNS label", port({ name: "Web_Port" }), "spec.ports[0].name", I, "a lowercase RFC 1123 label"],
      ["a repeated port", (o) => { o.spec.ports = [{ name: "a", port: 80 }, { name: "b", port: 80 }]; }, "spec.ports[1]", D, `Protocol:"TCP"`],
      ["type Weird", (o) => { o.spec.type = "Weird"; }, "spec.type", NS_, `supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`],
      ["targetPort Bad_Name", port({ targetPort: "Bad_Name" }), "spec.ports[0].targetPort", I, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"],
      ["targetPort 0x10000", port({ targetPort: 65536 }), "spec.ports[0].targetPort", I, "must be between 1 and 65535, inclusive"],
      ["nodePort 70000", (o) => { o.spec.type = "NodePort"; o.spec.ports = [{ port: 80, nodePort: 70000 }]; }, "spec.ports[0].nodePort", I, "provided port is not in the valid range"],
      ["nodePort on ClusterIP", port({ nodePort: 30080 }), "spec.ports[0].nodePort", F, "may not be used when `type` is 'ClusterIP'"],
      ["no ports", (o) => { o.spec.ports = []; }, "spec.ports", R],
      ["ExternalName without a name", (o) => { o.spec = { type: "ExternalName" }; }, "spec.externalName", R],
      ["ExternalName BAD_NAME!", (o) => { o.spec = { type: "ExternalName", externalName: "BAD_NAME!" }; }, "spec.externalName", I, "RFC 1123 subdomain"],
      ["sessionAffinity Sticky", (o) => { o.spec.sessionAffinity = "Sticky"; }, "spec.sessionAffinity", NS_, `supported values: "ClientIP", "None"`],
      ["a loopback external IP", (o) => { o.spec.externalIPs = ["127.0.0.1"]; }, "spec.externalIPs[0]", I, "may not be in the loopback range (127.0.0.0/8)"],
      ["clusterIP not an IP", (o) => { o.spec.clusterIP = "ten"; }, "spec.clusterIPs[0]", I, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"],
      ["selector value Bad Value", (o) => { o.spec.selector = { app: "Bad Value" }; }, "spec.selector", I, "a valid label must be an empty string"],
    ],
    updates: [
      { label: "ports changed", change: (o) => { o.spec.ports = [{ port: 81 }]; } },
      {
        label: "clusterIP changed", change: (o) => { o.spec.clusterIP = bumpIP(o.spec.clusterIP); },
        field: "spec.clusterIPs[0]", reason: I, words: (o) => `Invalid value: []string{"${o.spec.clusterIP}"}: may not change once set`,
      },
      {
        label: "clusterIPs changed", change: (o) => { o.spec.clusterIP = bumpIP(o.spec.clusterIP); o.spec.clusterIPs = [o.spec.clusterIP]; },
        field: "spec.clusterIPs[0]", reason: I, words: "may not change once set",
      },
    ],
  },
  {
    kind: "Endpoints",
    bad: [
      ["an address not an IP", (o) => { o.subsets[0].addresses = [{ ip: "host-1" }]; }, "subsets[0].addresses[0].ip", I, "must be a valid IP address"],
      ["a loopback address", (o) => { o.subsets[0].addresses = [{ ip: "127.0.0.1" }]; }, "subsets[0].addresses[0].ip", I, "may not be in the loopback range (127.0.0.0/8)"],
      ["a subset without addresses", (o) => { o.subsets[0].addresses = []; }, "subsets[0]", R, "must specify `addresses` or `notReadyAddresses`"],
      ["two ports, no names", (o) => { o.subsets[0].ports = [{ port: 80 }, { port: 81 }]; }, "subsets[0].ports[0].name", R],
      ["port 0", (o) => { o.subsets[0].ports = [{ port: 0 }]; }, "subsets[0].ports[0].port", I, "must be between 1 and 65535, inclusive"],
    ],
  },
  {
    kind: "Secret",
    good: [
      ["kubernetes.io/tls", (o) => { o.type = "kubernetes.io/tls"; o.data = { "tls.crt": b64("c"), "tls.key": b64("k") }; }],
      ["dockerconfigjson", (o) => { o.type = "kubernetes.io/dockerconfigjson"; o.data = { ".dockerconfigjson": b64('{"auths":{}}') }; }],
      ["basic-auth", (o) => { o.type = "kubernetes.io/basic-auth"; o.data = { username: b64("u") }; }],
    ],
    bad: [
      ["tls without tls.crt", (o) => { o.type = "kubernetes.io/tls"; o.data = { "tls.key": b64("k") }; }, "data[tls.crt]", R],
      ["tls without tls.key", (o) => { o.type = "kubernetes.io/tls"; o.data = { "tls.crt": b64("c") }; }, "data[tls.key]", R],
      ["key with a space", (o) => { o.data = { "bad key": b64("v") }; }, "data[bad key]", I, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"],
      ["key ..x", (o) => { o.data = { "..x": b64("v") }; }, "data[..x]", I, "must not start with '..'"],
      ["dockerconfigjson missing", (o) => { o.type = "kubernetes.io/dockerconfigjson"; o.data = {}; }, "data[.dockerconfigjson]", R],
      ["dockerconfigjson not JSON", (o) => { o.type = "kubernetes.io/dockerconfigjson"; o.data = { ".dockerconfigjson": b64("{nope") }; }, "data[.dockerconfigjson]", I, "<secret contents redacted>"],
      ["dockercfg missing", (o) => { o.type = "kubernetes.io/dockercfg"; o.data = {}; }, "data[.dockercfg]", R],
      ["basic-auth with neither", (o) => { o.type = "kubernetes.io/basic-auth"; o.data = {}; }, "data[%s][username]", R],
      ["ssh-auth without a key", (o) => { o.type = "kubernetes.io/ssh-auth"; o.data = {}; }, "data[%s][ssh-privatekey]", R],
      ["service-account-token unnamed", (o) => { o.type = "kubernetes.io/service-account-token"; }, "metadata.annotations[kubernetes.io/service-account.name]", R],
      ["over 1 MiB", (o) => { o.data = { big: Buffer.alloc(1024 * 1024 + 1, 97).toString("base64") }; }, "data", TL, "Too long: must have at most 1048576 bytes"],
    ],
    updates: [
      { label: "data changed", change: (o) => { o.data = { key: b64("other") }; } },
      { label: "type changed", change: (o) => { o.type = "kubernetes.io/basic-auth"; o.data = { username: b64("u") }; }, field: "type", reason: I, words: "field is immutable" },
      { label: "immutable data changed", start: (o) => { o.immutable = true; }, change: (o) => { o.data = { key: b64("other") }; }, field: "data", reason: F, words: "field is immutable when `immutable` is set" },
      { label: "immutable unset", start: (o) => { o.immutable = true; }, change: (o) => { o.immutable = false; }, field: "immutable", reason: F, words: "field is immutable when `immutable` is set" },
      { label: "immutable, labels changed", start: (o) => { o.immutable = true; }, change: (o) => { o.metadata.labels = { a: "b" }; } },
    ],
  },
  {
    kind: "ConfigMap",
    bad: [
      ["key a/b", (o) => { o.data = { "a/b": "v" }; }, "data[a/b]", I, "regex used for validation is '[-._a-zA-Z0-9]+'"],
      ["key ..", (o) => { o.data = { "..": "v" }; }, "data[..]", I, "must not be '..'"],
      ["binaryData key also in data", (o) => { o.binaryData = { key: b64("v") }; }, "data[key]", I, "duplicate of key present in binaryData"],
      ["over 1 MiB", (o) => { o.data = { big: "x".repeat(1024 * 1024 + 1) }; }, "", TL, "Too long: must have at most 1048576 bytes"],
    ],
    updates: [
      { label: "data changed", change: (o) => { o.data = { key: "other" }; } },
      { label: "immutable data changed", start: (o) => { o.immutable = true; }, change: (o) => { o.data = { key: "other" }; }, field: "data", reason: F, words: "field is immutable when `immutable` is set" },
      { label: "immutable binaryData added", start: (o) => { o.immutable = true; }, change: (o) => { o.binaryData = { b: b64("v") }; }, field: "binaryData", reason: F },
      { label: "immutable unset", start: (o) => { o.immutable = true; }, change: (o) => { delete o.immutable; }, field: "immutable", reason: F },
    ],
  },
  {
    kind: "Namespace",
    bad: [["finalizer foo", (o) => { o.spec = { finalizers: ["foo"] }; }, "spec.finalizers", I, "name is neither a standard finalizer name nor is it fully qualified"]],
  },
  {
    kind: "Node",
    good: [["a taint", (o) => { o.spec.taints = [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }]; }]],
    bad: [
      ["taint effect Sometimes", (o) => { o.spec.taints = [{ key: "k", effect: "Sometimes" }]; }, "spec.taints[0].effect", NS_, `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`],
      ["taint without effect", (o) => { o.spec.taints = [{ key: "k" }]; }, "spec.taints[0].effect", R],
      ["taint key with a space", (o) => { o.spec.taints = [{ key: "bad key", effect: "NoSchedule" }]; }, "spec.taints[0].key", I, "name part must consist of alphanumeric characters"],
      ["repeated taint", (o) => { o.spec.taints = [{ key: "k", effect: "NoSchedule" }, { key: "k", value: "v", effect: "NoSchedule" }]; }, "spec.taints[1]", D, "taints must be unique by key and effect pair"],
      ["podCIDRs not a CIDR", (o) => { o.spec.podCIDRs = ["10.0.0.0"]; }, "spec.podCIDRs[0]", I, "must be a valid CIDR"],
    ],
    updates: [
      { label: "podCIDRs changed", start: (o) => { o.spec.podCIDRs = ["10.244.0.0/24"]; }, change: (o) => { o.spec.podCIDRs = ["10.244.1.0/24"]; }, field: "spec.podCIDRs", reason: F, words: "node updates may not change podCIDR except from \"\" to valid" },
      { label: "unschedulable set", change: (o) => { o.spec.unschedulable = true; } },
    ],
  },
  {
    kind: "PersistentVolume",
    bad: [
      ["no capacity", (o) => { delete o.spec.capacity; }, "spec.capacity", R],
      ["capacity of cpu", (o) => { o.spec.capacity = { cpu: "1" }; }, "spec.capacity", NS_, `supported values: "storage"`],
      ["access mode ReadWriteSometimes", (o) => { o.spec.accessModes = ["ReadWriteSometimes"]; }, "spec.accessModes", NS_, `"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"`],
      ["no access modes", (o) => { delete o.spec.accessModes; }, "spec.accessModes", R, "at least 1 access mode is required"],
      ["no volume source", (o) => { delete o.spec.hostPath; }, "spec", R, "must specify a volume type"],
      ["two volume sources", (o) => { o.spec.nfs = { server: "nfs.example.com", path: "/x" }; }, "spec.nfs", F, "may not specify more than 1 volume type"],
      ["reclaim policy Keep", (o) => { o.spec.persistentVolumeReclaimPolicy = "Keep"; }, "spec.persistentVolumeReclaimPolicy", NS_],
    ],
    updates: [
      { label: "capacity changed", change: (o) => { o.spec.capacity = { storage: "2Gi" }; } },
      { label: "source changed", change: (o) => { o.spec.hostPath = { path: "/tmp/other" }; }, field: "spec.persistentvolumesource", reason: F, words: "spec.persistentvolumesource is immutable after creation" },
    ],
  },
  {
    kind: "PersistentVolumeClaim",
    bad: [
      ["no storage request", (o) => { o.spec.resources = {}; }, "spec.resources[storage]", R],
      ["no access modes", (o) => { o.spec.accessModes = []; }, "spec.accessModes", R, "at least 1 access mode is required"],
      ["storage -1Gi", (o) => { o.spec.resources.requests.storage = "-1Gi"; }, "spec.resources[storage]", I, "must be greater than or equal to 0"],
      ["storage 0", (o) => { o.spec.resources.requests.storage = "0"; }, "spec.resources[storage]", I, "must be greater than zero"],
      ["volumeMode Raw", (o) => { o.spec.volumeMode = "Raw"; }, "spec.volumeMode", NS_, `"Block", "Filesystem"`],
      ["selector operator Near", (o) => { o.spec.selector = { matchExpressions: [{ key: "a", operator: "Near" }] }; }, "spec.selector.matchExpressions[0].operator", I, "not a valid selector operator"],
    ],
    updates: [
      { label: "access modes changed", change: (o) => { o.spec.accessModes = ["ReadWriteMany"]; }, field: "spec", reason: F, words: "spec is immutable after creation except resources.requests for bound claims" },
      { label: "storage of an unbound claim changed", change: (o) => { o.spec.resources.requests.storage = "2Gi"; }, field: "spec", reason: F, words: "spec is immutable after creation" },
      { label: "labels changed", change: (o) => { o.metadata.labels = { tier: "db" }; } },
    ],
  },
  {
    kind: "ResourceQuota",
    bad: [
      ["resource foo", (o) => { o.spec.hard = { foo: "1" }; }, "spec.hard[foo]", I, "must be a standard resource type or fully qualified"],
      ["pods -1", (o) => { o.spec.hard = { pods: "-1" }; }, "spec.hard[pods]", I, "must be greater than or equal to 0"],
      ["pods 1500m", (o) => { o.spec.hard = { pods: "1500m" }; }, "spec.hard[pods]", I, "must be an integer"],
      ["scope Sometimes", (o) => { o.spec.scopes = ["Sometimes"]; }, "spec.scopes", I, `Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope`],
      ["storage (not for quota)", (o) => { o.spec.hard = { storage: "1Gi" }; }, "spec.hard[storage]", I, "must be a standard resource for quota"],
    ],
  },
  {
    kind: "LimitRange",
    bad: [
      ["type Thing", limit({ type: "Thing", max: { cpu: "1" } }), "spec.limits[0].type", I, "must be a standard limit type or fully qualified"],
      ["min above max", limit({ type: "Container", min: { cpu: "2" }, max: { cpu: "1" } }), "spec.limits[0].min[cpu]", I, "min value 2 is greater than max value 1"],
      ["default above max", limit({ type: "Container", default: { memory: "2Gi" }, max: { memory: "1Gi" } }), "spec.limits[0].default[memory]", I, "default value 2Gi is greater than max value 1Gi"],
      ["Pod with a default", limit({ type: "Pod", default: { cpu: "1" } }), "spec.limits[0].default", F, "may not be specified when `type` is 'Pod'"],
      ["PVC without storage", limit({ type: "PersistentVolumeClaim", max: { cpu: "1" } }), "spec.limits[0].limits", R, "either minimum or maximum storage value is required"],
    ],
  },
  {
    kind: "HorizontalPodAutoscaler", group: "autoscaling",
    bad: [
      ["maxReplicas 0", (o) => { o.spec.minReplicas = 1; o.spec.maxReplicas = 0; }, "spec.maxReplicas", I, "Invalid value: 0: must be greater than 0"],
      ["min above max", (o) => { o.spec.minReplicas = 5; }, "spec.maxReplicas", I, "must be greater than or equal to `minReplicas`"],
      ["minReplicas 0", (o) => { o.spec.minReplicas = 0; }, "spec.minReplicas", I, "must be greater than or equal to 1"],
      ["no target name", (o) => { delete o.spec.scaleTargetRef.name; }, "spec.scaleTargetRef.name", R],
      ["cpu target 0", (o) => { o.spec.targetCPUUtilizationPercentage = 0; }, "spec.metrics[0].resource.target.averageUtilization", I, "must be greater than 0"],
    ],
  },
  {
    kind: "Ingress", group: "networking.k8s.io",
    good: [
      ["a rule", ingressRule({})],
      ["a TLS host", (o) => { ingressRule({})(o); o.spec.rules[0].host = "*.example.com"; o.spec.tls = [{ hosts: ["*.example.com"], secretName: "tls" }]; }],
    ],
    bad: [
      ["host BAD_HOST!", (o) => { ingressRule({})(o); o.spec.rules[0].host = "BAD_HOST!"; }, "spec.rules[0].host", I, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"],
      ["host an IP", (o) => { ingressRule({})(o); o.spec.rules[0].host = "10.0.0.1"; }, "spec.rules[0].host", I, "must be a DNS name, not an IP address"],
      ["bad wildcard", (o) => { ingressRule({})(o); o.spec.rules[0].host = "*.*.example.com"; }, "spec.rules[0].host", I, "a wildcard DNS-1123 subdomain must start with '*.'"],
      ["path without pathType", ingressRule({ pathType: undefined }), "spec.rules[0].http.paths[0].pathType", R, "pathType must be specified"],
      ["pathType Glob", ingressRule({ pathType: "Glob" }), "spec.rules[0].http.paths[0].pathType", NS_, `"Exact", "ImplementationSpecific", "Prefix"`],
      ["relative Prefix path", ingressRule({ path: "api" }), "spec.rules[0].http.paths[0].path", I, "must be an absolute path"],
      ["path with //", ingressRule({ path: "/a//b" }), "spec.rules[0].http.paths[0].path", I, "must not contain '//'"],
      ["no rules, no default", (o) => { o.spec = {}; }, "spec", I, "either `defaultBackend` or `rules` must be specified"],
      ["backend without a port", (o) => { o.spec.defaultBackend.service.port = {}; }, "spec.defaultBackend", R, "port name or number is required"],
      ["backend port 70000", (o) => { o.spec.defaultBackend.service.port = { number: 70000 }; }, "spec.defaultBackend.service.port.number", I, "must be between 1 and 65535"],
      ["backend service Bad_Svc", (o) => { o.spec.defaultBackend.service.name = "Bad_Svc"; }, "spec.defaultBackend.service.name", I, "DNS-1035 label"],
      ["no http paths", (o) => { ingressRule({})(o); o.spec.rules[0].http.paths = []; }, "spec.rules[0].http.paths", R],
    ],
  },
  {
    kind: "IngressClass", group: "networking.k8s.io",
    bad: [
      ["controller without a domain", (o) => { o.spec.controller = "nginx"; }, "spec.controller", I, "must be a domain-prefixed path (such as \"acme.io/foo\")"],
      ["no controller", (o) => { o.spec = {}; }, "spec.controller", R],
    ],
    updates: [{ label: "controller changed", change: (o) => { o.spec.controller = "example.com/other"; }, field: "spec.controller", reason: I, words: "field is immutable" }],
  },
  {
    kind: "NetworkPolicy", group: "networking.k8s.io",
    good: [["ingress from a CIDR", netpolIngress({ from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }], ports: [{ port: 80 }] })]],
    bad: [
      ["port 70000", netpolIngress({ ports: [{ port: 70000 }] }), "spec.ingress[0].ports[0].port", I, "must be between 1 and 65535, inclusive"],
      ["protocol ICMP", netpolIngress({ ports: [{ protocol: "ICMP", port: 80 }] }), "spec.ingress[0].ports[0].protocol", NS_, `"TCP", "UDP", "SCTP"`],
      ["an empty peer", netpolIngress({ from: [{}] }), "spec.ingress[0].from[0]", R, "must specify a peer"],
      ["cidr nope", netpolIngress({ from: [{ ipBlock: { cidr: "nope" } }] }), "spec.ingress[0].from[0].ipBlock.cidr", I, "not a valid CIDR"],
      ["except outside cidr", netpolIngress({ from: [{ ipBlock: { cidr: "10.0.0.0/16", except: ["192.168.0.0/24"] } }] }), "spec.ingress[0].from[0].ipBlock.except[0]", I, "must be a strict subset of `cidr`"],
      ["ipBlock with a selector", netpolIngress({ from: [{ ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} }] }), "spec.ingress[0].from[0]", F, "may not specify both ipBlock and another peer"],
      ["policyType Sideways", (o) => { o.spec.policyTypes = ["Sideways"]; }, "spec.policyTypes[0]", NS_, `"Ingress", "Egress"`],
      ["selector operator Near", (o) => { o.spec.podSelector = { matchExpressions: [{ key: "a", operator: "Near", values: ["b"] }] }; }, "spec.podSelector.matchExpressions[0].operator", I, "not a valid selector operator"],
      ["In without values", (o) => { o.spec.podSelector = { matchExpressions: [{ key: "a", operator: "In" }] }; }, "spec.podSelector.matchExpressions[0].values", R, "must be specified when `operator` is 'In' or 'NotIn'"],
    ],
  },
  {
    kind: "PodDisruptionBudget", group: "policy",
    good: [["maxUnavailable 25%", (o) => { delete o.spec.minAvailable; o.spec.maxUnavailable = "25%"; }]],
    bad: [
      ["minAvailable 150%", (o) => { o.spec.minAvailable = "150%"; }, "spec.minAvailable", I, "must not be greater than 100%"],
      ["minAvailable lots", (o) => { o.spec.minAvailable = "lots"; }, "spec.minAvailable", I, "a valid percent string must be a numeric string followed by an ending '%'"],
      ["minAvailable -1", (o) => { o.spec.minAvailable = -1; }, "spec.minAvailable", I, "must be greater than or equal to 0"],
      ["both set", (o) => { o.spec.maxUnavailable = 1; }, "spec", I, "minAvailable and maxUnavailable cannot be both set"],
    ],
    updates: [{ label: "minAvailable changed", change: (o) => { o.spec.minAvailable = 2; } }],
  },
  {
    kind: "PodSecurityPolicy", group: "policy",
    good: [
      ["every field set", (o) => {
        Object.assign(o.spec, {
          privileged: false, defaultAddCapabilities: ["CHOWN"], requiredDropCapabilities: ["NET_RAW"], allowedCapabilities: ["CHOWN", "SYS_TIME"],
          volumes: ["configMap", "secret", "csi", "ephemeral"], hostNetwork: false, hostPorts: [{ min: 8000, max: 8080 }],
          runAsUser: { rule: "MustRunAs", ranges: [{ min: 1000, max: 2000 }] }, runAsGroup: { rule: "MayRunAs", ranges: [{ min: 1, max: 5 }] },
          fsGroup: { rule: "MustRunAs", ranges: [{ min: 10, max: 10 }] }, readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: true, defaultAllowPrivilegeEscalation: true, allowedHostPaths: [{ pathPrefix: "/var/log", readOnly: true }],
          allowedFlexVolumes: [{ driver: "example/lvm" }], allowedCSIDrivers: [{ name: "csi.example.com" }],
          allowedUnsafeSysctls: ["kernel.msg*"], forbiddenSysctls: ["net.core.somaxconn"], allowedProcMountTypes: ["Default"],
          runtimeClass: { allowedRuntimeClassNames: ["gvisor"], defaultRuntimeClassName: "gvisor" },
        });
        o.metadata.annotations = {
          "seccomp.security.alpha.kubernetes.io/allowedProfileNames": "runtime/default,localhost/profiles/a.json,*",
          "apparmor.security.beta.kubernetes.io/defaultProfileName": "runtime/default",
        };
      }],
      ["every volume", (o) => { o.spec.volumes = ["*"]; }],
    ],
    bad: [
      ["runAsUser rule Sometimes", (o) => { o.spec.runAsUser.rule = "Sometimes"; }, "spec.runAsUser.rule", NS_, `Unsupported value: "Sometimes": supported values: "MustRunAs", "MustRunAsNonRoot", "RunAsAny"`],
      ["no runAsUser rule", (o) => { delete o.spec.runAsUser; }, "spec.runAsUser.rule", NS_, `Unsupported value: ""`],
      ["runAsUser range min > max", (o) => { o.spec.runAsUser = { rule: "MustRunAs", ranges: [{ min: 5, max: 1 }] }; }, "spec.runAsUser.ranges[0].min", I, "Invalid value: 5: min cannot be greater than max"],
      ["fsGroup range min -1", (o) => { o.spec.fsGroup = { rule: "MustRunAs", ranges: [{ min: -1, max: 1 }] }; }, "spec.fsGroup.ranges[0].min", I, "min cannot be negative"],
      ["supplementalGroups rule Always", (o) => { o.spec.supplementalGroups.rule = "Always"; }, "spec.supplementalGroups.rule", NS_, `supported values: "MayRunAs", "MustRunAs", "RunAsAny"`],
      ["runAsGroup MustRunAs without ranges", (o) => { o.spec.runAsGroup = { rule: "MustRunAs" }; }, "spec.runAsGroup.ranges", I, "must provide at least one range"],
      ["runAsGroup RunAsAny with ranges", (o) => { o.spec.runAsGroup = { rule: "RunAsAny", ranges: [{ min: 1, max: 2 }] }; }, "spec.runAsGroup.ranges", I, "Ranges must be empty"],
      ["runAsGroup rule Never", (o) => { o.spec.runAsGroup = { rule: "Never" }; }, "spec.runAsGroup.rule", NS_, `supported values: "MustRunAs", "RunAsAny", "MayRunAs"`],
      ["seLinux rule MayRunAs", (o) => { o.spec.seLinux.rule = "MayRunAs"; }, "spec.seLinux.rule", NS_, `supported values: "MustRunAs", "RunAsAny"`],
      ["volume type floppy", (o) => { o.spec.volumes = ["floppy"]; }, "spec.volumes", NS_, `Unsupported value: "floppy": supported values: "*", "awsElasticBlockStore"`],
      ["a dropped capability allowed", (o) => { o.spec.requiredDropCapabilities = ["NET_RAW"]; o.spec.allowedCapabilities = ["NET_RAW"]; }, "allowedCapabilities", I, `Invalid value: "NET_RAW": capability is listed in allowedCapabilities and requiredDropCapabilities`],
      ["a dropped capability added", (o) => { o.spec.requiredDropCapabilities = ["NET_RAW"]; o.spec.defaultAddCapabilities = ["NET_RAW"]; }, "defaultAddCapabilities", I, "capability is listed in defaultAddCapabilities and requiredDropCapabilities"],
      ["drops with every capability allowed", (o) => { o.spec.requiredDropCapabilities = ["NET_RAW"]; o.spec.allowedCapabilities = ["*"]; }, "requiredDropCapabilities", I, "must be empty when all capabilities are allowed by a wildcard"],
      ["escalation by default but not allowed", (o) => { o.spec.allowPrivilegeEscalation = false; o.spec.defaultAllowPrivilegeEscalation = true; }, "spec.defaultAllowPrivilegeEscalation", I, "Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true"],
      ["procMount Masked", (o) => { o.spec.allowedProcMountTypes = ["Masked"]; }, "spec.allowedProcMountTypes[0]", NS_, `supported values: "Default", "Unmasked"`],
      ["host path without a prefix", (o) => { o.spec.allowedHostPaths = [{ readOnly: true }]; }, "spec.allowedHostPaths[0]", R, "Required value: is required"],
      ["host path /var/../etc", (o) => { o.spec.allowedHostPaths = [{ pathPrefix: "/var/../etc" }]; }, "spec.allowedHostPaths[0]", I, `Invalid value: "/var/../etc": must not contain '..'`],
      ["flex volume without a driver", (o) => { o.spec.allowedFlexVolumes = [{}]; }, "spec.allowedFlexVolumes.allowedFlexVolumes[0].driver", R, "must specify a driver"],
      ["CSI driver Bad_Driver", (o) => { o.spec.allowedCSIDrivers = [{ name: "Bad_Driver" }]; }, "spec.allowedCSIDrivers.allowedCSIDriver[0].name", I, "RFC 1123 subdomain"],
      ["sysctl pattern a..b", (o) => { o.spec.forbiddenSysctls = ["a..b"]; }, "spec.forbiddenSysctls[0]", I, "must have at most 253 characters and match regex"],
      ["sysctl * among others", (o) => { o.spec.allowedUnsafeSysctls = ["*", "kernel.shm_rmid_forced"]; }, "spec.allowedUnsafeSysctls.items", F, "if '*' is present, must not specify other sysctls"],
      ["an allowed sysctl forbidden by a pattern", (o) => { o.spec.allowedUnsafeSysctls = ["kernel.msgmax"]; o.spec.forbiddenSysctls = ["kernel.*"]; }, "spec.allowedUnsafeSysctls[0]", I, `Invalid value: "kernel.msgmax": sysctl overlaps with kernel.*`],
      ["a forbidden sysctl allowed by a pattern", (o) => { o.spec.allowedUnsafeSysctls = ["kernel.*"]; o.spec.forbiddenSysctls = ["kernel.msgmax"]; }, "spec.forbiddenSysctls[0]", I, "sysctl overlaps with kernel.*"],
      ["a default RuntimeClass not allowed", (o) => { o.spec.runtimeClass = { allowedRuntimeClassNames: ["a"], defaultRuntimeClassName: "b" }; }, "spec.runtimeClass.allowedRuntimeClassNames", R, `default "b" must be allowed`],
      ["a RuntimeClass twice", (o) => { o.spec.runtimeClass = { allowedRuntimeClassNames: ["a", "a"] }; }, "spec.runtimeClass.allowedRuntimeClassNames[1]", D],
      ["RuntimeClass * among others", (o) => { o.spec.runtimeClass = { allowedRuntimeClassNames: ["*", "a"] }; }, "spec.runtimeClass.allowedRuntimeClassNames", I, "if '*' is present, must not specify other RuntimeClass names"],
      ["seccomp default profile bogus", (o) => { o.metadata.annotations = { "seccomp.security.alpha.kubernetes.io/defaultProfileName": "bogus" }; }, "metadata.annotations[seccomp.security.alpha.kubernetes.io/defaultProfileName]", I, `Invalid value: "bogus": must be a valid seccomp profile`],
      ["AppArmor allowed profile bogus", (o) => { o.metadata.annotations = { "apparmor.security.beta.kubernetes.io/allowedProfileNames": "runtime/default,bogus" }; }, "metadata.annotations[apparmor.security.beta.kubernetes.io/allowedProfileNames]", I, `invalid AppArmor profile name: "bogus"`],
    ],
    updates: [
      { label: "volumes changed", change: (o) => { o.spec.volumes = ["secret"]; } },
      { label: "an invalid rule", change: (o) => { o.spec.fsGroup.rule = "Sometimes"; }, field: "spec.fsGroup.rule", reason: NS_ },
    ],
  },
  {
    kind: "PriorityClass", group: "scheduling.k8s.io",
    bad: [
      ["value above a user's", (o) => { o.value = 2_000_000_000; }, "value", F, "maximum allowed value of a user defined priority is 1000000000"],
      ["a system- name", (o) => { o.metadata.name = "system-mine"; }, "metadata.name", F, "priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"],
      ["preemptionPolicy Sometimes", (o) => { o.preemptionPolicy = "Sometimes"; }, "preemptionPolicy", NS_, `"PreemptLowerPriority", "Never"`],
    ],
    updates: [
      { label: "value changed", change: (o) => { o.value = 5; }, field: "value", reason: F, words: "may not be changed in an update." },
      { label: "description changed", change: (o) => { o.description = "other"; } },
    ],
  },
  {
    kind: "Role", group: RBAC,
    bad: [
      ["rule without verbs", (o) => { delete o.rules[0].verbs; }, "rules[0].verbs", R, "verbs must contain at least one value"],
      ["rule without resources", (o) => { delete o.rules[0].resources; }, "rules[0].resources", R, "resource rules must supply at least one resource"],
      ["non-resource URLs", (o) => { o.rules = [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }]; }, "rules[0].nonResourceURLs", I, "namespaced rules cannot apply to non-resource URLs"],
    ],
  },
  {
    kind: "ClusterRole", group: RBAC,
    good: [["non-resource URLs", (o) => { o.rules = [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }]; }]],
    bad: [
      ["URLs and resources", (o) => { o.rules[0].nonResourceURLs = ["/healthz"]; }, "rules[0].nonResourceURLs", I, "rules cannot apply to both regular resources and non-resource URLs"],
      ["aggregation without selectors", (o) => { o.aggregationRule = { clusterRoleSelectors: [] }; o.rules = []; }, "aggregationRule.clusterRoleSelectors", R],
    ],
  },
  {
    kind: "RoleBinding", group: RBAC,
    good: [["a service account", (o) => { o.subjects = [{ kind: "ServiceAccount", name: "default", namespace: NS }]; }]],
    bad: [
      ["no roleRef", (o) => { delete o.roleRef; }, "roleRef.name", R],
      ["no roleRef (kind)", (o) => { delete o.roleRef; }, "roleRef.kind", NS_, `Unsupported value: "": supported values: "Role", "ClusterRole"`],
      ["roleRef apiGroup wrong", (o) => { o.roleRef.apiGroup = "example.com"; }, "roleRef.apiGroup", NS_, `supported values: "rbac.authorization.k8s.io"`],
      ["subject kind Robot", (o) => { o.subjects[0].kind = "Robot"; }, "subjects[0].kind", NS_, `"ServiceAccount", "User", "Group"`],
      ["subject without a name", (o) => { delete o.subjects[0].name; }, "subjects[0].name", R],
      ["service account with an apiGroup", (o) => { o.subjects = [{ kind: "ServiceAccount", name: "sa", apiGroup: RBAC }]; }, "subjects[0].apiGroup", NS_],
    ],
    updates: [
      { label: "roleRef changed", change: (o) => { o.roleRef.name = "other"; }, field: "roleRef", reason: I, words: `rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef` },
      { label: "subjects changed", change: (o) => { o.subjects = [{ kind: "Group", name: "devs", apiGroup: RBAC }]; } },
    ],
  },
  {
    kind: "ClusterRoleBinding", group: RBAC,
    bad: [
      ["roleRef kind Role", (o) => { o.roleRef.kind = "Role"; }, "roleRef.kind", NS_, `supported values: "ClusterRole"`],
      ["service account without a namespace", (o) => { o.subjects = [{ kind: "ServiceAccount", name: "sa" }]; }, "subjects[0].namespace", R],
    ],
    updates: [{ label: "roleRef changed", change: (o) => { o.roleRef.name = "other"; }, field: "roleRef", reason: I, words: "cannot change roleRef" }],
  },
  {
    kind: "StorageClass", group: "storage.k8s.io",
    bad: [
      ["no provisioner", (o) => { delete o.provisioner; }, "provisioner", R],
      ["provisioner a/b/c", (o) => { o.provisioner = "a/b/c"; }, "provisioner", I, "a qualified name must consist of alphanumeric characters"],
      ["reclaimPolicy Recycle", (o) => { o.reclaimPolicy = "Recycle"; }, "reclaimPolicy", NS_, `"Delete", "Retain"`],
      ["volumeBindingMode Later", (o) => { o.volumeBindingMode = "Later"; }, "volumeBindingMode", NS_, `"Immediate", "WaitForFirstConsumer"`],
    ],
    updates: [
      { label: "parameters changed", change: (o) => { o.parameters = { type: "ssd" }; }, field: "parameters", reason: F, words: "updates to parameters are forbidden." },
      { label: "provisioner changed", change: (o) => { o.provisioner = "example.com/other"; }, field: "provisioner", reason: F, words: "updates to provisioner are forbidden." },
      { label: "labels changed", change: (o) => { o.metadata.labels = { a: "b" }; } },
    ],
  },
  {
    kind: "CSIDriver", group: "storage.k8s.io",
    bad: [
      ["fsGroupPolicy Any", (o) => { o.spec.fsGroupPolicy = "Any"; }, "spec.fsGroupPolicy", NS_, `"File", "None", "ReadWriteOnceWithFSType"`],
      ["lifecycle mode Forever", (o) => { o.spec.volumeLifecycleModes = ["Forever"]; }, "spec.volumeLifecycleModes[0]", NS_],
      ["a name longer than 63", (o) => { o.metadata.name = `${"a".repeat(64)}.example.com`; }, "name", TL, "Too long: must have at most 63 bytes"],
    ],
    updates: [{ label: "attachRequired changed", change: (o) => { o.spec.attachRequired = false; }, field: "spec.attachedRequired", reason: I, words: "field is immutable" }],
  },
  {
    kind: "CSINode", group: "storage.k8s.io",
    good: [["a driver", (o) => { o.spec.drivers = [{ name: "csi.example.com", nodeID: "node-1", topologyKeys: ["topology.example.com/zone"] }]; }]],
    bad: [
      ["a driver without nodeID", (o) => { o.spec.drivers = [{ name: "csi.example.com" }]; }, "spec.drivers[0].nodeID", R],
      ["a driver twice", (o) => { o.spec.drivers = [{ name: "csi.example.com", nodeID: "a" }, { name: "csi.example.com", nodeID: "b" }]; }, "spec.drivers[1].name", D],
      ["a driver named Bad_Driver", (o) => { o.spec.drivers = [{ name: "Bad_Driver", nodeID: "a" }]; }, "spec.drivers[0].name", I, "RFC 1123 subdomain"],
    ],
  },
  {
    kind: "VolumeAttachment", group: "storage.k8s.io",
    bad: [
      ["no nodeName", (o) => { delete o.spec.nodeName; }, "spec.nodeName", R],
      ["no source", (o) => { o.spec.source = {}; }, "spec.source", R, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"],
      ["no attacher", (o) => { delete o.spec.attacher; }, "spec.attacher", R],
      ["attacher example.com/csi", (o) => { o.spec.attacher = "example.com/csi"; }, "spec.attacher", I, "RFC 1123 subdomain"],
    ],
    updates: [{ label: "nodeName changed", change: (o) => { o.spec.nodeName = "node-2"; }, field: "spec", reason: I, words: "field is immutable" }],
  },
  {
    kind: "APIService", group: "apiregistration.k8s.io",
    good: [["a local APIService", (o) => { delete o.spec.service; }]],
    bad: [
      ["a name that is not version.group", (o) => { o.metadata.name = "other.example.com"; }, "metadata.name", I, 'must be `spec.version+"."+spec.group`'],
      ["groupPriorityMinimum 0", (o) => { o.spec.groupPriorityMinimum = 0; }, "spec.groupPriorityMinimum", I, "must be positive and less than 20000"],
      ["versionPriority 1001", (o) => { o.spec.versionPriority = 1001; }, "spec.versionPriority", I, "must be positive and less than 1000"],
      ["a service without a name", (o) => { delete o.spec.service.name; }, "spec.service.name", R],
      ["a local APIService skipping TLS checks", (o) => { delete o.spec.service; o.spec.insecureSkipTLSVerify = true; }, "spec.insecureSkipTLSVerify", I, "local APIServices may not have insecureSkipTLSVerify"],
    ],
  },
  {
    kind: "Lease", group: "coordination.k8s.io",
    bad: [
      ["leaseDurationSeconds 0", (o) => { o.spec.leaseDurationSeconds = 0; }, "spec.leaseDurationSeconds", I, "Invalid value: 0: must be greater than 0"],
      ["leaseTransitions -1", (o) => { o.spec.leaseTransitions = -1; }, "spec.leaseTransitions", I, "must be greater than or equal to 0"],
    ],
    updates: [{ label: "holder changed", change: (o) => { o.spec.holderIdentity = "other"; } }],
  },
  {
    kind: "Event",
    bad: [["involvedObject in another namespace", (o) => { o.involvedObject.namespace = "elsewhere"; }, "involvedObject.namespace", I, "does not match event.namespace"]],
    updates: [{ label: "message changed", change: (o) => { o.message = "changed"; o.count = 2; } }],
  },
  {
    kind: "Event", group: "events.k8s.io",
    bad: [
      ["no eventTime", (o) => { delete o.eventTime; }, "eventTime", R],
      ["type Odd", (o) => { o.type = "Odd"; }, "type", I, "has invalid value: Odd"],
      ["no reportingController", (o) => { delete o.reportingController; }, "reportingController", R],
      ["no action", (o) => { delete o.action; }, "action", R],
      ["deprecatedCount set", (o) => { o.deprecatedCount = 3; }, "count", I, "needs to be unset"],
      ["series count 1", (o) => { o.series = { count: 1, lastObservedTime: "2021-04-08T12:00:01.000000Z" }; }, "series.count", I, "should be at least 2"],
      ["name not a subdomain", (o) => { o.metadata.name = "Bad_Name"; }, "metadata.name", I, "RFC 1123 subdomain"],
    ],
    updates: [
      { label: "note changed", change: (o) => { o.note = "changed"; }, field: "message", reason: I, words: "field is immutable" },
      { label: "series added", change: (o) => { o.series = { count: 2, lastObservedTime: "2021-04-08T12:00:01.000000Z" }; } },
    ],
  },
  {
    kind: "EndpointSlice", group: "discovery.k8s.io",
    bad: [
      ["addressType IPv5", (o) => { o.addressType = "IPv5"; }, "addressType", NS_, `"FQDN", "IPv4", "IPv6"`],
      ["an address not IPv4", (o) => { o.endpoints[0].addresses = ["fe80::1"]; }, "endpoints[0].addresses[0]", I, "must be a valid IPv4 address"],
      ["a link-local address", (o) => { o.endpoints[0].addresses = ["169.254.169.254"]; }, "endpoints[0].addresses[0]", I, "may not be in the link-local range (169.254.0.0/16)"],
      ["an endpoint without addresses", (o) => { o.endpoints[0].addresses = []; }, "endpoints[0].addresses", R, "must contain at least 1 address"],
      ["a port name twice", (o) => { o.ports = [{ name: "http", port: 80, protocol: "TCP" }, { name: "http", port: 81, protocol: "TCP" }]; }, "ports[1].name", D],
      ["protocol HTTP", (o) => { o.ports[0].protocol = "HTTP"; }, "ports[0].protocol", NS_],
    ],
    updates: [
      { label: "addressType changed", change: (o) => { o.addressType = "FQDN"; o.endpoints[0].addresses = ["a.example.com"]; }, field: "addressType", reason: I, words: "field is immutable" },
      { label: "addresses changed", change: (o) => { o.endpoints[0].addresses = ["10.0.0.2"]; } },
    ],
  },
  {
    kind: "RuntimeClass", group: "node.k8s.io",
    bad: [["handler Bad_Handler", (o) => { o.handler = "Bad_Handler"; }, "handler", I, "a lowercase RFC 1123 label"]],
    updates: [{ label: "handler changed", change: (o) => { o.handler = "kata"; }, field: "handler", reason: I, words: "field is immutable" }],
  },
  {
    kind: "CertificateSigningRequest", group: "certificates.k8s.io",
    bad: [
      ["request not PEM", (o) => { o.spec.request = b64("not a request"); }, "spec.request", I, "PEM block type must be CERTIFICATE REQUEST"],
      ["no usages", (o) => { o.spec.usages = []; }, "spec.usages", R, "usages must be provided"],
      ["usage world domination", (o) => { o.spec.usages = ["world domination"]; }, "spec.usages[0]", NS_],
      ["a usage twice", (o) => { o.spec.usages = ["client auth", "client auth"]; }, "spec.usages[1]", D],
      ["signer without a path", (o) => { o.spec.signerName = "example.com"; }, "spec.signerName", I, "must be a fully qualified domain and path of the form 'example.com/signer-name'"],
      ["the legacy signer", (o) => { o.spec.signerName = "kubernetes.io/legacy-unknown"; }, "spec.signerName", I, "the legacy signerName is not allowed via this API version"],
    ],
  },
  ...(["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"] as const).map((kind): Table => ({
    kind, group: "admissionregistration.k8s.io",
    good: [["a webhook", withHook({})]],
    bad: [
      ["a short name", withHook({ name: "hook" }), "webhooks[0].name", I, "should be a domain with at least three segments separated by dots"],
      ["no sideEffects", withHook({ sideEffects: undefined }), "webhooks[0].sideEffects", R, "must specify one of None, NoneOnDryRun"],
      ["sideEffects Some", withHook({ sideEffects: "Some" }), "webhooks[0].sideEffects", NS_, `"None", "NoneOnDryRun"`],
      ["no client config", withHook({ clientConfig: {} }), "webhooks[0].clientConfig", R, "exactly one of url or service is required"],
      ["an http url", withHook({ clientConfig: { url: "http://hook.example.com/" } }), "webhooks[0].clientConfig.url", I, "'https' is the only allowed URL scheme; desired format: https://host[/path]"],
      ["a service without a namespace", withHook({ clientConfig: { service: { name: "svc" } } }), "webhooks[0].clientConfig.service.namespace", R, "service namespace is required"],
      ["timeout 60", withHook({ timeoutSeconds: 60 }), "webhooks[0].timeoutSeconds", I, "the timeout value must be between 1 and 30 seconds"],
      ["no review versions", withHook({ admissionReviewVersions: [] }), "webhooks[0].admissionReviewVersions", R, "must specify one of v1, v1beta1"],
      ["operation READ", withHook({ rules: [{ operations: ["READ"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] }), "webhooks[0].rules[0].operations[0]", NS_],
      ["failurePolicy Maybe", withHook({ failurePolicy: "Maybe" }), "webhooks[0].failurePolicy", NS_, `"Fail", "Ignore"`],
      ["a name twice", (o) => { withHook({})(o); o.webhooks.push(o.webhooks[0]); }, "webhooks[1].name", D],
    ],
  })),
  {
    kind: "FlowSchema", group: FC,
    good: [["a rule for a user and the health paths", fsRule({ resourceRules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "pods/log"], namespaces: ["*"] }], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz/*"] }] })]],
    bad: [
      ["matchingPrecedence 20000", (o) => { o.spec.matchingPrecedence = 20000; }, "spec.matchingPrecedence", I, "must not be greater than 10000"],
      ["matchingPrecedence 1", (o) => { o.spec.matchingPrecedence = 1; }, "spec.matchingPrecedence", I, "only the schema named 'exempt' may have matchingPrecedence 1"],
      ["distinguisher ByColor", (o) => { o.spec.distinguisherMethod = { type: "ByColor" }; }, "spec.distinguisherMethod.type", NS_, `"ByNamespace", "ByUser"`],
      ["no priority level", (o) => { o.spec.priorityLevelConfiguration = { name: "" }; }, "spec.priorityLevelConfiguration.name", R, "must reference a priority level"],
      ["a rule without subjects", fsRule({ subjects: [], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }), "spec.rules[0].subjects", R, "subjects must contain at least one value"],
      ["a rule matching nothing", fsRule({}), "spec.rules[0]", R, "at least one of resourceRules and nonResourceRules has to be non-empty"],
      ["subject kind Robot", fsRule({ subjects: [{ kind: "Robot" }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }), "spec.rules[0].subjects[0].kind", NS_, `"Group", "ServiceAccount", "User"`],
      ["a namespaced rule without namespaces", fsRule({ resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] }), "spec.rules[0].resourceRules[0].namespaces", R, "resource rules that are not cluster scoped must supply at least one namespace"],
      ["verb fly", fsRule({ resourceRules: [{ verbs: ["fly"], apiGroups: [""], resources: ["pods"], clusterScope: true }] }), "spec.rules[0].resourceRules[0].verbs", NS_],
      ["a wildcard mid-path", fsRule({ nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/a*/b"] }] }), "spec.rules[0].nonResourceRules[0].nonResourceURLs[0]", I, "wildcard can only do suffix matching"],
    ],
  },
  {
    kind: "PriorityLevelConfiguration", group: FC,
    good: [["queued", limited({ assuredConcurrencyShares: 5, limitResponse: { type: "Queue", queuing: { queues: 16, handSize: 4, queueLengthLimit: 10 } } })]],
    bad: [
      ["type Sometimes", (o) => { o.spec.type = "Sometimes"; }, "spec.type", NS_, `"Exempt", "Limited"`],
      ["Exempt but not named exempt", (o) => { o.spec = { type: "Exempt" }; }, "spec.type", I, "type must be 'Exempt' if and only if name is 'exempt'"],
      ["Limited without limits", (o) => { o.spec = { type: "Limited" }; }, "spec.limited", R, "must not be empty when type is Limited"],
      ["negative shares", limited({ assuredConcurrencyShares: -1, limitResponse: { type: "Reject" } }), "spec.limited.assuredConcurrencyShares", I, "must be positive"],
      ["Queue without queues", limited({ limitResponse: { type: "Queue" } }), "spec.limited.limitResponse.queuing", R, "must not be empty if limited.limitResponse.type is Limited"],
      ["Reject with queues", limited({ limitResponse: { type: "Reject", queuing: { queues: 4 } } }), "spec.limited.limitResponse.queuing", F, "must be nil if limited.limitResponse.type is not Limited"],
      ["a hand larger than the deck", limited({ limitResponse: { type: "Queue", queuing: { queues: 4, handSize: 8, queueLengthLimit: 10 } } }), "spec.limited.limitResponse.queuing.handSize", I, "should not be greater than queues (4)"],
      ["a hand needing 70 bits", limited({ limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 10, queueLengthLimit: 10 } } }), "spec.limited.limitResponse.queuing.handSize", I, "required entropy bits of deckSize 128 and handSize 10 should not be greater than 60"],
    ],
  },
  {
    kind: "CustomResourceDefinition", group: "apiextensions.k8s.io",
    bad: [
      ["group without a dot", (o) => { o.spec.group = "example"; crdName(o); }, "spec.group", I, "should be a domain with at least one dot"],
      ["scope Global", (o) => { o.spec.scope = "Global"; }, "spec.scope", NS_, `"Cluster", "Namespaced"`],
      ["name not plural.group", (o) => { o.metadata.name = "other.example.com"; }, "metadata.name", I, `must be spec.names.plural+"."+spec.group`],
      ["no storage version", (o) => { o.spec.versions[0].storage = false; }, "spec.versions", I, "must have exactly one version marked as storage version"],
      ["a version name V1", (o) => { o.spec.versions[0].name = "V1"; }, "spec.versions[0].name", I, "a DNS-1035 label must consist of lower case alphanumeric characters"],
      ["no schema", (o) => { delete o.spec.versions[0].schema; }, "spec.versions[0].schema.openAPIV3Schema", R, "schemas are required"],
      ["kind equal to listKind", (o) => { o.spec.names.listKind = o.spec.names.kind; }, "spec.names.listKind", I, "kind and listKind may not be the same"],
      ["no kind", (o) => { delete o.spec.names.kind; }, "spec.names.kind", R],
    ],
    updates: [{ label: "scope changed", change: (o) => { o.spec.scope = "Cluster"; }, field: "spec.scope", reason: I, words: "field is immutable" }],
  },
];

/** The next address after ip, in the same /24. */
function bumpIP(ip: string): string {
  const p = ip.split(".").map(Number);
  p[3] = p[3] === 254 ? 1 : p[3] + 1;
  return p.join(".");
}

let s: TestServer;
useServer(NS, (started) => (s = started));

const defOf = (t: Table): ResourceDef => BUILTIN.find((d) => d.kind === t.kind && d.group === (t.group ?? ""))!;
const slug = (t: Table) => `${t.kind}${t.group ? `-${t.group.split(".")[0]}` : ""}`.toLowerCase();

/** A valid object of the kind, named for the case, with `change` applied. */
function body(t: Table, name: string, change?: Mutate) {
  const o = minimalBody(defOf(t), name, NS);
  change?.(o);
  return o;
}

/** The reply is 422 Invalid with a cause of this field and reason whose message has the words. */
function expectCause(r: { status: number; body: any; headers: Headers }, field: string, reason: string, words: string | undefined, what: string) {
  const st = expectStatus(r, 422, "Invalid", what);
  const causes: any[] = st.details?.causes ?? [];
  const hit = causes.find((c) => c.field === field && c.reason === reason && (!words || String(c.message).includes(words)));
  if (!hit) throw new Error(`${what}: no cause {field: ${JSON.stringify(field)}, reason: ${reason}${words ? `, message with ${JSON.stringify(words)}` : ""}} among ${JSON.stringify(causes)}`);
  expect(st.message).toContain(field ? `${field}: ` : "");
}

describe("validation of each kind", () => {
  for (const t of TABLES) {
    const d = defOf(t);
    const base = slug(t);

    test(`${base}: valid objects are created`, async () => {
      const cases: [string, Mutate | undefined][] = [["minimal", undefined], ...(t.good ?? [])];
      await Promise.all(cases.map(async ([label, change], i) => {
        const o = body(t, `${base}-good-${i}`, change);
        expectCode(await s.call("POST", pathFor(d, NS), o), 201, `POST ${t.kind} (${label})`);
      }));
    });

    test(`${base}: invalid objects are refused with upstream's causes`, async () => {
      await Promise.all(t.bad.map(async ([label, change, field, reason, words], i) => {
        const o = body(t, `${base}-bad-${i}`, change);
        const r = await s.call("POST", pathFor(d, NS), o);
        expectCause(r, field, reason, words, `POST ${t.kind} (${label})`);
        // nothing was stored
        expectCode(await s.call("GET", pathFor(d, NS, o.metadata.name)), 404, `GET ${t.kind} (${label}) after the refusal`);
      }));
    });

    if (t.updates?.length) {
      test(`${base}: updates`, async () => {
        await Promise.all(t.updates!.map(async (u, i) => {
          const o = body(t, `${base}-upd-${i}`, u.start);
          const c = await s.call("POST", pathFor(d, NS), o);
          expectCode(c, 201, `POST ${t.kind} for "${u.label}"`);
          const created = await settled(d, c.body);
          const cur = structuredClone(created);
          u.change(cur);
          const r = await s.call("PUT", pathFor(d, NS, o.metadata.name), cur);
          if (!u.field && !u.reason) return expectCode(r, 200, `PUT ${t.kind} (${u.label})`);
          expectCause(r, u.field ?? "", u.reason!, typeof u.words === "function" ? u.words(cur) : u.words, `PUT ${t.kind} (${u.label})`);
          // the stored object is unchanged
          const now = await s.call("GET", pathFor(d, NS, o.metadata.name));
          expect(now.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
        }));
      });
    }
  }
});

/** The object once the server's own parts are done with it: a CRD's status is written just after its create. */
async function settled(d: ResourceDef, created: any): Promise<any> {
  if (d.kind !== "CustomResourceDefinition") return created;
  for (let i = 0; i < 100; i++) {
    const now = (await s.call("GET", pathFor(d, NS, created.metadata.name))).body;
    if (now.status?.conditions?.some((c: any) => c.type === "Established")) return now;
    await Bun.sleep(50);
  }
  throw new Error(`CRD ${created.metadata.name} never Established`);
}

test("every kind of this part has a table", () => {
  const mine = new Set(TABLES.map((t) => `${t.group ?? ""}/${t.kind}`));
  const workloads = ["/Pod", "/PodTemplate", "/ReplicationController", "apps/Deployment", "apps/ReplicaSet", "apps/StatefulSet", "apps/DaemonSet", "batch/Job", "batch/CronJob"];
  // kinds upstream does not validate beyond metadata
  const metaOnly = ["/ServiceAccount", "apps/ControllerRevision"];
  // computed kinds (componentstatuses) are never written
  const missing = BUILTIN.filter((d) => !d.computed).map((d) => `${d.group}/${d.kind}`).filter((k) => !mine.has(k) && !workloads.includes(k) && !metaOnly.includes(k));
  expect(missing).toEqual([]);
});
