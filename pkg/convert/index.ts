// Looks rows up and converts between any two versions of a kind, through the hub.
import type { Obj } from "../registry/types.ts";
import type { GroupVersion, Notes, VersionRow } from "./table.ts";
import { ROWS } from "./rows/index.ts";

export type { GroupVersion, Notes, VersionRow } from "./table.ts";

const key = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;
const byVersion = new Map<string, VersionRow>(ROWS.map((r) => [key(r.group, r.version, r.kind), r]));

/** The row of a kind at a version, or undefined when that version is the hub (or unknown). */
export function rowOf(group: string, version: string, kind: string): VersionRow | undefined {
  return byVersion.get(key(group, version, kind));
}

/** Every row whose hub is the given kind at its hub version. */
export function rowsForHub(group: string, version: string, kind: string): VersionRow[] {
  return ROWS.filter((r) => r.hub.group === group && r.hub.version === version && (r.hub.kind ?? r.kind) === kind);
}

export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * Converts `obj` (its apiVersion and kind say what it is) to `to`; throws when no row joins them.
 * Objects already at `to` are returned as they are.
 */
export function convert(obj: Obj, to: GroupVersion, notes: Notes): Obj {
  const from = parseApiVersion(String(obj.apiVersion ?? ""));
  if (from.group === to.group && from.version === to.version) return obj;
  const fromRow = rowOf(from.group, from.version, obj.kind);
  const hub = fromRow ? fromRow.toHub(obj, notes) : obj;
  const hubGv = parseApiVersion(String(hub.apiVersion ?? ""));
  if (hubGv.group === to.group && hubGv.version === to.version) return hub;
  const toRow = ROWS.find((r) => r.group === to.group && r.version === to.version &&
    r.hub.group === hubGv.group && r.hub.version === hubGv.version && (r.hub.kind ?? r.kind) === hub.kind);
  if (!toRow) throw new Error(`no conversion of ${obj.apiVersion} ${obj.kind} to ${to.group ? `${to.group}/` : ""}${to.version}`);
  return toRow.fromHub(hub, notes);
}
