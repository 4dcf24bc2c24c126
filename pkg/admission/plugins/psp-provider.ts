// One PodSecurityPolicy applied to one pod (upstream's simple provider): `mutate` fills in what the policy
// defaults (group ids, the user id, runAsNonRoot, capabilities, a read-only root, privilege escalation, the
// RuntimeClass, the profiles of ./psp-profiles.ts) where the pod left it unset; `check` lists, in upstream's
// words, everything the pod asks for that the policy does not allow.
import type { Obj } from "../../registry/types.ts";
import { forbidden, goSlice, invalid, required } from "./psp-field.ts";
import { appArmorErrors, defaultAppArmor, defaultSELinux, defaultSeccomp, seLinuxErrors, seccompErrors } from "./psp-profiles.ts";

type Ranges = { min: number; max: number }[];

/** %v of []IDRange: `[{1000 2000} {3000 3000}]`. */
const showRanges = (r: Ranges) => `[${r.map((x) => `{${x.min} ${x.max}}`).join(" ")}]`;
const inRanges = (id: number, r: Ranges) => r.some((x) => id >= x.min && id <= x.max);

/** The sysctls v1.21's kubelet calls safe (namespaced and isolated): allowed unless the policy forbids them. */
const SAFE_SYSCTLS = ["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range"];
/** A sysctl name against names and `prefix*` patterns. */
const matchesSysctl = (name: string, patterns: string[] | undefined) =>
  (patterns ?? []).some((p) => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p));

/** Every container of the pod with its field path, init containers first (upstream's VisitContainersWithPath). */
function containers(pod: Obj): [Obj, string][] {
  return ["initContainers", "containers", "ephemeralContainers"].flatMap((list) =>
    ((pod.spec?.[list] ?? []) as Obj[]).map((c, i): [Obj, string] => [c, `spec.${list}[${i}]`]));
}

/** The container's value of a field that the pod's security context also holds (runAsUser, runAsNonRoot, ...). */
const effective = (pod: Obj, c: Obj, f: string) => c.securityContext?.[f] ?? pod.spec?.securityContext?.[f];

/** Sets a container's security-context field when it changes the effective value (no empty context is made). */
function setContainer(pod: Obj, c: Obj, f: string, v: unknown) {
  if (v === undefined || Bun.deepEquals(effective(pod, c, f), v)) return;
  (c.securityContext ??= {})[f] = v;
}

/** The volume type a pod's volume is, by the source it names (upstream's FSType names). */
function volumeType(v: Obj): string {
  const known = ["hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs",
    "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
    "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral"];
  const t = known.find((k) => v[k] !== undefined && v[k] !== null) ?? "";
  return t === "cephfs" ? "cephFS" : t;
}

/** Go's path.Clean-based prefix test: /foo allows /foo and /foo/bar, not /foobar. */
function hasPathPrefix(p: string, prefix: string): boolean {
  const clean = (s: string) => (s.length > 1 ? s.replace(/\/+$/, "") : s).replace(/\/+/g, "/");
  const s = clean(p), pre = clean(prefix);
  if (!s.startsWith(pre)) return false;
  return s.length === pre.length || pre === "/" || s[pre.length] === "/";
}

/** Whether a host path is allowed, and whether only read-only. */
function hostPathAllowed(psp: Obj, path: string): { allows: boolean; readOnly: boolean } {
  const allowed = (psp.spec.allowedHostPaths ?? []) as Obj[];
  if (!allowed.length) return { allows: true, readOnly: false };
  let allows = false;
  for (const a of allowed) {
    if (!hasPathPrefix(path, a.pathPrefix ?? "")) continue;
    if (!a.readOnly) return { allows: true, readOnly: false };
    allows = true;
  }
  return { allows, readOnly: allows };
}

/** The capabilities a container ends up with: the policy's default adds (unless dropped) and required drops. */
function capabilities(psp: Obj, c: Obj): Obj | undefined {
  const own = c.securityContext?.capabilities;
  const defAdd: string[] = psp.spec.defaultAddCapabilities ?? [], reqDrop: string[] = psp.spec.requiredDropCapabilities ?? [];
  if (!defAdd.length && !reqDrop.length) return own;
  const add = new Set<string>(own?.add ?? []), drop = new Set<string>(own?.drop ?? []);
  const addCount = add.size, dropCount = drop.size;
  for (const x of defAdd) if (!drop.has(x)) add.add(x);
  for (const x of reqDrop) drop.add(x);
  if (add.size === addCount && drop.size === dropCount) return own;
  // empty lists are left out (nil), as upstream writes them
  return { ...(add.size ? { add: [...add].sort() } : {}), ...(drop.size ? { drop: [...drop].sort() } : {}) };
}

/**
 * Whether upstream could build the policy's strategies at all: MustRunAs (and MayRunAs) need ranges, SELinux
 * MustRunAs its options. A policy that cannot be built is left out, as upstream logs and skips it.
 */
export function usable(psp: Obj): boolean {
  const sp = psp.spec ?? {};
  const needsRanges = (s: Obj | undefined) => (s?.rule === "MustRunAs" || s?.rule === "MayRunAs") && !s.ranges?.length;
  if ([sp.runAsUser, sp.runAsGroup, sp.fsGroup, sp.supplementalGroups].some(needsRanges)) return false;
  return !(sp.seLinux?.rule === "MustRunAs" && !sp.seLinux.seLinuxOptions);
}

/** Fills in the policy's defaults, in place. */
export function mutate(psp: Obj, pod: Obj) {
  const sp = psp.spec;
  const spec = pod.spec;
  const firstMin = (s: Obj | undefined) => (s?.rule === "MustRunAs" && s.ranges?.length ? s.ranges[0].min : undefined);
  const sgDefault = firstMin(sp.supplementalGroups);
  if (!spec.securityContext?.supplementalGroups?.length && sgDefault !== undefined) (spec.securityContext ??= {}).supplementalGroups = [sgDefault];
  const fsDefault = firstMin(sp.fsGroup);
  if (spec.securityContext?.fsGroup == null && fsDefault !== undefined) (spec.securityContext ??= {}).fsGroup = fsDefault;
  defaultSELinux(psp, pod);
  defaultSeccomp(psp, pod);
  if (sp.runtimeClass && spec.runtimeClassName == null && sp.runtimeClass.defaultRuntimeClassName != null) spec.runtimeClassName = sp.runtimeClass.defaultRuntimeClassName;
  for (const [c] of containers(pod)) {
    if (effective(pod, c, "runAsUser") == null) setContainer(pod, c, "runAsUser", firstMin(sp.runAsUser));
    if (effective(pod, c, "runAsGroup") == null) setContainer(pod, c, "runAsGroup", firstMin(sp.runAsGroup));
    if (effective(pod, c, "runAsNonRoot") == null && effective(pod, c, "runAsUser") == null && sp.runAsUser?.rule === "MustRunAsNonRoot") setContainer(pod, c, "runAsNonRoot", true);
    defaultAppArmor(psp, pod, c);
    const caps = capabilities(psp, c);
    if (caps !== c.securityContext?.capabilities) setContainer(pod, c, "capabilities", caps);
    if (sp.readOnlyRootFilesystem && c.securityContext?.readOnlyRootFilesystem == null) setContainer(pod, c, "readOnlyRootFilesystem", true);
    if (sp.defaultAllowPrivilegeEscalation != null && c.securityContext?.allowPrivilegeEscalation == null) setContainer(pod, c, "allowPrivilegeEscalation", sp.defaultAllowPrivilegeEscalation);
    if (sp.allowPrivilegeEscalation === false && c.securityContext?.allowPrivilegeEscalation == null) setContainer(pod, c, "allowPrivilegeEscalation", false);
  }
}

/** fsGroup, supplementalGroups (and runAsGroup) under MustRunAs or MayRunAs: every id in the ranges. */
function groupErrors(strategy: Obj | undefined, path: string, groups: number[] | undefined): string[] {
  const rule = strategy?.rule, ranges: Ranges = strategy?.ranges ?? [];
  if (rule !== "MustRunAs" && rule !== "MayRunAs") return [];
  const out: string[] = [];
  if (rule === "MustRunAs" && !groups?.length && ranges.length) out.push(invalid(path, goSlice("int64", groups), "unable to validate empty groups against required ranges"));
  for (const g of groups ?? []) if (!inRanges(g, ranges)) out.push(invalid(path, goSlice("int64", groups), `group ${g} must be in the ranges: ${showRanges(ranges)}`));
  return out;
}

function runAsUserErrors(strategy: Obj, path: string, nonRoot: boolean | undefined, uid: number | undefined): string[] {
  if (strategy.rule === "MustRunAs") {
    if (uid == null) return [required(`${path}.runAsUser`, "")];
    return inRanges(uid, strategy.ranges ?? []) ? [] : [invalid(`${path}.runAsUser`, uid, `must be in the ranges: ${showRanges(strategy.ranges ?? [])}`)];
  }
  if (strategy.rule !== "MustRunAsNonRoot") return [];
  if (nonRoot == null && uid == null) return [required(`${path}.runAsNonRoot`, "must be true")];
  if (nonRoot === false) return [invalid(`${path}.runAsNonRoot`, false, "must be true")];
  if (uid === 0) return [invalid(`${path}.runAsUser`, 0, "running with the root UID is forbidden")];
  return [];
}

function volumeErrors(psp: Obj, pod: Obj): string[] {
  const out: string[] = [];
  const allowed: string[] = psp.spec.volumes ?? [];
  ((pod.spec.volumes ?? []) as Obj[]).forEach((v, i) => {
    const path = `spec.volumes[${i}]`;
    const type = volumeType(v);
    if (!allowed.includes("*") && !allowed.includes(type)) return out.push(invalid(path, type, `${type} volumes are not allowed to be used`));
    if (type === "hostPath") {
      const { allows, readOnly } = hostPathAllowed(psp, v.hostPath.path ?? "");
      if (!allows) out.push(invalid(`${path}.hostPath.pathPrefix`, v.hostPath.path, "is not allowed to be used"));
      else if (readOnly) {
        for (const [c, cp] of containers(pod)) {
          ((c.volumeMounts ?? []) as Obj[]).forEach((m, j) => { if (m.name === v.name && !m.readOnly) out.push(invalid(`${cp}.volumeMounts[${j}].readOnly`, false, "must be read-only")); });
        }
      }
    } else if (type === "flexVolume" && psp.spec.allowedFlexVolumes?.length && !psp.spec.allowedFlexVolumes.some((f: Obj) => f.driver === v.flexVolume.driver)) {
      out.push(invalid(`${path}.driver`, v.flexVolume.driver, "Flexvolume driver is not allowed to be used"));
    } else if (type === "csi" && psp.spec.allowedCSIDrivers?.length && !psp.spec.allowedCSIDrivers.some((d: Obj) => d.name === v.csi.driver)) {
      out.push(invalid(`${path}.csi.driver`, v.csi.driver, "Inline CSI driver is not allowed to be used"));
    }
  });
  return out;
}

function capabilityErrors(psp: Obj, caps: Obj | undefined, path: string): string[] {
  const reqDrop: string[] = psp.spec.requiredDropCapabilities ?? [];
  if (!caps) return reqDrop.length ? [invalid(path, null, "required capabilities are not set on the securityContext")] : [];
  const out: string[] = [];
  const allowed: string[] = psp.spec.allowedCapabilities ?? [], defAdd: string[] = psp.spec.defaultAddCapabilities ?? [];
  if (!allowed.includes("*")) {
    for (const cap of (caps.add ?? []) as string[]) if (!allowed.includes(cap) && !defAdd.includes(cap)) out.push(invalid(`${path}.add`, cap, "capability may not be added"));
  }
  for (const d of reqDrop) {
    if (!(caps.drop ?? []).includes(d)) out.push(invalid(`${path}.drop`, goSlice("core.Capability", caps.drop, true), `${d} is required to be dropped but was not found`));
  }
  return out;
}

function containerErrors(psp: Obj, pod: Obj, c: Obj, cp: string): string[] {
  const sp = psp.spec;
  const sc = c.securityContext ?? {};
  const path = `${cp}.securityContext`;
  const out = runAsUserErrors(sp.runAsUser ?? {}, path, effective(pod, c, "runAsNonRoot"), effective(pod, c, "runAsUser"));
  const gid = effective(pod, c, "runAsGroup");
  out.push(...groupErrors(sp.runAsGroup, path, gid == null ? undefined : [gid]), 
    ...seLinuxErrors(psp, `${path}.seLinuxOptions`, effective(pod, c, "seLinuxOptions")), ...appArmorErrors(psp, pod, c), ...seccompErrors(psp, pod, c));
  if (!sp.privileged && sc.privileged === true) out.push(invalid(`${path}.privileged`, true, "Privileged containers are not allowed"));
  const procMount = sc.procMount ?? "Default";
  if (!(sp.allowedProcMountTypes?.length ? sp.allowedProcMountTypes : ["Default"]).includes(procMount)) out.push(invalid(`${path}.procMount`, procMount, "ProcMountType is not allowed"));
  out.push(...capabilityErrors(psp, sc.capabilities, `${path}.capabilities`));
  const hostPorts: Ranges = sp.hostPorts ?? [];
  for (const p of (c.ports ?? []) as Obj[]) {
    if (!(p.hostPort > 0) || inRanges(p.hostPort, hostPorts)) continue;
    const shown = hostPorts.map((r) => (r.min === r.max ? `${r.min}` : `${r.min}-${r.max}`)).join(",");
    out.push(invalid(`${cp}.hostPort`, p.hostPort, `Host port ${p.hostPort} is not allowed to be used. Allowed ports: [${shown}]`));
  }
  if (sp.readOnlyRootFilesystem) {
    if (sc.readOnlyRootFilesystem == null) out.push(invalid(`${path}.readOnlyRootFilesystem`, null, "ReadOnlyRootFilesystem may not be nil and must be set to true"));
    else if (!sc.readOnlyRootFilesystem) out.push(invalid(`${path}.readOnlyRootFilesystem`, false, "ReadOnlyRootFilesystem must be set to true"));
  }
  if (sp.allowPrivilegeEscalation === false && sc.allowPrivilegeEscalation !== false) {
    out.push(invalid(`${path}.allowPrivilegeEscalation`, sc.allowPrivilegeEscalation ?? null, "Allowing privilege escalation for containers is not allowed"));
  }
  return out;
}

/** Everything the pod does that the policy does not allow, as upstream's field errors print. */
export function check(psp: Obj, pod: Obj): string[] {
  const sp = psp.spec;
  const psc = pod.spec.securityContext ?? {};
  const path = "spec.securityContext";
  const out = [
    ...groupErrors(sp.fsGroup, `${path}.fsGroup`, psc.fsGroup == null ? undefined : [psc.fsGroup]),
    ...groupErrors(sp.supplementalGroups, `${path}.supplementalGroups`, psc.supplementalGroups),
    ...seccompErrors(psp, pod),
    ...seLinuxErrors(psp, `${path}.seLinuxOptions`, psc.seLinuxOptions),
  ];
  const spec = pod.spec;
  if (!sp.hostNetwork && spec.hostNetwork) out.push(invalid(`${path}.hostNetwork`, true, "Host network is not allowed to be used"));
  if (!sp.hostPID && spec.hostPID) out.push(invalid(`${path}.hostPID`, true, "Host PID is not allowed to be used"));
  if (!sp.hostIPC && spec.hostIPC) out.push(invalid(`${path}.hostIPC`, true, "Host IPC is not allowed to be used"));
  ((psc.sysctls ?? []) as Obj[]).forEach((x, i) => {
    // upstream words this path from `pod`
    const path = `pod.spec.securityContext.sysctls[${i}]`;
    if (matchesSysctl(x.name, sp.forbiddenSysctls)) out.push(forbidden(path, `sysctl ${JSON.stringify(x.name)} is not allowed`));
    else if (!SAFE_SYSCTLS.includes(x.name) && !matchesSysctl(x.name, sp.allowedUnsafeSysctls)) out.push(forbidden(path, `unsafe sysctl ${JSON.stringify(x.name)} is not allowed`));
  });
  out.push(...volumeErrors(psp, pod));
  const rc = spec.runtimeClassName, allowedRC: string[] | undefined = sp.runtimeClass?.allowedRuntimeClassNames;
  if (sp.runtimeClass && rc != null && !(allowedRC ?? []).some((n) => n === "*" || n === rc)) out.push(invalid("spec.runtimeClassName", rc, ""));
  for (const [c, cp] of containers(pod)) out.push(...containerErrors(psp, pod, c, cp));
  return out;
}
