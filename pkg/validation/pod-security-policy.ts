// PodSecurityPolicy (policy/v1beta1): the strategies' rules and id ranges, volume types, capabilities that
// contradict the required drops, host paths, flex and CSI drivers, sysctl patterns, proc mount types,
// RuntimeClass names, and the seccomp and AppArmor annotations — with upstream v1.21's field paths (some
// of them odd: `requiredDropCapabilities` without `spec.`, `allowedCSIDrivers.allowedCSIDriver[i]`).
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { dns1123Subdomain } from "./names.ts";
import { PROC_MOUNTS } from "./pod-security.ts";
import { run } from "./rules.ts";
import { driverName } from "./storage.ts";
import { validateLocalDescendingPath } from "./volume-paths.ts";

/** Every volume type a policy may name (upstream's FSTypes, sorted as its messages list them), `*` for all. */
export const FS_TYPES = [
  "*", "awsElasticBlockStore", "azureDisk", "azureFile", "cephFS", "cinder", "configMap", "csi", "downwardAPI", "emptyDir",
  "ephemeral", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", "hostPath", "iscsi", "nfs",
  "persistentVolumeClaim", "photonPersistentDisk", "portworxVolume", "projected", "quobyte", "rbd", "scaleIO", "secret",
  "storageos", "vsphereVolume",
];

export const SECCOMP_DEFAULT = "seccomp.security.alpha.kubernetes.io/defaultProfileName";
export const SECCOMP_ALLOWED = "seccomp.security.alpha.kubernetes.io/allowedProfileNames";
export const APPARMOR_DEFAULT = "apparmor.security.beta.kubernetes.io/defaultProfileName";
export const APPARMOR_ALLOWED = "apparmor.security.beta.kubernetes.io/allowedProfileNames";

/** ValidateIDRange: both ends non-negative, min ≤ max. */
function idRanges(e: Errs, path: string, v: unknown) {
  e.each<Obj>(path, list(v, path), (r, p) => {
    const min = int(r?.min, `${p}.min`) ?? 0, max = int(r?.max, `${p}.max`) ?? 0;
    if (min < 0) e.invalid(`${p}.min`, min, "min cannot be negative");
    if (max < 0) e.invalid(`${p}.max`, max, "max cannot be negative");
    if (min > max) e.invalid(`${p}.min`, min, "min cannot be greater than max");
  });
}

/** A strategy with a rule out of `rules` (sorted, as upstream lists them) and id ranges. */
function ruleWithRanges(e: Errs, path: string, v: unknown, rules: string[]) {
  const s = obj(v, path);
  const rule = str(s.rule, `${path}.rule`) ?? "";
  if (!rules.includes(rule)) e.notSupported(`${path}.rule`, rule, rules);
  idRanges(e, `${path}.ranges`, s.ranges);
}

/** runAsGroup is optional; RunAsAny takes no ranges, the others need one. */
function runAsGroup(e: Errs, path: string, v: unknown) {
  if (v === undefined || v === null) return;
  const s = obj(v, path);
  const rule = str(s.rule, `${path}.rule`) ?? "";
  const ranges = list(s.ranges, `${path}.ranges`);
  if (rule === "RunAsAny") {
    if (ranges.length) e.invalid(`${path}.ranges`, ranges, "Ranges must be empty");
  } else if (rule === "MustRunAs" || rule === "MayRunAs") {
    if (!ranges.length) e.invalid(`${path}.ranges`, [], "must provide at least one range");
    idRanges(e, `${path}.ranges`, ranges);
  } else {
    e.notSupported(`${path}.rule`, rule, ["MustRunAs", "RunAsAny", "MayRunAs"]);
  }
}

/** Capabilities also listed in the required drops. */
function capsAgainstDrops(e: Errs, field: string, drops: string[] | undefined, caps: string[]) {
  if (!drops) return;
  for (const c of caps) if (drops.includes(c)) e.invalid(field, c, `capability is listed in ${field} and requiredDropCapabilities`);
}

function allowedHostPaths(e: Errs, path: string, v: unknown) {
  const paths = list(v, path);
  for (let i = 0; i < paths.length; i++) {
    const prefix = str(paths[i]?.pathPrefix, `${path}[${i}].pathPrefix`) ?? "";
    // upstream stops at the first empty prefix
    if (!prefix) return e.required(`${path}[${i}]`, "is required");
    if (prefix.split("/").includes("..")) e.invalid(`${path}[${i}]`, prefix, "must not contain '..'");
  }
}

const SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const SYSCTL_PATTERN = `(${SYSCTL_SEGMENT}\\.)*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]`;
const SYSCTL_RE = new RegExp(`^${SYSCTL_PATTERN}$`);

/** Sysctl names or `prefix*` patterns; `*` alone or nothing else. */
function sysctlPatterns(e: Errs, path: string, names: string[]) {
  let coversAll = false;
  names.forEach((s, i) => {
    if (!s) e.invalid(`${path}[${i}]`, s, "empty sysctl not allowed");
    else if (s.length > 253 || !SYSCTL_RE.test(s)) e.invalid(`${path}[${i}]`, s, `must have at most 253 characters and match regex ${SYSCTL_PATTERN}`);
    else if (s[0] === "*") coversAll = true;
  });
  if (coversAll && names.length > 1) e.forbidden(`${path}.items`, "if '*' is present, must not specify other sysctls");
}

/** An allowed unsafe sysctl may not also be forbidden, exactly or through a pattern. */
function sysctlOverlaps(e: Errs, allowed: string[], forbidden: string[]) {
  const prefix = (s: string) => (s.endsWith("*") ? s.slice(0, -1) : undefined);
  allowed.forEach((a, i) => forbidden.forEach((f, j) => {
    const ap = prefix(a), fp = prefix(f);
    const onAllowed = () => e.invalid(`spec.allowedUnsafeSysctls[${i}]`, a, `sysctl overlaps with ${f}`);
    const onForbidden = () => e.invalid(`spec.forbiddenSysctls[${j}]`, f, `sysctl overlaps with ${a}`);
    if (ap !== undefined && fp !== undefined) {
      if (ap.startsWith(fp)) onAllowed();
      else if (fp.startsWith(ap)) onForbidden();
    } else if (ap !== undefined) {
      if (f.startsWith(ap)) onForbidden();
    } else if (fp !== undefined) {
      if (a.startsWith(fp)) onAllowed();
    } else if (a === f) onAllowed();
  }));
}

function runtimeClass(e: Errs, path: string, v: unknown) {
  if (v === undefined || v === null) return;
  const rc = obj(v, path);
  const names = list<string>(rc.allowedRuntimeClassNames, `${path}.allowedRuntimeClassNames`);
  const seen = new Set<string>();
  names.forEach((name, i) => {
    const p = `${path}.allowedRuntimeClassNames[${i}]`;
    if (name !== "*") e.invalidEach(p, name, dns1123Subdomain(name));
    if (seen.has(name)) e.duplicate(p, name);
    seen.add(name);
  });
  const def = str(rc.defaultRuntimeClassName, `${path}.defaultRuntimeClassName`);
  if (def !== undefined) {
    e.invalidEach(`${path}.defaultRuntimeClassName`, def, dns1123Subdomain(def));
    if (!seen.has(def) && !seen.has("*")) e.required(`${path}.allowedRuntimeClassNames`, `default ${JSON.stringify(def)} must be allowed`);
  }
  if (seen.has("*") && names.length > 1) e.invalid(`${path}.allowedRuntimeClassNames`, names, "if '*' is present, must not specify other RuntimeClass names");
}

const appArmorError = (p: string) =>
  p === "runtime/default" || p === "unconfined" || p.startsWith("localhost/") ? undefined : `invalid AppArmor profile name: ${JSON.stringify(p)}`;

/** ValidateSeccompProfile of the annotations' form: runtime/default, docker/default, unconfined, localhost/<path>. */
function seccompAnnotation(e: Errs, field: string, p: string) {
  if (p === "runtime/default" || p === "docker/default" || p === "unconfined") return;
  if (p.startsWith("localhost/")) return validateLocalDescendingPath(e, p.slice("localhost/".length), field);
  e.invalid(field, p, "must be a valid seccomp profile");
}

function annotations(e: Errs, a: Record<string, string>) {
  const at = (k: string) => `metadata.annotations[${k}]`;
  const def = a[APPARMOR_DEFAULT];
  if (def) { const err = appArmorError(def); if (err) e.invalid(at(APPARMOR_DEFAULT), def, err); }
  const allowed = a[APPARMOR_ALLOWED];
  if (allowed) for (const p of allowed.split(",")) { const err = appArmorError(p); if (err) e.invalid(at(APPARMOR_ALLOWED), allowed, err); }
  if (a[SECCOMP_DEFAULT]) seccompAnnotation(e, at(SECCOMP_DEFAULT), a[SECCOMP_DEFAULT]);
  if (a[SECCOMP_ALLOWED]) for (const p of a[SECCOMP_ALLOWED].split(",")) if (p !== "*") seccompAnnotation(e, at(SECCOMP_ALLOWED), p);
}

export const podSecurityPolicy = (o: Obj) => run((e) => {
  annotations(e, o.metadata?.annotations ?? {});
  const sp = obj(o.spec, "spec");
  const strings = (f: string) => list<string>(sp[f], `spec.${f}`);
  ruleWithRanges(e, "spec.runAsUser", sp.runAsUser, ["MustRunAs", "MustRunAsNonRoot", "RunAsAny"]);
  runAsGroup(e, "spec.runAsGroup", sp.runAsGroup);
  const seLinuxRule = str(obj(sp.seLinux, "spec.seLinux").rule, "spec.seLinux.rule") ?? "";
  if (!["MustRunAs", "RunAsAny"].includes(seLinuxRule)) e.notSupported("spec.seLinux.rule", seLinuxRule, ["MustRunAs", "RunAsAny"]);
  ruleWithRanges(e, "spec.supplementalGroups", sp.supplementalGroups, ["MayRunAs", "MustRunAs", "RunAsAny"]);
  ruleWithRanges(e, "spec.fsGroup", sp.fsGroup, ["MayRunAs", "MustRunAs", "RunAsAny"]);
  for (const v of strings("volumes")) if (!FS_TYPES.includes(v)) e.notSupported("spec.volumes", v, FS_TYPES);
  const drops = Array.isArray(sp.requiredDropCapabilities) ? strings("requiredDropCapabilities") : undefined;
  const allowedCaps = strings("allowedCapabilities");
  if (drops?.length && allowedCaps.includes("*")) e.invalid("requiredDropCapabilities", drops, "must be empty when all capabilities are allowed by a wildcard");
  capsAgainstDrops(e, "defaultAddCapabilities", drops, strings("defaultAddCapabilities"));
  capsAgainstDrops(e, "allowedCapabilities", drops, allowedCaps);
  if (sp.defaultAllowPrivilegeEscalation === true && sp.allowPrivilegeEscalation === false) {
    e.invalid("spec.defaultAllowPrivilegeEscalation", true, "Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true");
  }
  strings("allowedProcMountTypes").forEach((t, i) => { if (!PROC_MOUNTS.includes(t)) e.notSupported(`spec.allowedProcMountTypes[${i}]`, t, PROC_MOUNTS); });
  allowedHostPaths(e, "spec.allowedHostPaths", sp.allowedHostPaths);
  list(sp.allowedFlexVolumes, "spec.allowedFlexVolumes").forEach((fv, i) => {
    if (!str(fv?.driver, "spec.allowedFlexVolumes.driver")) e.required(`spec.allowedFlexVolumes.allowedFlexVolumes[${i}].driver`, "must specify a driver");
  });
  list(sp.allowedCSIDrivers, "spec.allowedCSIDrivers").forEach((d, i) => driverName(e, `spec.allowedCSIDrivers.allowedCSIDriver[${i}].name`, d?.name));
  const unsafe = strings("allowedUnsafeSysctls"), forbidden = strings("forbiddenSysctls");
  sysctlPatterns(e, "spec.allowedUnsafeSysctls", unsafe);
  sysctlPatterns(e, "spec.forbiddenSysctls", forbidden);
  sysctlOverlaps(e, unsafe, forbidden);
  runtimeClass(e, "spec.runtimeClass", sp.runtimeClass);
});
