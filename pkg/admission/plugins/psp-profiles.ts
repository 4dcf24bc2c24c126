// The profile strategies of a PodSecurityPolicy: seccomp and AppArmor (its `*/defaultProfileName` and
// `*/allowedProfileNames` annotations, checked against the pod's annotations and seccompProfile fields) and
// SELinux MustRunAs (its seLinuxOptions, levels compared as MLS levels), each as upstream words its refusals.
import type { Obj } from "../../registry/types.ts";
import { APPARMOR_ALLOWED, APPARMOR_DEFAULT, SECCOMP_ALLOWED, SECCOMP_DEFAULT } from "../../validation/pod-security-policy.ts";
import { forbidden, invalid, required } from "./psp-field.ts";

const SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod";
const SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/";

/** A seccompProfile field in the annotations' words, and back. */
function profileName(f: Obj | undefined): string {
  if (!f?.type) return "";
  return f.type === "RuntimeDefault" ? "runtime/default" : f.type === "Unconfined" ? "unconfined" : `localhost/${f.localhostProfile ?? ""}`;
}
function profileField(name: string): Obj {
  if (name === "runtime/default" || name === "docker/default") return { type: "RuntimeDefault" };
  return name.startsWith("localhost/") ? { type: "Localhost", localhostProfile: name.slice("localhost/".length) } : { type: "Unconfined" };
}
const podProfile = (pod: Obj) => pod.metadata.annotations?.[SECCOMP_POD] || profileName(pod.spec.securityContext?.seccompProfile);

/**
 * A pod's (container undefined) or a container's seccomp profile against the policy's allowed list (`*` for
 * any; none set: only no profile), the list shown as written in the policy's annotation.
 */
export function seccompErrors(psp: Obj, pod: Obj, c?: Obj): string[] {
  const key = c ? SECCOMP_CONTAINER + c.name : SECCOMP_POD;
  const profile = c ? pod.metadata.annotations?.[key] ?? (profileName(c.securityContext?.seccompProfile) || podProfile(pod)) : podProfile(pod);
  const written: string | undefined = psp.metadata.annotations?.[SECCOMP_ALLOWED];
  const list = written === undefined ? [] : written.split(",");
  const any = list.includes("*"), allowed = list.filter((p) => p !== "*");
  const path = `pod.metadata.annotations[${key}]`;
  if (!any && !allowed.length && profile) return [forbidden(path, "seccomp may not be set")];
  if ((!allowed.length && !profile) || any || allowed.includes(profile)) return [];
  return [forbidden(path, `${profile} is not an allowed seccomp profile. Valid values are ${written ?? ""}`)];
}

const APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/";

/** A container's AppArmor profile (its annotation) against the policy's allowed list, when it has one. */
export function appArmorErrors(psp: Obj, pod: Obj, c: Obj): string[] {
  const written: string = psp.metadata.annotations?.[APPARMOR_ALLOWED] ?? "";
  if (!written) return [];
  const key = APPARMOR_CONTAINER + c.name;
  const profile = pod.metadata.annotations?.[key] ?? "";
  const path = `pod.metadata.annotations[${key}]`;
  if (!profile) return [forbidden(path, "AppArmor profile must be set")];
  return written.split(",").includes(profile) ? [] : [forbidden(path, `${profile} is not an allowed profile. Allowed values: ${JSON.stringify(written)}`)];
}

/** MLS levels are equal when their sensitivity and their set of categories are (`s0:c1,c0` is `s0:c0,c1`). */
function equalLevels(want: string, got: string): boolean {
  if (want === got) return true;
  const w = want.split(/:(.*)/s), g = got.split(/:(.*)/s);
  if (w.length < 2 || g.length < 2 || w[0] !== g[0]) return false;
  const cats = (c: string) => [...new Set(c.split(","))].sort().join(",");
  return cats(w[1]) === cats(g[1]);
}

/** SELinux MustRunAs: the options, pod's or container's, are the policy's. */
export function seLinuxErrors(psp: Obj, path: string, got: Obj | undefined): string[] {
  const rule = psp.spec.seLinux;
  if (rule?.rule !== "MustRunAs") return [];
  if (!got) return [required(path, "")];
  const want: Obj = rule.seLinuxOptions ?? {};
  const out: string[] = [];
  if (!equalLevels(want.level ?? "", got.level ?? "")) out.push(invalid(`${path}.level`, got.level ?? "", `must be ${want.level ?? ""}`));
  for (const f of ["role", "type", "user"]) if ((got[f] ?? "") !== (want[f] ?? "")) out.push(invalid(`${path}.${f}`, got[f] ?? "", `must be ${want[f] ?? ""}`));
  return out;
}

/** The pod's seccomp profile (the policy's default when it has none) in the annotation and the field, as upstream stores it. */
export function defaultSeccomp(psp: Obj, pod: Obj) {
  const profile = podProfile(pod) || psp.metadata.annotations?.[SECCOMP_DEFAULT] || "";
  if (!profile) return;
  pod.metadata.annotations = { ...pod.metadata.annotations, [SECCOMP_POD]: profile };
  if (!pod.spec.securityContext?.seccompProfile) (pod.spec.securityContext ??= {}).seccompProfile = profileField(profile);
}

/** A container without an AppArmor profile gets the policy's default. */
export function defaultAppArmor(psp: Obj, pod: Obj, c: Obj) {
  const profile = psp.metadata.annotations?.[APPARMOR_DEFAULT];
  if (profile && !pod.metadata.annotations?.[APPARMOR_CONTAINER + c.name]) pod.metadata.annotations = { ...pod.metadata.annotations, [APPARMOR_CONTAINER + c.name]: profile };
}

/** SELinux MustRunAs: a pod without options gets the policy's. */
export function defaultSELinux(psp: Obj, pod: Obj) {
  const options = psp.spec.seLinux?.rule === "MustRunAs" ? psp.spec.seLinux.seLinuxOptions : undefined;
  if (options && !pod.spec.securityContext?.seLinuxOptions) (pod.spec.securityContext ??= {}).seLinuxOptions = structuredClone(options);
}
