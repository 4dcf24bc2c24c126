// Labels, annotation keys and label selectors (metav1.LabelSelector and the plain map selectors of core kinds).
import type { Obj } from "../registry/types.ts";
import { type Errs, goStringMap, goStrings } from "./field.ts";
import { list } from "./decode.ts";
import { qualifiedName } from "./names.ts";
import { isMap } from "./rules.ts";

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NONE: string[] = [];

/** IsValidLabelValue; a value that is not a string at all is refused as one. */
export function labelValue(v: unknown): string[] {
  if (typeof v !== "string") return ["must be a string"];
  if (v.length <= 63 && LABEL_VALUE.test(v)) return NONE;
  const errs: string[] = [];
  if (v.length > 63) errs.push("must be no more than 63 characters");
  if (!LABEL_VALUE.test(v)) errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  return errs;
}

/** An annotation key is a qualified name once lower-cased (its prefix may have capitals). */
export const annotationKey = (k: string) => qualifiedName(k.toLowerCase());

/** ValidateLabels: keys and values of a label map, each bad one reported at the map's path as upstream does. */
export function labels(e: Errs, field: string, m: unknown) {
  if (!isMap(m)) return;
  for (const k in m) {
    e.invalidEach(field, k, qualifiedName(k));
    e.invalidEach(field, m[k], labelValue(m[k]));
  }
}

/** ValidateAnnotations' key rule, each bad key reported at the map's path. */
export function annotationKeys(e: Errs, field: string, m: unknown) {
  if (isMap(m)) for (const k in m) e.invalidEach(field, k, annotationKey(k));
}

/** ValidateLabelSelector. */
export function labelSelector(e: Errs, field: string, sel: unknown) {
  if (!isMap(sel)) return;
  labels(e, `${field}.matchLabels`, sel.matchLabels);
  e.each<Obj>(`${field}.matchExpressions`, list(sel.matchExpressions, `${field}.matchExpressions`), (r, p) => {
    const values = list(r?.values, `${p}.values`);
    if (r?.operator === "In" || r?.operator === "NotIn") {
      if (values.length === 0) e.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (r?.operator === "Exists" || r?.operator === "DoesNotExist") {
      if (values.length > 0) e.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else e.invalid(`${p}.operator`, r?.operator ?? "", "not a valid selector operator");
    e.invalidEach(`${p}.key`, r?.key ?? "", qualifiedName(String(r?.key ?? "")));
  });
}

/** True when a selector has no requirement (matchLabels and matchExpressions both empty). */
export const isEmptySelector = (sel: Obj) => Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions?.length ?? 0) === 0;

/**
 * Whether a LabelSelector selects the labels; undefined when the selector cannot be made into one (an
 * unknown operator, a bad value), which upstream reports as `invalid label selector`. A missing selector
 * selects nothing.
 */
export function selects(sel: Obj | undefined, labels: Record<string, string> | undefined): boolean | undefined {
  if (!sel) return false;
  const have = labels ?? {};
  const want: Obj = sel.matchLabels ?? {};
  for (const k in want) {
    const v = want[k];
    if (qualifiedName(k).length || labelValue(v).length) return undefined;
    if (have[k] !== v) return false;
  }
  let ok = true;
  for (const e of sel.matchExpressions ?? []) {
    const key = String(e?.key ?? ""), values: unknown[] = e?.values ?? [];
    if (qualifiedName(key).length || values.some((v) => labelValue(v).length)) return undefined;
    const has = key in have;
    switch (e?.operator) {
      case "In": if (!values.length) return undefined; ok &&= has && values.includes(have[key]); break;
      case "NotIn": if (!values.length) return undefined; ok &&= !has || !values.includes(have[key]); break;
      case "Exists": if (values.length) return undefined; ok &&= has; break;
      case "DoesNotExist": if (values.length) return undefined; ok &&= !has; break;
      default: return undefined;
    }
  }
  return ok;
}

/** A LabelSelector as Go's %#v prints it (`v1.LabelSelector{MatchLabels:map[string]string{...}, ...}`). */
export function goSelector(sel: Obj | undefined): string {
  if (!sel) return "null";
  const exprs = sel.matchExpressions as Obj[] | undefined;
  const reqs = exprs
    ? `[]v1.LabelSelectorRequirement{${exprs.map((e) => `v1.LabelSelectorRequirement{Key:${JSON.stringify(e?.key ?? "")}, Operator:${JSON.stringify(e?.operator ?? "")}, Values:${goStrings(e?.values)}}`).join(", ")}}`
    : "[]v1.LabelSelectorRequirement(nil)";
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${reqs}}`;
}
