// Upstream's naming controller: a definition's names are accepted when no other definition of its group
// has accepted them already; its conditions say so in upstream's words.
import type { Obj } from "../registry/types.ts";

export interface Condition { type: string; status: "True" | "False"; reason: string; message: string; lastTransitionTime?: string }

export interface Naming {
  acceptedNames: Obj;
  namesAccepted: Condition;
}

/** Each name is accepted on its own; the condition names the last one in conflict (upstream's order). */
const NAME_CHECKS: [field: string, reason: string, among: "resources" | "kinds"][] = [
  ["plural", "PluralConflict", "resources"], ["singular", "SingularConflict", "resources"], ["shortNames", "ShortNamesConflict", "resources"],
  ["kind", "KindConflict", "kinds"], ["listKind", "ListKindConflict", "kinds"],
];

/** The names crd may have, given the other definitions (each with its accepted names). */
export function acceptNames(crd: Obj, others: Obj[]): Naming {
  const group = crd.spec?.group;
  const requested: Obj = crd.spec?.names ?? {};
  const old: Obj = crd.status?.acceptedNames ?? {};
  const taken = others.filter((o) => o.metadata.name !== crd.metadata.name && o.spec?.group === group).map((o) => o.status?.acceptedNames ?? {});
  const sets = {
    resources: new Set<string>(taken.flatMap((n) => [n.plural, n.singular, ...(n.shortNames ?? [])].filter(Boolean))),
    kinds: new Set<string>(taken.flatMap((n) => [n.kind, n.listKind].filter(Boolean))),
  };
  const accepted: Obj = {};
  let namesAccepted: Condition = { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" };
  for (const [field, reason, among] of NAME_CHECKS) {
    const want = requested[field];
    const values: string[] = field === "shortNames" ? (want ?? []) : want ? [want] : [];
    const same = JSON.stringify(want) === JSON.stringify(old[field]);
    const clash = same ? undefined : values.find((v) => sets[among].has(v));
    if (clash !== undefined) {
      namesAccepted = { type: "NamesAccepted", status: "False", reason, message: `"${clash}" is already in use` };
      if (old[field] !== undefined) accepted[field] = old[field];
    } else if (want !== undefined) accepted[field] = want;
  }
  if (requested.categories !== undefined) accepted.categories = requested.categories;
  // plural and kind are always there, empty until accepted
  accepted.plural ??= "";
  accepted.kind ??= "";
  return { acceptedNames: accepted, namesAccepted };
}

/** Established once the names were accepted; it stays so while the names change later. */
export function established(crd: Obj, naming: Naming): Condition {
  const was = (crd.status?.conditions ?? []).find((c: Obj) => c.type === "Established");
  if (was?.status === "True") return was as Condition;
  return naming.namesAccepted.status === "True"
    ? { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" }
    : { type: "Established", status: "False", reason: "NotAccepted", message: "not all names are accepted" };
}

/** conditions with c set: lastTransitionTime moves only when the status does. */
export function setCondition(conditions: Obj[], c: Condition, now: string): Obj[] {
  const i = conditions.findIndex((x) => x.type === c.type);
  const old = conditions[i];
  const next = { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now };
  if (i < 0) return [...conditions, next];
  const out = [...conditions];
  out[i] = next;
  return out;
}
