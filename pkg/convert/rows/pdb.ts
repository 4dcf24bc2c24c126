// policy/v1beta1 PodDisruptionBudget, to and from policy/v1. An empty selector ({}) selected no pods in
// v1beta1 and selects every pod in v1, so, as upstream does, each version's meaning is kept by a selector
// on a label no pod carries: v1beta1's {} becomes "the label exists" (matches none), and v1's {} becomes
// "the label does not exist" (matches all) at v1beta1. The label never combines with other requirements.
import type { Obj } from "../../registry/types.ts";
import type { VersionRow } from "../table.ts";
import { type Convert, row } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match";
const marker = (operator: "Exists" | "DoesNotExist") => ({ matchExpressions: [{ key: LABEL, operator }] });
const isEmpty = (s: Obj) => Object.keys(s).every((k) => s[k] == null || (Array.isArray(s[k]) && s[k].length === 0) || (isMap(s[k]) && Object.keys(s[k]).length === 0));
const isMarker = (s: Obj, operator: string) => Object.keys(s).length === 1 && Array.isArray(s.matchExpressions) && s.matchExpressions.length === 1 &&
  s.matchExpressions[0]?.key === LABEL && s.matchExpressions[0]?.operator === operator && !s.matchExpressions[0]?.values?.length;

/** A user's selector without the marker label. */
function strip(s: Obj): Obj {
  if (!Array.isArray(s.matchExpressions)) return s;
  const kept = s.matchExpressions.filter((e: Obj) => e?.key !== LABEL);
  const { matchExpressions: _m, ...rest } = s;
  return kept.length ? { ...rest, matchExpressions: kept } : rest;
}

/** Rewrites spec.selector: `empty` is the selector whose meaning differs, `back` the marker read back. */
const selector = (emptyTo: Obj, backFrom: string, onEmpty?: (notes: Parameters<Convert>[1]) => void): Convert => (obj, notes) => {
  const s = obj.spec?.selector;
  if (!isMap(s)) return obj;
  if (isEmpty(s)) { obj.spec.selector = structuredClone(emptyTo); onEmpty?.(notes); }
  else if (isMarker(s, backFrom)) obj.spec.selector = {};
  else obj.spec.selector = strip(s);
  return obj;
};

export const PDB_ROWS: VersionRow[] = [
  row({
    group: "policy", version: "v1beta1", kind: "PodDisruptionBudget", hub: { group: "policy", version: "v1" }, served: true,
    deprecated: { in: "1.21", removedIn: "1.25", replacement: "policy/v1 PodDisruptionBudget" },
    toHub: selector(marker("Exists"), "DoesNotExist", (notes) => notes.warn("spec.selector",
      `an empty selector selects no pods in policy/v1beta1 and every pod in policy/v1; written as a selector on the label ${LABEL}, which no pod carries, to keep selecting none`)),
    fromHub: selector(marker("DoesNotExist"), "Exists"),
  }),
];
