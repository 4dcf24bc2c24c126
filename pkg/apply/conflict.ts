// Apply conflicts as upstream reports them: one per field and manager, the manager printed
// as `"name"` for an applier and `"name" using <apiVersion>` for an updater, and the 409's
// message "Apply failed with N conflict(s): ...".
import { compareStrings } from "./value.ts";
import { parseManagerKey } from "./managers.ts";
import { pathString } from "./pathelement.ts";
import type { Fields } from "./updater.ts";

export interface Conflict {
  /** The conflicting manager's name. */
  manager: string;
  operation: "Apply" | "Update";
  /** The apiVersion of an Update manager's entry. */
  apiVersion?: string;
  /** The field as upstream prints it, e.g. `.spec.template.spec.containers[name="nginx"].image`. */
  field: string;
  /** The cause's message, e.g. `conflict with "kubectl" using apps/v1`. */
  message: string;
  /** Orders managers as upstream does (by identifier). */
  key: string;
}

function printManager(key: string): string {
  const id = parseManagerKey(key);
  const name = JSON.stringify(id.manager);
  return id.operation === "Update" ? `${name} using ${id.apiVersion ?? ""}` : name;
}

export function conflictsOf(fields: Fields): Conflict[] {
  const out: Conflict[] = [];
  for (const key of [...fields.keys()].sort(compareStrings)) {
    const id = parseManagerKey(key);
    const message = `conflict with ${printManager(key)}`;
    for (const path of fields.get(key)!.set.paths()) {
      out.push({ manager: id.manager, operation: id.operation, ...(id.operation === "Update" ? { apiVersion: id.apiVersion } : {}), field: pathString(path), message, key });
    }
  }
  return out;
}

type Printable = Pick<Conflict, "manager" | "field"> & Partial<Pick<Conflict, "operation" | "apiVersion" | "key">>;

const printed = (c: Printable): string =>
  c.key ? printManager(c.key) : c.operation === "Update" ? `${JSON.stringify(c.manager)} using ${c.apiVersion ?? ""}` : JSON.stringify(c.manager);

/** The Status message of a 409 for these conflicts, worded as upstream. */
export function conflictMessage(conflicts: Printable[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${printed(conflicts[0])}: ${conflicts[0].field}`;
  const byManager = new Map<string, Printable[]>();
  for (const c of conflicts) {
    const id = c.key ?? printed(c);
    byManager.set(id, [...(byManager.get(id) ?? []), c]);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort(compareStrings)) {
    const group = byManager.get(id)!;
    lines.push(`conflicts with ${printed(group[0])}:`);
    for (const c of group) lines.push(`- ${c.field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}

/** The Status details' causes: one FieldManagerConflict per field. */
export function conflictCauses(conflicts: Printable[]): { type: string; message: string; field: string }[] {
  return conflicts.map((c) => ({ type: "FieldManagerConflict", message: `conflict with ${printed(c)}`, field: c.field }));
}
