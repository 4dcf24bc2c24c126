// Where a pod may run: node selector terms (also a PersistentVolume's node affinity), pod
// (anti-)affinity terms and topology spread constraints, as upstream's core validation checks them.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { labelSelector } from "./labels.ts";
import { dns1123Label, dns1123Subdomain, qualifiedName } from "./names.ts";

/** The rule for `values` by operator of a node selector requirement; undefined for an unknown operator. */
const NODE_OPERATORS: Record<string, (n: number) => ["required" | "forbidden", string] | null> = {
  In: (n) => (n === 0 ? ["required", "must be specified when `operator` is 'In' or 'NotIn'"] : null),
  NotIn: (n) => (n === 0 ? ["required", "must be specified when `operator` is 'In' or 'NotIn'"] : null),
  Exists: (n) => (n > 0 ? ["forbidden", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"] : null),
  DoesNotExist: (n) => (n > 0 ? ["forbidden", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"] : null),
  Gt: (n) => (n !== 1 ? ["required", "must be specified single value when `operator` is 'Lt' or 'Gt'"] : null),
  Lt: (n) => (n !== 1 ? ["required", "must be specified single value when `operator` is 'Lt' or 'Gt'"] : null),
};

function nodeLabelRequirement(errs: Errs, r: Obj, p: string) {
  const operator = str(r.operator, `${p}.operator`) ?? "";
  const values = list(r.values, `${p}.values`);
  const rule = Object.hasOwn(NODE_OPERATORS, operator) ? NODE_OPERATORS[operator] : undefined;
  if (!rule) errs.invalid(`${p}.operator`, operator, "not a valid selector operator");
  else {
    const bad = rule(values.length);
    if (bad?.[0] === "required") errs.required(`${p}.values`, bad[1]);
    else if (bad) errs.forbidden(`${p}.values`, bad[1]);
  }
  const key = str(r.key, `${p}.key`) ?? "";
  errs.invalidEach(`${p}.key`, key, qualifiedName(key));
}

/** A node field requirement: only metadata.name, with In or NotIn and one node name. */
function nodeFieldRequirement(errs: Errs, r: Obj, p: string) {
  const operator = str(r.operator, `${p}.operator`) ?? "";
  const values = list<unknown>(r.values, `${p}.values`);
  if (operator !== "In" && operator !== "NotIn") errs.invalid(`${p}.operator`, operator, "not a valid selector operator");
  else if (values.length !== 1) errs.required(`${p}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
  const key = str(r.key, `${p}.key`) ?? "";
  if (key !== "metadata.name") return errs.invalid(`${p}.key`, key, "not a valid field selector key");
  values.forEach((v, i) => errs.invalidEach(`${p}.values[${i}]`, v, dns1123Subdomain(String(v))));
}

function nodeSelectorTerm(errs: Errs, term: unknown, path: string) {
  const t = obj(term, path);
  errs.each<Obj>(`${path}.matchExpressions`, list(t.matchExpressions, `${path}.matchExpressions`), (r, p) => nodeLabelRequirement(errs, obj(r, p), p));
  errs.each<Obj>(`${path}.matchFields`, list(t.matchFields, `${path}.matchFields`), (r, p) => nodeFieldRequirement(errs, obj(r, p), p));
}

/** ValidateNodeSelector: at least one term, each with valid requirements. */
export function validateNodeSelector(errs: Errs, v: unknown, path: string) {
  const terms = list(obj(v, path).nodeSelectorTerms, `${path}.nodeSelectorTerms`);
  if (!terms.length) return errs.required(`${path}.nodeSelectorTerms`, "must have at least one node selector term");
  errs.each(`${path}.nodeSelectorTerms`, terms, (t, p) => nodeSelectorTerm(errs, t, p));
}

function weight(errs: Errs, v: unknown, path: string) {
  const w = int(v, path) ?? 0;
  if (w <= 0 || w > 100) errs.invalid(path, w, "must be in the range 1-100");
}

function podAffinityTerm(errs: Errs, v: unknown, path: string) {
  const t = obj(v, path);
  labelSelector(errs, `${path}.labelSelector`, t.labelSelector);
  labelSelector(errs, `${path}.namespaceSelector`, t.namespaceSelector);
  // upstream names the list `namespace`, without an index
  for (const ns of list<unknown>(t.namespaces, `${path}.namespaces`)) errs.invalidEach(`${path}.namespace`, ns, dns1123Label(String(ns)));
  const key = str(t.topologyKey, `${path}.topologyKey`) ?? "";
  if (!key) errs.required(`${path}.topologyKey`, "can not be empty");
  errs.invalidEach(`${path}.topologyKey`, key, qualifiedName(key));
}

const REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution";
const PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution";

function podAffinity(errs: Errs, v: unknown, path: string) {
  const a = obj(v, path);
  errs.each(`${path}.${REQUIRED}`, list(a[REQUIRED], `${path}.${REQUIRED}`), (t, p) => podAffinityTerm(errs, t, p));
  errs.each<Obj>(`${path}.${PREFERRED}`, list(a[PREFERRED], `${path}.${PREFERRED}`), (t, p) => {
    weight(errs, t?.weight, `${p}.weight`);
    podAffinityTerm(errs, t?.podAffinityTerm, `${p}.podAffinityTerm`);
  });
}

export function validateAffinity(errs: Errs, v: unknown, path: string) {
  const a = obj(v, path);
  if (a.nodeAffinity !== undefined && a.nodeAffinity !== null) {
    const na = obj(a.nodeAffinity, `${path}.nodeAffinity`), p = `${path}.nodeAffinity`;
    if (na[REQUIRED] !== undefined && na[REQUIRED] !== null) validateNodeSelector(errs, na[REQUIRED], `${p}.${REQUIRED}`);
    errs.each<Obj>(`${p}.${PREFERRED}`, list(na[PREFERRED], `${p}.${PREFERRED}`), (t, tp) => {
      weight(errs, t?.weight, `${tp}.weight`);
      nodeSelectorTerm(errs, t?.preference, `${tp}.preference`);
    });
  }
  for (const f of ["podAffinity", "podAntiAffinity"]) podAffinity(errs, a[f], `${path}.${f}`);
}

const WHEN_UNSATISFIABLE = ["DoNotSchedule", "ScheduleAnyway"];

export function validateTopologySpread(errs: Errs, v: unknown, path: string) {
  const constraints = list<Obj>(v, path).map((c, i) => obj(c, `${path}[${i}]`));
  constraints.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const skew = int(c.maxSkew, `${p}.maxSkew`) ?? 0;
    if (skew <= 0) errs.invalid(`${p}.maxSkew`, skew, "must be greater than zero");
    const key = str(c.topologyKey, `${p}.topologyKey`) ?? "";
    if (!key) errs.required(`${p}.topologyKey`, "can not be empty");
    const when = str(c.whenUnsatisfiable, `${p}.whenUnsatisfiable`) ?? "";
    if (!WHEN_UNSATISFIABLE.includes(when)) errs.notSupported(`${p}.whenUnsatisfiable`, when, WHEN_UNSATISFIABLE);
    // the first of two constraints of one kind is the one reported
    if (constraints.slice(i + 1).some((o) => (o.topologyKey ?? "") === key && (o.whenUnsatisfiable ?? "") === when)) {
      errs.duplicate(`${p}.{topologyKey, whenUnsatisfiable}`, `{${key}, ${when}}`);
    }
  });
}
