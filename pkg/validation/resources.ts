// Resource names (standard, quota and container ones) and a container's resources: quantities, and requests within limits.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { obj } from "./decode.ts";
import { qualifiedName } from "./names.ts";
import { nonNegativeQuantity, quantityText } from "./quantity.ts";

/** The names a ResourceQuota may count (IsStandardQuotaResourceName). */
const QUOTA_NAMES = new Set([
  "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage", "requests.ephemeral-storage",
  "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers",
  "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers",
]);
const CONTAINER = new Set(["cpu", "memory", "ephemeral-storage"]);
const quotaHugePages = (n: string) => /^(requests\.)?hugepages-/.test(n);
export const isQuotaResource = (n: string) => QUOTA_NAMES.has(n) || quotaHugePages(n);
/** IsStandardResourceName: the quota names, storage and huge pages. */
export const isStandardResource = (n: string) => isQuotaResource(n) || n === "storage";

/** validateResourceName: a qualified name, and a standard one unless it has a domain; false when it is not. */
export function resourceName(e: Errs, field: string, name: string, standard: (n: string) => boolean, what = "resource type"): boolean {
  const bad = qualifiedName(name);
  e.invalidEach(field, name, bad);
  if (bad.length) return false;
  if (!name.includes("/") && !standard(name)) {
    e.invalid(field, name, `must be a standard ${what} or fully qualified`);
    return false;
  }
  return true;
}

const isHugePages = (n: string) => n.startsWith("hugepages-");
const isNative = (n: string) => !n.includes("/") || n.includes("kubernetes.io/");
/** Native resources other than huge pages may be requested below their limit. */
const overcommitAllowed = (n: string) => isNative(n) && !isHugePages(n);

/** validateContainerResourceName. */
function validateName(errs: Errs, name: string, path: string) {
  const bad = qualifiedName(name);
  if (bad.length) return errs.invalidEach(path, name, bad);
  if (!name.includes("/")) {
    if (CONTAINER.has(name) || isHugePages(name)) return;
    resourceName(errs, path, name, isStandardResource);
    errs.invalid(path, name, "must be a standard resource for containers");
  } else if (!isNative(name) && name.startsWith("requests.")) errs.invalid(path, name, "doesn't follow extended resource name standard");
}

/** One list of quantities (limits or requests): names and values; returns the parsed values. */
function quantities(errs: Errs, m: unknown, path: string): Map<string, { raw: unknown; value: number }> {
  const out = new Map<string, { raw: unknown; value: number }>();
  const given = obj(m, path);
  for (const name in given) {
    const raw = given[name];
    const p = `${path}[${name}]`;
    validateName(errs, name, p);
    const value = nonNegativeQuantity(errs, p, raw);
    if (value >= 0 && !isNative(name) && !Number.isInteger(value)) errs.invalid(p, quantityText(raw), "must be an integer");
    out.set(name, { raw, value });
  }
  return out;
}

export function validateResources(errs: Errs, res: Obj, path: string) {
  const limits = quantities(errs, res.limits, `${path}.limits`);
  const requests = quantities(errs, res.requests, `${path}.requests`);
  for (const [name, req] of requests) {
    const lim = limits.get(name);
    if (!lim) {
      if (!overcommitAllowed(name)) errs.required(`${path}.limits`, "Limit must be set for non overcommitable resources");
    } else if (!overcommitAllowed(name) && req.value !== lim.value) errs.invalid(`${path}.requests`, quantityText(req.raw), `must be equal to ${name} limit`);
    else if (req.value > lim.value) errs.invalid(`${path}.requests`, quantityText(req.raw), `must be less than or equal to ${name} limit`);
  }
}
