// Labels and label selectors (metav1.LabelSelector and the plain map selectors of core kinds).
import type { Obj } from "../registry/types.ts";
import { keyErrors, labelValueErrors } from "../registry/validation.ts";
import type { Errs } from "./field.ts";
import { list, obj } from "./decode.ts";

/** Keys and values of a label map, each bad one reported at the map's path as upstream does. */
export function validateLabels(errs: Errs, labels: unknown, path: string) {
  const m = obj(labels, path);
  for (const k in m) {
    const v = m[k];
    for (const m of keyErrors(k)) errs.invalid(path, k, m);
    for (const m of labelValueErrors(v)) errs.invalid(path, v, m);
  }
}

export function validateLabelSelector(errs: Errs, sel: Obj | undefined, path: string) {
  if (!sel) return;
  validateLabels(errs, sel.matchLabels, `${path}.matchLabels`);
  errs.each<Obj>(`${path}.matchExpressions`, list(sel.matchExpressions, `${path}.matchExpressions`), (e, p) => {
    const values = list(e?.values, `${p}.values`);
    if (e?.operator === "In" || e?.operator === "NotIn") {
      if (values.length === 0) errs.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (e?.operator === "Exists" || e?.operator === "DoesNotExist") {
      if (values.length > 0) errs.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else errs.invalid(`${p}.operator`, e?.operator ?? "", "not a valid selector operator");
    for (const m of keyErrors(String(e?.key ?? ""))) errs.invalid(`${p}.key`, e?.key ?? "", m);
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
    if (keyErrors(k).length || labelValueErrors(v).length) return undefined;
    if (have[k] !== v) return false;
  }
  let ok = true;
  for (const e of sel.matchExpressions ?? []) {
    const key = String(e?.key ?? ""), values: unknown[] = e?.values ?? [];
    if (keyErrors(key).length || values.some((v) => labelValueErrors(v).length)) return undefined;
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

/** A label map as Go's %#v prints it in upstream's messages: `map[string]string{"app":"web"}`. */
export function goStringMap(m: Record<string, string> | undefined): string {
  if (!m) return "map[string]string(nil)";
  return `map[string]string{${Object.keys(m).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`).join(", ")}}`;
}

/** A LabelSelector as Go's %#v prints it (`v1.LabelSelector{MatchLabels:map[string]string{...}, ...}`). */
export function goSelector(sel: Obj | undefined): string {
  if (!sel) return "null";
  const exprs = sel.matchExpressions as Obj[] | undefined;
  const values = (v: unknown) => (Array.isArray(v) ? `[]string{${v.map((s) => JSON.stringify(s)).join(", ")}}` : "[]string(nil)");
  const list = exprs
    ? `[]v1.LabelSelectorRequirement{${exprs.map((e) => `v1.LabelSelectorRequirement{Key:${JSON.stringify(e?.key ?? "")}, Operator:${JSON.stringify(e?.operator ?? "")}, Values:${values(e?.values)}}`).join(", ")}}`
    : "[]v1.LabelSelectorRequirement(nil)";
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${list}}`;
}
