// Containers of a pod spec: names, images, ports, env, mounts, probes, resources.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { configKey, dns1123Label, dns1123Subdomain, envVarName } from "./names.ts";
import { PROTOCOLS, portName, portNum } from "./ports.ts";
import { validateLifecycle, validateProbe } from "./probe.ts";
import { validateResources } from "./resources.ts";
import { validateLocalDescendingPath } from "./volume-paths.ts";
import { ENV_FIELDS, objectFieldSelector, resourceFieldSelector } from "./downward-api.ts";
import { validateContainerSecurityContext } from "./pod-security.ts";

const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const MESSAGE_POLICIES = "must be 'File' or 'FallbackToLogsOnError'";

function validatePorts(errs: Errs, ports: unknown, path: string) {
  const names = new Set<string>();
  errs.each<Obj>(path, list(ports, path), (port, p) => {
    const name = str(port?.name, `${p}.name`);
    if (name) {
      const bad = portName(name);
      errs.invalidEach(`${p}.name`, name, bad);
      if (!bad.length && names.has(name)) errs.duplicate(`${p}.name`, name);
      names.add(name);
    }
    const containerPort = int(port?.containerPort, `${p}.containerPort`);
    if (!containerPort) errs.required(`${p}.containerPort`);
    else errs.invalidEach(`${p}.containerPort`, containerPort, portNum(containerPort));
    const hostPort = int(port?.hostPort, `${p}.hostPort`);
    if (hostPort) errs.invalidEach(`${p}.hostPort`, hostPort, portNum(hostPort));
    const protocol = str(port?.protocol, `${p}.protocol`);
    if (protocol && !PROTOCOLS.includes(protocol)) errs.notSupported(`${p}.protocol`, protocol, PROTOCOLS);
  });
}

/** The one source of an env var's valueFrom. */
const VALUE_SOURCES: [string, (errs: Errs, s: Obj, path: string) => void][] = [
  ["fieldRef", (errs, s, path) => objectFieldSelector(errs, s, path, ENV_FIELDS)],
  ["resourceFieldRef", (errs, s, path) => resourceFieldSelector(errs, s, path, false)],
  ["configMapKeyRef", keySelector],
  ["secretKeyRef", keySelector],
];

function keySelector(errs: Errs, s: Obj, path: string) {
  if (!str(s.name, `${path}.name`)) errs.required(`${path}.name`);
  const key = str(s.key, `${path}.key`);
  if (!key) errs.required(`${path}.key`);
  else errs.invalidEach(`${path}.key`, key, configKey(key));
}

function validateEnv(errs: Errs, env: unknown, path: string) {
  errs.each<Obj>(path, list(env, path), (ev, p) => {
    const name = str(ev?.name, `${p}.name`);
    if (!name) errs.required(`${p}.name`);
    else errs.invalidEach(`${p}.name`, name, envVarName(name));
    if (ev?.valueFrom === undefined || ev?.valueFrom === null) return;
    const from = obj(ev.valueFrom, `${p}.valueFrom`);
    const present = VALUE_SOURCES.filter(([k]) => from[k] !== undefined && from[k] !== null);
    for (const [k, check] of present) check(errs, obj(from[k], `${p}.valueFrom.${k}`), `${p}.valueFrom.${k}`);
    if (!present.length) errs.invalid(`${p}.valueFrom`, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`");
    else if (str(ev.value, `${p}.value`)) errs.invalid(`${p}.valueFrom`, "", "may not be specified when `value` is not empty");
    else if (present.length > 1) errs.invalid(`${p}.valueFrom`, "", "may not have more than one field specified at a time");
  });
}

function validateEnvFrom(errs: Errs, envFrom: unknown, path: string) {
  errs.each<Obj>(path, list(envFrom, path), (ef, p) => {
    const prefix = str(ef?.prefix, `${p}.prefix`);
    if (prefix) errs.invalidEach(`${p}.prefix`, prefix, envVarName(prefix));
    const refs = ["configMapRef", "secretRef"].filter((k) => ef?.[k] !== undefined && ef?.[k] !== null);
    for (const k of refs) {
      const name = str(obj(ef[k], `${p}.${k}`).name, `${p}.${k}.name`);
      if (!name) errs.required(`${p}.${k}.name`);
      else errs.invalidEach(`${p}.${k}.name`, name, dns1123Subdomain(name));
    }
    if (!refs.length) errs.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`");
    else if (refs.length > 1) errs.invalid(path, "", "may not have more than one field specified at a time");
  });
}

function validateVolumeMounts(errs: Errs, mounts: unknown, volumes: Set<string>, path: string) {
  const seen = new Set<string>();
  errs.each<Obj>(path, list(mounts, path), (m, p) => {
    const name = str(m?.name, `${p}.name`) ?? "";
    if (!name) errs.required(`${p}.name`);
    if (!volumes.has(name)) errs.notFound(`${p}.name`, name);
    const mountPath = str(m?.mountPath, `${p}.mountPath`) ?? "";
    if (!mountPath) errs.required(`${p}.mountPath`);
    if (seen.has(mountPath)) errs.invalid(`${p}.mountPath`, mountPath, "must be unique");
    seen.add(mountPath);
    // upstream names these two fields without the mount's index
    const subPath = str(m?.subPath, `${p}.subPath`);
    if (subPath) validateLocalDescendingPath(errs, subPath, `${path}.subPath`);
    const expr = str(m?.subPathExpr, `${p}.subPathExpr`);
    if (expr) {
      if (subPath) errs.invalid(`${p}.subPathExpr`, expr, "subPathExpr and subPath are mutually exclusive");
      validateLocalDescendingPath(errs, expr, `${path}.subPathExpr`);
    }
  });
}

/** Fields that a defaulter fills: checked only when given (an empty value means "default it"). */
function validateDefaulted(errs: Errs, c: Obj, p: string) {
  const policy = str(c.imagePullPolicy, `${p}.imagePullPolicy`);
  if (policy && !PULL_POLICIES.includes(policy)) errs.notSupported(`${p}.imagePullPolicy`, policy, PULL_POLICIES);
  const msg = str(c.terminationMessagePolicy, `${p}.terminationMessagePolicy`);
  if (msg && msg !== "File" && msg !== "FallbackToLogsOnError") errs.invalid(`${p}.terminationMessagePolicy`, msg, MESSAGE_POLICIES);
}

/** One container of containers or initContainers; `names` are the names taken so far in the pod. */
function validateContainer(errs: Errs, c: Obj, p: string, names: Set<string>, volumes: Set<string>) {
  const name = str(c.name, `${p}.name`);
  if (!name) errs.required(`${p}.name`);
  else errs.invalidEach(`${p}.name`, name, dns1123Label(name));
  if (names.has(name ?? "")) errs.duplicate(`${p}.name`, name ?? "");
  else names.add(name ?? "");
  if (!str(c.image, `${p}.image`)) errs.required(`${p}.image`);
  if (c.lifecycle !== undefined && c.lifecycle !== null) validateLifecycle(errs, c.lifecycle, `${p}.lifecycle`);
  validateProbe(errs, c.livenessProbe, `${p}.livenessProbe`);
  if (c.readinessProbe?.terminationGracePeriodSeconds !== undefined && c.readinessProbe?.terminationGracePeriodSeconds !== null) {
    errs.invalid(`${p}.readinessProbe.terminationGracePeriodSeconds`, c.readinessProbe.terminationGracePeriodSeconds, "must not be set for readinessProbes");
  }
  for (const probe of ["livenessProbe", "startupProbe"]) {
    const success = c[probe]?.successThreshold;
    if (success !== undefined && success !== null && success !== 1) errs.invalid(`${p}.${probe}.successThreshold`, success, "must be 1");
  }
  validateProbe(errs, c.startupProbe, `${p}.startupProbe`);
  validateDefaulted(errs, c, p);
  validateProbe(errs, c.readinessProbe, `${p}.readinessProbe`);
  validatePorts(errs, c.ports, `${p}.ports`);
  validateEnv(errs, c.env, `${p}.env`);
  validateEnvFrom(errs, c.envFrom, `${p}.envFrom`);
  validateVolumeMounts(errs, c.volumeMounts, volumes, `${p}.volumeMounts`);
  validateResources(errs, obj(c.resources, `${p}.resources`), `${p}.resources`);
  validateContainerSecurityContext(errs, c.securityContext, `${p}.securityContext`);
}

/** Two containers of a pod may not take one host port (protocol, host IP, port). */
function checkHostPorts(errs: Errs, containers: Obj[], path: string) {
  const taken = new Set<string>();
  containers.forEach((c, ci) => list<Obj>(c?.ports, "").forEach((port, pi) => {
    if (!port?.hostPort) return;
    const key = `${port.protocol ?? "TCP"}/${port.hostIP ?? ""}/${port.hostPort}`;
    if (taken.has(key)) errs.duplicate(`${path}[${ci}].ports[${pi}].hostPort`, key);
    taken.add(key);
  }));
}

/** spec.containers and spec.initContainers; names are unique across both. */
export function validateContainers(errs: Errs, spec: Obj, path: string, volumes: Set<string>) {
  const containers = list(spec.containers, `${path}.containers`);
  const names = new Set<string>();
  if (containers.length === 0) errs.required(`${path}.containers`);
  errs.each<Obj>(`${path}.containers`, containers, (c, p) => validateContainer(errs, obj(c, p), p, names, volumes));
  checkHostPorts(errs, containers, `${path}.containers`);
  const inits = list(spec.initContainers, `${path}.initContainers`);
  errs.each<Obj>(`${path}.initContainers`, inits, (c, p) => {
    validateContainer(errs, obj(c, p), p, names, volumes);
    for (const f of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"]) {
      if (c?.[f] !== undefined && c?.[f] !== null) errs.invalid(`${p}.${f}`, c[f], "must not be set for init containers");
    }
  });
  checkHostPorts(errs, inits, `${path}.initContainers`);
}
