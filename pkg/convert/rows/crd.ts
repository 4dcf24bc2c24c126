// apiextensions.k8s.io/v1beta1 CustomResourceDefinition, to and from v1. v1beta1 held one schema, one set
// of subresources and one set of printer columns for all versions (top-level `validation`, `subresources`,
// `additionalPrinterColumns`, with `JSONPath`) and a single `version`; v1 keeps them per version under
// spec.versions[*] (`schema`, `jsonPath`). Conversion settings for webhooks moved under
// spec.conversion.webhook, and preserveUnknownFields, true when unset in v1beta1, is false when unset in v1.
// Back to v1beta1, per-version settings that every version shares are lifted to the top level again.
import type { Obj } from "../../registry/types.ts";
import type { Notes, VersionRow } from "../table.ts";
import { type Convert, renameKey, row } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const HUB = { group: "apiextensions.k8s.io", version: "v1" };

/** Top-level v1beta1 key → per-version v1 key. */
const PER_VERSION: [string, string][] = [["validation", "schema"], ["subresources", "subresources"], ["additionalPrinterColumns", "additionalPrinterColumns"]];

const columnsToV1 = (cols: unknown) => Array.isArray(cols) ? cols.map((c) => isMap(c) ? renameKey(c, "JSONPath", "jsonPath") : c) : cols;
const columnsToV1beta1 = (cols: unknown) => Array.isArray(cols) ? cols.map((c) => isMap(c) ? renameKey(c, "jsonPath", "JSONPath") : c) : cols;
const perVersionValue = (key: string, v: unknown) => key === "additionalPrinterColumns" ? columnsToV1(v) : structuredClone(v);

/** What v1 requires that v1beta1 did not: a scope and a schema for every version. */
function checkV1(spec: Obj, notes: Notes) {
  if (!spec.scope) notes.error("spec.scope", "Required value");
  if (spec.preserveUnknownFields === true) {
    notes.error("spec.preserveUnknownFields", "Invalid value: true: cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead");
  }
  (Array.isArray(spec.versions) ? spec.versions : []).forEach((v: unknown, i: number) => {
    if (isMap(v) && !isMap(v.schema?.openAPIV3Schema)) notes.error(`spec.versions[${i}].schema.openAPIV3Schema`, "Required value: schemas are required");
  });
}

const toHub: Convert = (obj, notes) => {
  const spec = obj.spec;
  if (!isMap(spec)) return obj;
  let versions: Obj[] = Array.isArray(spec.versions) ? spec.versions.map((v: Obj) => isMap(v) ? { ...v } : v) : [];
  if (versions.length === 0 && typeof spec.version === "string" && spec.version) versions = [{ name: spec.version, served: true, storage: true }];
  for (const v of versions) {
    if (!isMap(v)) continue;
    for (const [top, per] of PER_VERSION) {
      if (spec[top] !== undefined && v[per] === undefined) v[per] = perVersionValue(top, spec[top]);
      else if (per === "additionalPrinterColumns" && v[per] !== undefined) v[per] = columnsToV1(v[per]);
    }
  }
  const out: Obj = {};
  for (const [k, v] of Object.entries(spec)) {
    if (k === "version" || PER_VERSION.some(([top]) => top === k)) continue;
    if (k === "conversion" && isMap(v)) out.conversion = conversionToV1(v);
    else out[k] = v;
  }
  if (versions.length) out.versions = versions;
  // v1beta1's unset preserveUnknownFields meant true; v1's means false, and v1 leaves false out.
  out.preserveUnknownFields ??= true;
  if (out.preserveUnknownFields === false) delete out.preserveUnknownFields;
  obj.spec = out;
  if (notes.strict) checkV1(out, notes);
  return obj;
};

function conversionToV1(c: Obj): Obj {
  const { strategy, webhookClientConfig, conversionReviewVersions, ...rest } = c;
  const out: Obj = { strategy: strategy ?? "None", ...rest };
  if (webhookClientConfig !== undefined || conversionReviewVersions !== undefined || strategy === "Webhook") {
    out.webhook = {
      ...(webhookClientConfig !== undefined ? { clientConfig: webhookClientConfig } : {}),
      // v1beta1 defaulted the versions a webhook speaks to [v1beta1].
      conversionReviewVersions: conversionReviewVersions ?? ["v1beta1"],
    };
  }
  return out;
}

function conversionToV1beta1(c: Obj): Obj {
  const { webhook, ...rest } = c;
  if (!isMap(webhook)) return c;
  return {
    ...rest,
    ...(webhook.clientConfig !== undefined ? { webhookClientConfig: webhook.clientConfig } : {}),
    ...(webhook.conversionReviewVersions !== undefined ? { conversionReviewVersions: webhook.conversionReviewVersions } : {}),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const fromHub: Convert = (obj) => {
  const spec = obj.spec;
  if (!isMap(spec)) return obj;
  const versions: Obj[] = Array.isArray(spec.versions) ? spec.versions.map((v: Obj) => isMap(v) ? { ...v } : v) : [];
  const out: Obj = {};
  for (const [k, v] of Object.entries(spec)) {
    if (k === "conversion" && isMap(v)) out.conversion = conversionToV1beta1(v);
    else if (k !== "versions") out[k] = v;
  }
  if (versions.length && isMap(versions[0])) out.version = versions[0].name;
  // v1beta1 always says it: v1's unset (false) would otherwise read as v1beta1's default, true
  out.preserveUnknownFields = spec.preserveUnknownFields === true;
  // A setting every version shares goes back to the top level, as v1beta1 writes it.
  for (const [top, per] of PER_VERSION) {
    const first = versions[0]?.[per];
    if (first === undefined || !versions.every((v) => isMap(v) && same(v[per], first))) continue;
    out[top] = per === "additionalPrinterColumns" ? columnsToV1beta1(first) : first;
    for (const v of versions) delete v[per];
  }
  for (const v of versions) if (isMap(v) && v.additionalPrinterColumns !== undefined) v.additionalPrinterColumns = columnsToV1beta1(v.additionalPrinterColumns);
  if (versions.length) out.versions = versions;
  obj.spec = out;
  return obj;
};

export const CRD_ROWS: VersionRow[] = [
  row({
    group: "apiextensions.k8s.io", version: "v1beta1", kind: "CustomResourceDefinition", hub: HUB, served: true,
    deprecated: { in: "1.16", removedIn: "1.22", replacement: "apiextensions.k8s.io/v1 CustomResourceDefinition" }, toHub, fromHub,
  }),
];
