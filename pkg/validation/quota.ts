// ResourceQuotas and LimitRanges: resource names and quantities, as upstream's core validation has them.
import type { Obj } from "../registry/types.ts";
import { goStrings, Printed } from "./field.ts";
import { isMap, run } from "./rules.ts";
import { isQuotaResource, isStandardResource, resourceName } from "./resources.ts";
import { nonNegativeQuantity, quantityText } from "./quantity.ts";

const INTEGER_NAMES = new Set(["pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"]);

export const resourceQuota = (o: Obj) => run((e) => {
  for (const [k, v] of Object.entries(isMap(o.spec?.hard) ? o.spec.hard : {})) {
    const path = `spec.hard[${k}]`;
    if (resourceName(e, path, k, isStandardResource) && !k.includes("/") && !isQuotaResource(k)) {
      e.invalid(path, k, "must be a standard resource for quota");
    }
    const n = nonNegativeQuantity(e, path, v);
    if (n !== null && n >= 0 && INTEGER_NAMES.has(k) && !Number.isInteger(n)) e.invalid(path, quantityText(v), "must be an integer");
  }
  const scopes = ["BestEffort", "NotBestEffort", "NotTerminating", "PriorityClass", "Terminating", "CrossNamespacePodAffinity"];
  const given = o.spec?.scopes;
  for (const s of Array.isArray(given) ? given : []) {
    if (!scopes.includes(s)) e.invalid("spec.scopes", new Printed(goStrings(given, "core.ResourceQuotaScope")), "unsupported scope");
  }
});

const LIMIT_TYPES = ["Pod", "Container", "PersistentVolumeClaim"];
const MAPS = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"] as const;

/** Pairs whose order LimitRange demands: [smaller, larger, path of the cause, its value, message]. */
const ORDER: [string, string, string, string, (a: string, b: string) => string][] = [
  ["min", "max", "min", "min", (a, b) => `min value ${a} is greater than max value ${b}`],
  ["min", "defaultRequest", "defaultRequest", "defaultRequest", (a, b) => `min value ${a} is greater than default request value ${b}`],
  ["defaultRequest", "max", "defaultRequest", "defaultRequest", (a, b) => `default request value ${a} is greater than max value ${b}`],
  ["defaultRequest", "default", "defaultRequest", "defaultRequest", (a, b) => `default request value ${a} is greater than default limit value ${b}`],
  ["min", "default", "default", "min", (a, b) => `min value ${a} is greater than default value ${b}`],
  ["default", "max", "default", "max", (a, b) => `default value ${a} is greater than max value ${b}`],
];

export const limitRange = (o: Obj) => run((e) => {
  const seen = new Set<string>();
  e.each<Obj>("spec.limits", o.spec?.limits, (l, path) => {
    const type = String(l?.type ?? "");
    resourceName(e, `${path}.type`, type, (n) => LIMIT_TYPES.includes(n), "limit type");
    if (seen.has(type)) e.duplicate(`${path}.type`, type);
    seen.add(type);
    const values: Record<string, Record<string, number | null>> = {};
    for (const m of MAPS) {
      values[m] = {};
      const entries = Object.entries(isMap(l?.[m]) ? l[m] : {});
      if (type === "Pod" && (m === "default" || m === "defaultRequest")) {
        if (entries.length) e.forbidden(`${path}.${m}`, "may not be specified when `type` is 'Pod'");
        continue;
      }
      for (const [k, v] of entries) {
        resourceName(e, `${path}.${m}[${k}]`, k, isStandardResource);
        values[m][k] = nonNegativeQuantity(e, `${path}.${m}[${k}]`, v);
      }
    }
    if (type === "PersistentVolumeClaim" && !("storage" in values.min) && !("storage" in values.max)) {
      e.required(`${path}.limits`, "either minimum or maximum storage value is required, but neither was provided");
    }
    for (const [lo, hi, at, shown, msg] of ORDER) {
      for (const [k, a] of Object.entries(values[lo])) {
        const b = values[hi][k];
        if (a === null || b === null || b === undefined || a <= b) continue;
        e.invalid(`${path}.${at}[${k}]`, quantityText(l[shown][k]), msg(quantityText(l[lo][k]), quantityText(l[hi][k])));
      }
    }
    for (const [k, v] of Object.entries(values.maxLimitRequestRatio)) {
      if (v !== null && v < 1) e.invalid(`${path}.maxLimitRequestRatio[${k}]`, quantityText(l.maxLimitRequestRatio[k]), "ratio must be greater than or equal to 1");
    }
  });
});
