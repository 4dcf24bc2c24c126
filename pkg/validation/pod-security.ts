// Security contexts of a pod and of its containers: user and group ids, sysctls, seccomp profiles,
// Windows options and the privilege-escalation rules, in upstream's words.
import type { Obj } from "../registry/types.ts";
import { type Errs, Printed } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { dns1123Subdomain } from "./names.ts";
import { validateLocalDescendingPath } from "./volume-paths.ts";
import { privilegedAllowed } from "./cluster-capabilities.ts";

const MAX_ID = 2147483647;
const ID_RANGE = `must be between 0 and ${MAX_ID}, inclusive`;

/** IsValidUserID / IsValidGroupID: an id is a non-negative int32 (the field itself is an int64). */
function id(errs: Errs, v: unknown, path: string) {
  const n = int(v, path);
  if (n !== undefined && (n < 0 || n > MAX_ID)) errs.invalid(path, n, ID_RANGE);
}

const SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const SYSCTL_FORMAT = `(${SYSCTL_SEGMENT}\\.)*${SYSCTL_SEGMENT}`;
const SYSCTL = new RegExp(`^${SYSCTL_FORMAT}$`);

/** Names only: whether a sysctl is safe is the node's decision (the kubelet refuses unsafe ones it was not told to allow). */
function sysctls(errs: Errs, v: unknown, path: string) {
  const seen = new Set<string>();
  errs.each<Obj>(path, list(v, path), (s, p) => {
    const name = str(s?.name, `${p}.name`) ?? "";
    if (!name) errs.required(`${p}.name`);
    else if (name.length > 253 || !SYSCTL.test(name)) errs.invalid(`${p}.name`, name, `must have at most 253 characters and match regex ${SYSCTL_FORMAT}`);
    else if (seen.has(name)) errs.duplicate(`${p}.name`, name);
    seen.add(name);
  });
}

const SECCOMP_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"];

/** %#v of a struct whose fields are strings or pointers (pointers print as an address, as Go does). */
function goStruct(type: string, fields: [string, string, string?][], o: Obj): Printed {
  const shown = fields.map(([name, goType, key]) => {
    const v = o[key ?? name[0].toLowerCase() + name.slice(1)];
    if (!goType.startsWith("*")) return `${name}:${JSON.stringify(v ?? "")}`;
    return `${name}:(${goType})(${v === undefined || v === null ? "nil" : "0xc000010000"})`;
  });
  return new Printed(`${type}{${shown.join(", ")}}`);
}

function seccompProfile(errs: Errs, v: unknown, path: string) {
  if (v === undefined || v === null) return;
  const sp = obj(v, path);
  const type = str(sp.type, `${path}.type`) ?? "";
  if (!type) errs.required(`${path}.type`, "type is required when seccompProfile is set");
  else if (!SECCOMP_TYPES.includes(type)) errs.notSupported(`${path}.type`, type, SECCOMP_TYPES);
  const local = str(sp.localhostProfile, `${path}.localhostProfile`);
  if (type === "Localhost") {
    if (local === undefined) errs.required(`${path}.localhostProfile`, "must be set when seccomp type is Localhost");
    else validateLocalDescendingPath(errs, local, `${path}.localhostProfile`);
  } else if (local !== undefined) {
    errs.invalid(`${path}.localhostProfile`, goStruct("core.SeccompProfile", [["Type", "string"], ["LocalhostProfile", "*string"]], sp), "can only be set when seccomp type is Localhost");
  }
}

const MAX_GMSA_SPEC_KIB = 64;
const NETBIOS_DOMAIN = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const DNS_DOMAIN = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const BAD_USER_CHARS = /["/\\:;|=,+*?<>@[\]]/;

/** Why a Windows `DOMAIN\user` name is refused; several reasons may hold at once. */
function runAsUserNameProblems(name: string): string[] {
  if (!name) return ["runAsUserName cannot be an empty string"];
  if (/[\x00-\x1f\x7f]/.test(name)) return ["runAsUserName cannot contain control characters"];
  const parts = name.split("\\");
  if (parts.length > 2) return ["runAsUserName cannot contain more than one backslash"];
  const [domain, user] = parts.length === 2 ? parts : ["", parts[0]];
  const out: string[] = [];
  if (domain.length >= 256) out.push("runAsUserName's Domain length must be under 256 characters");
  if (parts.length === 2 && !NETBIOS_DOMAIN.test(domain) && !DNS_DOMAIN.test(domain)) out.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  if (!user) out.push("runAsUserName's User cannot be empty");
  else if (user.length > 104) out.push("runAsUserName's User length must not be longer than 104 characters");
  if (/^[. ]+$/.test(user)) out.push("runAsUserName's User cannot contain only periods or spaces");
  if (BAD_USER_CHARS.test(user)) out.push(`runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`);
  return out;
}

function windowsOptions(errs: Errs, v: unknown, path: string) {
  if (v === undefined || v === null) return;
  const w = obj(v, path);
  const credName = str(w.gmsaCredentialSpecName, `${path}.gmsaCredentialSpecName`);
  if (credName !== undefined) errs.invalidEach(`${path}.gmsaCredentialSpecName`, credName, dns1123Subdomain(credName));
  const spec = str(w.gmsaCredentialSpec, `${path}.gmsaCredentialSpec`);
  if (spec === "") errs.invalid(`${path}.gmsaCredentialSpec`, spec, "gmsaCredentialSpec cannot be an empty string");
  else if (spec !== undefined && Buffer.byteLength(spec) > MAX_GMSA_SPEC_KIB * 1024) errs.invalid(`${path}.gmsaCredentialSpec`, spec, `gmsaCredentialSpec size must be under ${MAX_GMSA_SPEC_KIB} KiB`);
  const user = str(w.runAsUserName, `${path}.runAsUserName`);
  if (user !== undefined) errs.invalidEach(`${path}.runAsUserName`, user, runAsUserNameProblems(user));
}

const FS_GROUP_POLICIES = ["Always", "OnRootMismatch"];

/**
 * spec.securityContext and the host namespaces beside it (upstream keeps them in the internal security
 * context, so shareProcessNamespace is reported under securityContext).
 */
export function validatePodSecurityContext(errs: Errs, spec: Obj, path: string) {
  const p = `${path}.securityContext`;
  const sc = obj(spec.securityContext, p);
  for (const f of ["fsGroup", "runAsUser", "runAsGroup"]) id(errs, sc[f], `${p}.${f}`);
  errs.each<unknown>(`${p}.supplementalGroups`, list(sc.supplementalGroups, `${p}.supplementalGroups`), (g, gp) => id(errs, g, gp));
  if (spec.hostPID === true && spec.shareProcessNamespace === true) {
    errs.invalid(`${p}.shareProcessNamespace`, true, "ShareProcessNamespace and HostPID cannot both be enabled");
  }
  // on the host's network a container's port is the host's (the defaulter fills an unset hostPort)
  if (spec.hostNetwork === true) {
    errs.each<Obj>(`${path}.containers`, list(spec.containers, `${path}.containers`), (c, cp) => errs.each<Obj>(`${cp}.ports`, list(c?.ports, `${cp}.ports`), (port, pp) => {
      if ((port?.hostPort ?? 0) !== (port?.containerPort ?? 0)) errs.invalid(`${pp}.containerPort`, port?.containerPort ?? 0, "must match `hostPort` when `hostNetwork` is true");
    }));
  }
  sysctls(errs, sc.sysctls, `${p}.sysctls`);
  const policy = str(sc.fsGroupChangePolicy, `${p}.fsGroupChangePolicy`);
  if (policy !== undefined && !FS_GROUP_POLICIES.includes(policy)) errs.notSupported(`${p}.fsGroupChangePolicy`, policy, FS_GROUP_POLICIES);
  seccompProfile(errs, sc.seccompProfile, `${p}.seccompProfile`);
  windowsOptions(errs, sc.windowsOptions, `${p}.windowsOptions`);
}

export const PROC_MOUNTS = ["Default", "Unmasked"];
const CONTAINER_CONTEXT: [string, string, string?][] = [
  ["Capabilities", "*core.Capabilities"], ["Privileged", "*bool"], ["SELinuxOptions", "*core.SELinuxOptions", "seLinuxOptions"],
  ["WindowsOptions", "*core.WindowsSecurityContextOptions"], ["RunAsUser", "*int64"], ["RunAsGroup", "*int64"],
  ["RunAsNonRoot", "*bool"], ["ReadOnlyRootFilesystem", "*bool"], ["AllowPrivilegeEscalation", "*bool"],
  ["ProcMount", "*core.ProcMountType"], ["SeccompProfile", "*core.SeccompProfile"],
];

/** A container's securityContext (ValidateSecurityContext). */
export function validateContainerSecurityContext(errs: Errs, v: unknown, path: string) {
  if (v === undefined || v === null) return;
  const sc = obj(v, path);
  if (sc.privileged === true && !privilegedAllowed()) errs.forbidden(`${path}.privileged`, "disallowed by cluster policy");
  id(errs, sc.runAsUser, `${path}.runAsUser`);
  id(errs, sc.runAsGroup, `${path}.runAsGroup`);
  const procMount = str(sc.procMount, `${path}.procMount`);
  if (procMount !== undefined && !PROC_MOUNTS.includes(procMount)) errs.notSupported(`${path}.procMount`, procMount, PROC_MOUNTS);
  seccompProfile(errs, sc.seccompProfile, `${path}.seccompProfile`);
  if (sc.allowPrivilegeEscalation === false) {
    const shown = goStruct("core.SecurityContext", CONTAINER_CONTEXT, sc);
    if (sc.privileged === true) errs.invalid(path, shown, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true");
    const caps = obj(sc.capabilities, `${path}.capabilities`);
    for (const cap of list<string>(caps.add, `${path}.capabilities.add`)) {
      if (cap === "CAP_SYS_ADMIN") errs.invalid(path, shown, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN");
    }
  }
  windowsOptions(errs, sc.windowsOptions, `${path}.windowsOptions`);
}
