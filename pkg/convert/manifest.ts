// Converting one manifest object for `kite convert`: which rows lead from its version to the one asked for
// (through the kind's hub), and what the conversion had to say. Offline: only the table is read.
import type { Obj } from "../registry/types.ts";
import { parseApiVersion, rowOf, rowsForHub } from "./index.ts";
import { ROWS } from "./rows/index.ts";
import type { GroupVersion, Notes, VersionRow } from "./table.ts";

export interface Note { field: string; message: string }

export interface Converted {
  obj: Obj;
  warnings: Note[];
  errors: Note[];
  /** False when no row leads from the object's version to the target (the object is returned unchanged). */
  converted: boolean;
}

/** Every group the table knows, to expand the short form (`networking` → networking.k8s.io). */
const GROUPS = new Set(ROWS.flatMap((r) => [r.group, r.hub.group]));

/** `--output-version` as typed (GROUP/VERSION, VERSION, or the short group form), or an Error saying why not. */
export function parseOutputVersion(s: string): GroupVersion | Error {
  const parts = s.split("/");
  if (parts.length > 2 || parts.some((p) => p === "")) return new Error(`unexpected GroupVersion string: ${s}`);
  if (parts.length === 1) return { group: "", version: s };
  const [group, version] = parts;
  if (GROUPS.has(group)) return { group, version };
  const long = [...GROUPS].filter((g) => g.endsWith(".k8s.io") && g.split(".")[0] === group);
  return { group: long.length === 1 ? long[0] : group, version };
}

const same = (a: GroupVersion, b: GroupVersion) => a.group === b.group && a.version === b.version;

/** The rows from `from` to `to` for a kind: [row to the hub?, row from the hub?]; undefined when none lead there. */
function route(from: GroupVersion, kind: string, to: GroupVersion | undefined): [VersionRow | undefined, VersionRow | undefined] | undefined {
  const fromRow = rowOf(from.group, from.version, kind);
  const hub = fromRow ? { ...fromRow.hub, kind: fromRow.hub.kind ?? kind } : { ...from, kind };
  const hubRows = rowsForHub(hub.group, hub.version, hub.kind);
  if (!fromRow && hubRows.length === 0) return to === undefined || same(from, to) ? [undefined, undefined] : undefined;
  if (to === undefined || same(hub, to)) return [fromRow, undefined];
  const toRow = hubRows.find((r) => same(r, to));
  return toRow ? [fromRow, toRow] : undefined;
}

/**
 * `obj` at `to` (its kind's hub when `to` is undefined). Warnings and errors name the object's fields; the
 * conversion is strict: what the target version would refuse on create is an error.
 */
export function convertObject(obj: Obj, to: GroupVersion | undefined): Converted {
  const warnings: Note[] = [], errors: Note[] = [];
  const notes: Notes = {
    warn: (field, message) => void warnings.push({ field, message }),
    error: (field, message) => void errors.push({ field, message }),
    strict: true,
  };
  const from = parseApiVersion(String(obj.apiVersion));
  if (to && same(from, to)) return { obj, warnings, errors, converted: true };
  const path = route(from, obj.kind, to);
  if (!path) return { obj, warnings, errors, converted: false };
  const [toHubRow, fromHubRow] = path;
  let out = toHubRow ? toHubRow.toHub(obj, notes) : obj;
  if (fromHubRow) out = fromHubRow.fromHub(out, notes);
  return { obj: out, warnings, errors, converted: true };
}
