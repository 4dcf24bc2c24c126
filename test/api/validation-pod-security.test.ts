// The pod-spec rules beyond containers and volumes, against a real `kite apiserver`: security contexts,
// affinity, topology spread, dnsConfig, downwardAPI and projected volumes; and PersistentVolume node
// affinity, HPA bounds, CSR requests and quantities printed in canonical form. Each invalid object is
// refused with upstream v1.21's cause (field, reason, message); each valid one is created.
import { execFileSync } from "node:child_process";
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, useServer } from "./fixtures.ts";

const NS = "valsec";
let s: TestServer;
// privileged containers are allowed here, as on kubeadm's servers: the rules below are what is checked besides
useServer(NS, (started) => (s = started), ["--allow-privileged=true"]);

let serial = 0;
const pod = (change: (spec: any) => void) => {
  const spec: any = { containers: [{ name: "c", image: "nginx:1.21" }] };
  change(spec);
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `p-${++serial}` }, spec };
};
const PODS = `/api/v1/namespaces/${NS}/pods`;

type Reply = { status: number; body: any; headers: Headers };
/** The cause must be among the Status's causes exactly: field, reason and whole message. */
function expectCause(r: Reply, field: string, reason: string, message: string, what: string) {
  const st = expectStatus(r, 422, "Invalid", what);
  const causes: any[] = st.details?.causes ?? [];
  if (!causes.some((c) => c.field === field && c.reason === reason && c.message === message)) {
    throw new Error(`${what}: no cause ${JSON.stringify({ field, reason, message })} among ${JSON.stringify(causes)}`);
  }
}

const RANGE = "must be between 0 and 2147483647, inclusive";
const SYSCTL_RE = "([a-z0-9]([-_a-z0-9]*[a-z0-9])?\\.)*[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const c0 = "spec.containers[0]";
/** How upstream prints a container SecurityContext (%#v: pointers as addresses) with the given fields set. */
const goContext = (set: string[]) => `core.SecurityContext{${[["Capabilities", "*core.Capabilities"], ["Privileged", "*bool"], ["SELinuxOptions", "*core.SELinuxOptions"], ["WindowsOptions", "*core.WindowsSecurityContextOptions"], ["RunAsUser", "*int64"], ["RunAsGroup", "*int64"], ["RunAsNonRoot", "*bool"], ["ReadOnlyRootFilesystem", "*bool"], ["AllowPrivilegeEscalation", "*bool"], ["ProcMount", "*core.ProcMountType"], ["SeccompProfile", "*core.SeccompProfile"]].map(([f, t]) => `${f}:(${t})(${set.includes(f) ? "0xc000010000" : "nil"})`).join(", ")}}`;
const valid: [string, (p: any) => void][] = [
  ["pod and container security contexts", (p) => {
    p.securityContext = {
      runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000], fsGroupChangePolicy: "OnRootMismatch",
      sysctls: [{ name: "net.ipv4.ip_local_port_range", value: "1024 65535" }, { name: "kernel.shm_rmid_forced", value: "1" }],
      seccompProfile: { type: "Localhost", localhostProfile: "profiles/audit.json" }, seLinuxOptions: { level: "s0:c123,c456" },
      windowsOptions: { runAsUserName: "NT AUTHORITY\\NETWORK SERVICE" },
    };
    p.containers[0].securityContext = { allowPrivilegeEscalation: false, capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] }, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } };
  }],
  ["affinity of every kind and spread constraints", (p) => {
    p.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/os", operator: "In", values: ["linux"] }, { key: "cpus", operator: "Gt", values: ["4"] }], matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["node-1"] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: "zone", operator: "Exists" }] } }],
      },
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "db" } }, namespaces: ["other"], topologyKey: "kubernetes.io/hostname" }] },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] }, topologyKey: "topology.kubernetes.io/zone" } }] },
    };
    p.topologySpreadConstraints = [
      { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } },
      { maxSkew: 2, topologyKey: "zone", whenUnsatisfiable: "ScheduleAnyway" },
    ];
  }],
  ["hostNetwork with a containerPort only (its hostPort is defaulted to match)", (p) => { p.hostNetwork = true; p.containers[0].ports = [{ containerPort: 9100 }]; }],
  ["dnsPolicy None with a full dnsConfig", (p) => {
    p.dnsPolicy = "None";
    p.dnsConfig = { nameservers: ["10.0.0.10", "2001:db8::1"], searches: ["ns.svc.cluster.local", "example.com."], options: [{ name: "ndots", value: "2" }, { name: "edns0" }] };
  }],
  ["downwardAPI and projected volumes", (p) => {
    p.volumes = [
      { name: "info", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }, { path: "tier", fieldRef: { fieldPath: "metadata.labels['tier']" } }, { path: "cpu", resourceFieldRef: { containerName: "c", resource: "limits.cpu", divisor: "1m" } }, { path: "mem", resourceFieldRef: { containerName: "c", resource: "requests.memory", divisor: "1Mi" } }] } },
      { name: "all", projected: { defaultMode: 0o440, sources: [
        { secret: { name: "s", items: [{ key: "k", path: "secret/k" }] } }, { configMap: { name: "c", items: [{ key: "k", path: "config/k" }] } },
        { downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } },
        { serviceAccountToken: { audience: "vault", expirationSeconds: 600, path: "token" } },
      ] } },
    ];
  }],
];

type Case = [string, (p: any) => void, string, string, string];
const invalid: Case[] = [
  // security contexts
  ["runAsUser -1", (p) => { p.securityContext = { runAsUser: -1 }; }, "spec.securityContext.runAsUser", "FieldValueInvalid", `Invalid value: -1: ${RANGE}`],
  ["fsGroup above int32", (p) => { p.securityContext = { fsGroup: 2147483648 }; }, "spec.securityContext.fsGroup", "FieldValueInvalid", `Invalid value: 2147483648: ${RANGE}`],
  ["a negative supplemental group", (p) => { p.securityContext = { supplementalGroups: [1, -5] }; }, "spec.securityContext.supplementalGroups[1]", "FieldValueInvalid", `Invalid value: -5: ${RANGE}`],
  ["a container's runAsGroup -2", (p) => { p.containers[0].securityContext = { runAsGroup: -2 }; }, `${c0}.securityContext.runAsGroup`, "FieldValueInvalid", `Invalid value: -2: ${RANGE}`],
  ["shareProcessNamespace with hostPID", (p) => { p.hostPID = true; p.shareProcessNamespace = true; }, "spec.securityContext.shareProcessNamespace", "FieldValueInvalid", "Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled"],
  ["hostNetwork with a hostPort other than the containerPort", (p) => { p.hostNetwork = true; p.containers[0].ports = [{ containerPort: 80, hostPort: 8080 }]; }, `${c0}.ports[0].containerPort`, "FieldValueInvalid", "Invalid value: 80: must match `hostPort` when `hostNetwork` is true"],
  ["a sysctl name with capitals", (p) => { p.securityContext = { sysctls: [{ name: "Net.Core", value: "1" }] }; }, "spec.securityContext.sysctls[0].name", "FieldValueInvalid", `Invalid value: "Net.Core": must have at most 253 characters and match regex ${SYSCTL_RE}`],
  ["a sysctl twice", (p) => { p.securityContext = { sysctls: [{ name: "kernel.msgmax", value: "1" }, { name: "kernel.msgmax", value: "2" }] }; }, "spec.securityContext.sysctls[1].name", "FieldValueDuplicate", `Duplicate value: "kernel.msgmax"`],
  ["a sysctl without a name", (p) => { p.securityContext = { sysctls: [{ value: "1" }] }; }, "spec.securityContext.sysctls[0].name", "FieldValueRequired", "Required value"],
  ["fsGroupChangePolicy Sometimes", (p) => { p.securityContext = { fsGroupChangePolicy: "Sometimes" }; }, "spec.securityContext.fsGroupChangePolicy", "FieldValueNotSupported", `Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"`],
  ["a seccomp profile without a type", (p) => { p.securityContext = { seccompProfile: {} }; }, "spec.securityContext.seccompProfile.type", "FieldValueRequired", "Required value: type is required when seccompProfile is set"],
  ["seccomp type Custom", (p) => { p.containers[0].securityContext = { seccompProfile: { type: "Custom" } }; }, `${c0}.securityContext.seccompProfile.type`, "FieldValueNotSupported", `Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", "Unconfined"`],
  ["seccomp Localhost without a profile", (p) => { p.securityContext = { seccompProfile: { type: "Localhost" } }; }, "spec.securityContext.seccompProfile.localhostProfile", "FieldValueRequired", "Required value: must be set when seccomp type is Localhost"],
  ["a localhost profile going up", (p) => { p.securityContext = { seccompProfile: { type: "Localhost", localhostProfile: "../etc/p.json" } }; }, "spec.securityContext.seccompProfile.localhostProfile", "FieldValueInvalid", `Invalid value: "../etc/p.json": must not contain '..'`],
  ["a localhost profile with RuntimeDefault", (p) => { p.securityContext = { seccompProfile: { type: "RuntimeDefault", localhostProfile: "p.json" } }; }, "spec.securityContext.seccompProfile.localhostProfile", "FieldValueInvalid", `Invalid value: core.SeccompProfile{Type:"RuntimeDefault", LocalhostProfile:(*string)(0xc000010000)}: can only be set when seccomp type is Localhost`],
  ["privileged without privilege escalation", (p) => { p.containers[0].securityContext = { privileged: true, allowPrivilegeEscalation: false }; }, `${c0}.securityContext`, "FieldValueInvalid", `Invalid value: ${goContext(["Privileged", "AllowPrivilegeEscalation"])}: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`],
  ["CAP_SYS_ADMIN without privilege escalation", (p) => { p.containers[0].securityContext = { allowPrivilegeEscalation: false, capabilities: { add: ["CAP_SYS_ADMIN"] } }; }, `${c0}.securityContext`, "FieldValueInvalid", `Invalid value: ${goContext(["Capabilities", "AllowPrivilegeEscalation"])}: cannot set \`allowPrivilegeEscalation\` to false and \`capabilities.Add\` CAP_SYS_ADMIN`],
  ["procMount Hidden", (p) => { p.containers[0].securityContext = { procMount: "Hidden" }; }, `${c0}.securityContext.procMount`, "FieldValueNotSupported", `Unsupported value: "Hidden": supported values: "Default", "Unmasked"`],
  ["a Windows user with two backslashes", (p) => { p.securityContext = { windowsOptions: { runAsUserName: "a\\b\\c" } }; }, "spec.securityContext.windowsOptions.runAsUserName", "FieldValueInvalid", `Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash`],
  ["a Windows user with a bad character", (p) => { p.containers[0].securityContext = { windowsOptions: { runAsUserName: "us*er" } }; }, `${c0}.securityContext.windowsOptions.runAsUserName`, "FieldValueInvalid", `Invalid value: "us*er": runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`],
  ["an empty gMSA spec", (p) => { p.securityContext = { windowsOptions: { gmsaCredentialSpec: "" } }; }, "spec.securityContext.windowsOptions.gmsaCredentialSpec", "FieldValueInvalid", `Invalid value: "": gmsaCredentialSpec cannot be an empty string`],
  // affinity
  ...((): Case[] => {
    const na = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
    const req = (r: any) => (p: any) => { p.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [r] }] } } }; };
    const field = (r: any) => (p: any) => { p.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [r] }] } } }; };
    const e0 = `${na}.nodeSelectorTerms[0].matchExpressions[0]`, f0 = `${na}.nodeSelectorTerms[0].matchFields[0]`;
    return [
      ["no node selector terms", (p) => { p.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }; }, `${na}.nodeSelectorTerms`, "FieldValueRequired", "Required value: must have at least one node selector term"],
      ["node operator Like", req({ key: "a", operator: "Like", values: ["x"] }), `${e0}.operator`, "FieldValueInvalid", `Invalid value: "Like": not a valid selector operator`],
      ["node In without values", req({ key: "a", operator: "In" }), `${e0}.values`, "FieldValueRequired", "Required value: must be specified when `operator` is 'In' or 'NotIn'"],
      ["node Exists with values", req({ key: "a", operator: "Exists", values: ["x"] }), `${e0}.values`, "FieldValueForbidden", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
      ["node Gt with two values", req({ key: "a", operator: "Gt", values: ["1", "2"] }), `${e0}.values`, "FieldValueRequired", "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"],
      ["a node label key with spaces", req({ key: "a b", operator: "Exists" }), `${e0}.key`, "FieldValueInvalid", `Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
      ["a node field other than metadata.name", field({ key: "spec.unschedulable", operator: "In", values: ["true"] }), `${f0}.key`, "FieldValueInvalid", `Invalid value: "spec.unschedulable": not a valid field selector key`],
      ["a node field with two values", field({ key: "metadata.name", operator: "In", values: ["a", "b"] }), `${f0}.values`, "FieldValueRequired", "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"],
      ["a node field naming a bad node", field({ key: "metadata.name", operator: "In", values: ["Bad_Node"] }), `${f0}.values[0]`, "FieldValueInvalid", `Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
      ["a preferred node weight 0", (p) => { p.affinity = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }] } }; }, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", "FieldValueInvalid", "Invalid value: 0: must be in the range 1-100"],
      ["a pod affinity weight 101", (p) => { p.affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, podAffinityTerm: { topologyKey: "zone" } }] } }; }, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", "FieldValueInvalid", "Invalid value: 101: must be in the range 1-100"],
      ["a pod affinity term without topologyKey", (p) => { p.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "db" } } }] } }; }, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "FieldValueRequired", "Required value: can not be empty"],
      ["a topologyKey that is no qualified name", (p) => { p.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "a/b/c" }] } }; }, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "FieldValueInvalid", `Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
      ["a pod affinity selector operator Like", (p) => { p.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "zone", labelSelector: { matchExpressions: [{ key: "app", operator: "Like", values: ["x"] }] } }] } }; }, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator", "FieldValueInvalid", `Invalid value: "Like": not a valid selector operator`],
      ["a pod affinity namespace Bad_NS", (p) => { p.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "zone", namespaces: ["Bad_NS"] }] } }; }, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace", "FieldValueInvalid", `Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`],
    ];
  })(),
  // topology spread
  ["maxSkew 0", (p) => { p.topologySpreadConstraints = [{ maxSkew: 0, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" }]; }, "spec.topologySpreadConstraints[0].maxSkew", "FieldValueInvalid", "Invalid value: 0: must be greater than zero"],
  ["a spread constraint without topologyKey", (p) => { p.topologySpreadConstraints = [{ maxSkew: 1, whenUnsatisfiable: "DoNotSchedule" }]; }, "spec.topologySpreadConstraints[0].topologyKey", "FieldValueRequired", "Required value: can not be empty"],
  ["whenUnsatisfiable Sometimes", (p) => { p.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "Sometimes" }]; }, "spec.topologySpreadConstraints[0].whenUnsatisfiable", "FieldValueNotSupported", `Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"`],
  ["two spread constraints of one kind", (p) => { p.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" }, { maxSkew: 2, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" }]; }, "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}", "FieldValueDuplicate", `Duplicate value: "{zone, DoNotSchedule}"`],
  // dnsConfig
  ["dnsPolicy None without nameservers", (p) => { p.dnsPolicy = "None"; p.dnsConfig = { searches: ["a.b"] }; }, "spec.dnsConfig.nameservers", "FieldValueRequired", "Required value: must provide at least one DNS nameserver when `dnsPolicy` is None"],
  ["four nameservers", (p) => { p.dnsConfig = { nameservers: ["1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4"] }; }, "spec.dnsConfig.nameservers", "FieldValueInvalid", `Invalid value: []string{"1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4"}: must not have more than 3 nameservers`],
  ["a nameserver that is no IP", (p) => { p.dnsConfig = { nameservers: ["dns.local"] }; }, "spec.dnsConfig.nameservers[0]", "FieldValueInvalid", `Invalid value: "dns.local": must be valid IP address`],
  ["seven searches", (p) => { p.dnsConfig = { searches: ["a", "b", "c", "d", "e", "f", "g"] }; }, "spec.dnsConfig.searches", "FieldValueInvalid", `Invalid value: []string{"a", "b", "c", "d", "e", "f", "g"}: must not have more than 6 search paths`],
  ["searches longer than 256 characters", (p) => { p.dnsConfig = { searches: ["a".repeat(60), "b".repeat(60), "c".repeat(60), "d".repeat(60), "e".repeat(20)] }; }, "spec.dnsConfig.searches", "FieldValueInvalid", `Invalid value: []string{${["a", "b", "c", "d"].map((c) => `"${c.repeat(60)}"`).join(", ")}, "${"e".repeat(20)}"}: must not have more than 256 characters (including spaces) in the search list`],
  ["a search domain Bad_Domain", (p) => { p.dnsConfig = { searches: ["Bad_Domain"] }; }, "spec.dnsConfig.searches[0]", "FieldValueInvalid", `Invalid value: "Bad_Domain": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
  ["a DNS option without a name", (p) => { p.dnsConfig = { options: [{ value: "2" }] }; }, "spec.dnsConfig.options[0]", "FieldValueRequired", "Required value: Option.Name must not be empty"],
  // downwardAPI and projected volumes
  ...((): Case[] => {
    const dapi = (items: any[]) => (p: any) => { p.volumes = [{ name: "v", downwardAPI: { items } }]; };
    const proj = (sources: any[]) => (p: any) => { p.volumes = [{ name: "v", projected: { sources } }]; };
    const d = "spec.volumes[0].downwardAPI", pr = "spec.volumes[0].projected";
    return [
      ["a downwardAPI file with an absolute path", dapi([{ path: "/etc/name", fieldRef: { fieldPath: "metadata.name" } }]), `${d}.path`, "FieldValueInvalid", `Invalid value: "/etc/name": must be a relative path`],
      ["a downwardAPI file starting with ..", dapi([{ path: "..name", fieldRef: { fieldPath: "metadata.name" } }]), `${d}.path`, "FieldValueInvalid", `Invalid value: "..name": must not start with '..'`],
      ["a downwardAPI file of spec.nodeName", dapi([{ path: "node", fieldRef: { fieldPath: "spec.nodeName" } }]), `${d}.fieldRef.fieldPath`, "FieldValueNotSupported", `Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"`],
      ["a downwardAPI file of an unknown field", dapi([{ path: "x", fieldRef: { fieldPath: "spec.foo" } }]), `${d}.fieldRef.fieldPath`, "FieldValueInvalid", `Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo`],
      ["a downwardAPI file of a bad label key", dapi([{ path: "x", fieldRef: { fieldPath: "metadata.labels['a b']" } }]), `${d}.fieldRef`, "FieldValueInvalid", `Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
      ["a downwardAPI file with no source", dapi([{ path: "x" }]), d, "FieldValueRequired", "Required value: one of fieldRef and resourceFieldRef is required"],
      ["a downwardAPI file with both sources", dapi([{ path: "x", fieldRef: { fieldPath: "metadata.name" }, resourceFieldRef: { containerName: "c", resource: "limits.cpu" } }]), d, "FieldValueInvalid", `Invalid value: "resource": fieldRef and resourceFieldRef can not be specified simultaneously`],
      ["a resourceFieldRef without containerName", dapi([{ path: "x", resourceFieldRef: { resource: "limits.cpu" } }]), `${d}.resourceFieldRef.containerName`, "FieldValueRequired", "Required value"],
      ["a resourceFieldRef to limits.gpu", dapi([{ path: "x", resourceFieldRef: { containerName: "c", resource: "limits.gpu" } }]), `${d}.resourceFieldRef.resource`, "FieldValueNotSupported", `Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`],
      ["a cpu divisor of 10m", dapi([{ path: "x", resourceFieldRef: { containerName: "c", resource: "limits.cpu", divisor: "10m" } }]), `${d}.resourceFieldRef.divisor`, "FieldValueInvalid", `Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`],
      ["a downwardAPI file mode 01000", dapi([{ path: "x", fieldRef: { fieldPath: "metadata.name" }, mode: 0o1000 }]), `${d}.mode`, "FieldValueInvalid", "Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive"],
      ["a projection with two sources in one item", proj([{ secret: { name: "s" }, configMap: { name: "c" } }]), `${pr}.sources[0]`, "FieldValueForbidden", "Forbidden: may not specify more than 1 volume type"],
      ["a projected secret without a name", proj([{ secret: {} }]), `${pr}.sources[0].secret.name`, "FieldValueRequired", "Required value"],
      ["two projected files on one path", proj([{ secret: { name: "s", items: [{ key: "a", path: "x" }] } }, { configMap: { name: "c", items: [{ key: "b", path: "x" }] } }]), pr, "FieldValueInvalid", `Invalid value: "c": conflicting duplicate paths`],
      ["a projected item going up", proj([{ configMap: { name: "c", items: [{ key: "b", path: "a/../../x" }] } }]), `${pr}.sources[0].configMap.items[0].path`, "FieldValueInvalid", `Invalid value: "a/../../x": must not contain '..'`],
      ["a token living 5 minutes", proj([{ serviceAccountToken: { path: "t", expirationSeconds: 300 } }]), `${pr}.sources[0].serviceAccountToken.expirationSeconds`, "FieldValueInvalid", "Invalid value: 300: may not specify a duration less than 10 minutes"],
      ["a token living longer than 2^32 s", proj([{ serviceAccountToken: { path: "t", expirationSeconds: 2 ** 32 + 1 } }]), `${pr}.sources[0].serviceAccountToken.expirationSeconds`, "FieldValueInvalid", "Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"],
      ["a token without a path", proj([{ serviceAccountToken: { audience: "x" } }]), `${pr}.path`, "FieldValueRequired", "Required value"],
    ];
  })(),
  // quantities are shown in canonical form
  ["requests above limits, in millicores", (p) => { p.containers[0].resources = { requests: { cpu: "2000m" }, limits: { cpu: "1500m" } }; }, `${c0}.resources.requests`, "FieldValueInvalid", `Invalid value: "2": must be less than or equal to cpu limit`],
  ["memory requests above limits, in fractions", (p) => { p.containers[0].resources = { requests: { memory: "1.5Gi" }, limits: { memory: "1Gi" } }; }, `${c0}.resources.requests`, "FieldValueInvalid", `Invalid value: "1536Mi": must be less than or equal to memory limit`],
  ["a negative quantity in exponent form", (p) => { p.containers[0].resources = { limits: { memory: "-12e2" } }; }, `${c0}.resources.limits[memory]`, "FieldValueInvalid", `Invalid value: "-1200": must be greater than or equal to 0`],
];

describe("pod spec rules", () => {
  for (const [what, change] of valid) {
    test(`valid: ${what}`, async () => expectCode(await s.call("POST", PODS, pod(change)), 201, what));
  }
  for (const [what, change, field, reason, message] of invalid) {
    test(`invalid: ${what}`, async () => expectCause(await s.call("POST", PODS, pod(change)), field, reason, message, what));
  }
  test("a divisor that is no quantity fails the decode, as upstream's", async () => {
    const r = await s.call("POST", PODS, pod((p) => { p.volumes = [{ name: "v", downwardAPI: { items: [{ path: "x", resourceFieldRef: { containerName: "c", resource: "limits.cpu", divisor: "lots" } }] } }]; }));
    expect(expectStatus(r, 400, "BadRequest", "divisor lots").message).toContain("quantities must match the regular expression");
  });
  test("a pod template carries the same rules under its own path", async () => {
    const d = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "sec" }, spec: { selector: { matchLabels: { app: "a" } }, template: { metadata: { labels: { app: "a" } }, spec: pod((p) => { p.securityContext = { runAsUser: -1 }; }).spec } } };
    expectCause(await s.call("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, d), "spec.template.spec.securityContext.runAsUser", "FieldValueInvalid", `Invalid value: -1: ${RANGE}`, "deployment");
  });
});

describe("PersistentVolume node affinity", () => {
  const pv = (spec: any) => ({ apiVersion: "v1", kind: "PersistentVolume", metadata: { name: `pv-${++serial}` }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], ...spec } });
  const pinned = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-1"] }] }] } };
  test("a local volume pinned to a node is created; its node affinity may not change", async () => {
    const body = pv({ local: { path: "/mnt/disk1" }, nodeAffinity: pinned });
    expectCode(await s.call("POST", "/api/v1/persistentvolumes", body), 201, "local PV");
    const r = await s.call("PATCH", `/api/v1/persistentvolumes/${body.metadata.name}`, { spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["node-2"] }] }] } } } }, { "content-type": "application/merge-patch+json" });
    expectCause(r, "nodeAffinity", "FieldValueInvalid", "Invalid value: core.VolumeNodeAffinity{Required:(*core.NodeSelector)(0xc000010000)}: field is immutable", "node affinity changed");
  });
  const cases: [string, any, string, string, string][] = [
    ["a local volume without node affinity", { local: { path: "/mnt/disk1" } }, "spec.nodeAffinity", "FieldValueRequired", "Required value: Local volume requires node affinity"],
    ["a local volume without a path", { local: {}, nodeAffinity: pinned }, "spec.local.path", "FieldValueRequired", "Required value"],
    ["node affinity without required terms", { hostPath: { path: "/x" }, nodeAffinity: {} }, "spec.nodeAffinity.required", "FieldValueRequired", "Required value: must specify required node constraints"],
    ["node affinity with an empty term list", { hostPath: { path: "/x" }, nodeAffinity: { required: { nodeSelectorTerms: [] } } }, "spec.nodeAffinity.required.nodeSelectorTerms", "FieldValueRequired", "Required value: must have at least one node selector term"],
  ];
  for (const [what, spec, field, reason, message] of cases) {
    test(what, async () => expectCause(await s.call("POST", "/api/v1/persistentvolumes", pv(spec)), field, reason, message, what));
  }
});

describe("HorizontalPodAutoscaler (autoscaling/v1)", () => {
  const hpa = (spec: any) => ({ apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", metadata: { name: `h-${++serial}` }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 5, ...spec } });
  const HPAS = `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`;
  test("valid: bounds and a CPU target", async () => expectCode(await s.call("POST", HPAS, hpa({ minReplicas: 2, targetCPUUtilizationPercentage: 70 })), 201, "hpa"));
  const cases: [string, any, string, string][] = [
    ["minReplicas 0", { minReplicas: 0 }, "spec.minReplicas", "Invalid value: 0: must be greater than or equal to 1"],
    ["maxReplicas below minReplicas", { minReplicas: 6 }, "spec.maxReplicas", "Invalid value: 5: must be greater than or equal to `minReplicas`"],
    ["maxReplicas 0", { maxReplicas: 0 }, "spec.maxReplicas", "Invalid value: 0: must be greater than 0"],
    ["targetCPUUtilizationPercentage 0", { targetCPUUtilizationPercentage: 0 }, "spec.metrics[0].resource.target.averageUtilization", "Invalid value: 0: must be greater than 0"],
    ["a target kind with a slash", { scaleTargetRef: { kind: "apps/Deployment", name: "web" } }, "spec.scaleTargetRef.kind", `Invalid value: "apps/Deployment": may not contain '/' or '%'`],
  ];
  for (const [what, spec, field, message] of cases) {
    test(what, async () => expectCause(await s.call("POST", HPAS, hpa(spec)), field, "FieldValueInvalid", message, what));
  }
  test("a target without a name is required, and the metrics are then not looked at", async () => {
    const r = await s.call("POST", HPAS, hpa({ scaleTargetRef: { kind: "Deployment" }, targetCPUUtilizationPercentage: 0 }));
    expectCause(r, "spec.scaleTargetRef.name", "FieldValueRequired", "Required value", "no target name");
    expect(r.body.details.causes.some((c: any) => c.field.startsWith("spec.metrics"))).toBe(false);
  });
});

describe("CertificateSigningRequest spec.request", () => {
  const csr = (pem: string) => ({
    apiVersion: "certificates.k8s.io/v1", kind: "CertificateSigningRequest", metadata: { name: `csr-${++serial}` },
    spec: { request: Buffer.from(pem).toString("base64"), signerName: "example.com/signer", usages: ["client auth"] },
  });
  const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  const request = (key: string) => execFileSync("openssl", ["req", "-new", "-newkey", ...key.split(" "), "-nodes", "-keyout", "/dev/null", "-subj", "/CN=kite"], { stdio: ["ignore", "pipe", "ignore"] }).toString();
  /** The same request with one bit of its signature flipped. */
  const tampered = (pem: string) => {
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, "").replace(/\s/g, ""), "base64");
    der[der.length - 1] ^= 1;
    return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString("base64")}\n-----END CERTIFICATE REQUEST-----\n`;
  };
  const keys: [string, string, string][] = [
    ["RSA", "rsa:2048", "crypto/rsa: verification error"],
    ["ECDSA", "ec -pkeyopt ec_paramgen_curve:P-256", "x509: ECDSA verification failure"],
    ["Ed25519", "ed25519", "x509: Ed25519 verification failure"],
  ];
  for (const [name, key, failure] of keys) {
    test(`${name}: a well-signed request is created; a bad signature is refused`, async () => {
      const pem = request(key);
      expectCode(await s.call("POST", CSRS, csr(`some text before the block\n${pem}`)), 201, `${name} CSR`);
      const r = await s.call("POST", CSRS, csr(tampered(pem)));
      expectStatus(r, 422, "Invalid", `${name} tampered`);
      const cause = r.body.details.causes.find((c: any) => c.field === "spec.request");
      expect(cause?.reason).toBe("FieldValueInvalid");
      expect(cause?.message).toEndWith(`: ${failure}`);
    });
  }
  test("a CERTIFICATE block is not a request; DER that is no request is refused", async () => {
    const cert = `-----BEGIN CERTIFICATE-----\n${Buffer.from("x").toString("base64")}\n-----END CERTIFICATE-----\n`;
    let r = await s.call("POST", CSRS, csr(cert));
    expectStatus(r, 422, "Invalid", "certificate block");
    expect(r.body.details.causes.find((c: any) => c.field === "spec.request")?.message).toEndWith(": PEM block type must be CERTIFICATE REQUEST");
    r = await s.call("POST", CSRS, csr(`-----BEGIN CERTIFICATE REQUEST-----\n${Buffer.from("hello").toString("base64")}\n-----END CERTIFICATE REQUEST-----\n`));
    expectStatus(r, 422, "Invalid", "junk DER");
    expect(r.body.details.causes.find((c: any) => c.field === "spec.request")?.message).toStartWith("Invalid value: []byte{0x2d, 0x2d");
  });
});
