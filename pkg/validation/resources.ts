// A container's resources: names, quantities, and requests within limits.
import type { Obj } from "../registry/types.ts";
import { keyErrors } from "../registry/validation.ts";
import type { Errs } from "./field.ts";
import { obj, quantity } from "./decode.ts";

const CONTAINER = new Set(["cpu", "memory", "ephemeral-storage"]);
/** Resource names upstream calls standard though containers may not ask for them (quota's names). */
const QUOTA = new Set(["storage", "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims"]);
const isHugePages = (n: string) => n.startsWith("hugepages-");
const isNative = (n: string) => !n.includes("/") || n.includes("kubernetes.io/");
/** Native resources other than huge pages may be requested below their limit. */
const overcommitAllowed = (n: string) => isNative(n) && !isHugePages(n);

function validateName(errs: Errs, name: string, path: string) {
  const bad = keyErrors(name);
  for (const m of bad) errs.invalid(path, name, m);
  if (bad.length) return;
  if (!name.includes("/")) {
    if (CONTAINER.has(name) || isHugePages(name)) return;
    if (!QUOTA.has(name)) errs.invalid(path, name, "must be a standard resource type or fully qualified");
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
    const value = quantity(raw);
    if (value < 0) errs.invalid(p, String(raw), "must be greater than or equal to 0");
    else if (!isNative(name) && !Number.isInteger(value)) errs.invalid(p, String(raw), "must be an integer");
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
    } else if (!overcommitAllowed(name) && req.value !== lim.value) errs.invalid(`${path}.requests`, String(req.raw), `must be equal to ${name} limit`);
    else if (req.value > lim.value) errs.invalid(`${path}.requests`, String(req.raw), `must be less than or equal to ${name} limit`);
  }
}
