// Upstream's naming controller: a definition's names are accepted when no other definition of its group
// has accepted them already; its conditions say so in upstream's words.
import type { Obj } from "../registry/types.ts";

export interface Condition { type: string; status: "True" | "False"; reason: string; message: string; lastTransitionTime?: string }

export interface Naming {
  acceptedNames: Obj;
  namesAccepted: Condition;
}

const NAME_CHECKS: [field: string, reason: string][] = [
  ["plural", "PluralConflict"], ["singular", "SingularConflict"], ["kind", "KindConflict"], ["listKind", "ListKindConflict"],
];

/** The names crd may have, given the other definitions (each with its accepted names). */
export function acceptNames(crd: Obj, others: Obj[]): Naming {
  const group = crd.spec?.group;
  const requested: Obj = crd.spec?.names ?? {};
  const taken = others.filter((o) => o.metadata.name !== crd.metadata.name && o.spec?.group === group).map((o) => o.status?.acceptedNames ?? {});
  const inUse = (f: string, v: string) => taken.some((n) => n[f] === v);
  const resources = new Set(taken.flatMap((n) => [n.plural, n.singular, ...(n.shortNames ?? [])].filter(Boolean)));
  const kinds = new Set(taken.flatMap((n) => [n.kind, n.listKind].filter(Boolean)));
  for (const [f, reason] of NAME_CHECKS) {
    const v = requested[f];
    if (!v) continue;
    const conflict = f === "kind" || f === "listKind" ? kinds.has(v) || inUse(f, v) : resources.has(v);
    if (conflict) return refused(crd, reason, `"${v}" is already in use`);
  }
  for (const s of requested.shortNames ?? []) {
    if (resources.has(s)) return refused(crd, "ShortNamesConflict", `"${s}" is already in use`);
  }
  return {
    acceptedNames: requested,
    namesAccepted: { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" },
  };
}

/** Names in conflict: the ones accepted before stay. */
function refused(crd: Obj, reason: string, message: string): Naming {
  return { acceptedNames: crd.status?.acceptedNames ?? { plural: "", kind: "" }, namesAccepted: { type: "NamesAccepted", status: "False", reason, message } };
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
