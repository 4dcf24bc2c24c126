// The building blocks of a printer: a column is a name, a type and a cell function.
// Per-kind printers (core.ts, apps.ts, ...) are short lists of these.
import type { Obj } from "../registry/types.ts";
import { rfc3339, since } from "./duration.ts";

export type Cell = string | number | boolean | null;
export type ColumnType = "string" | "integer" | "number" | "boolean" | "date";

/** What a cell may depend on besides the object: the clock, and values shared by a row's cells. */
export interface Ctx { now: number; memo: Map<unknown, WeakMap<Obj, unknown>> }

export const newCtx = (now: number): Ctx => ({ now, memo: new Map() });

export interface Column {
  name: string;
  type: ColumnType;
  /** "name" for the object-name column, otherwise empty. */
  format?: string;
  /** 1 marks the `-o wide` columns; the server always sends them and kubectl hides them. */
  priority?: number;
  description: string;
  cell(obj: Obj, ctx: Ctx): Cell;
}

export interface Printer {
  columns: Column[];
  /** Row conditions (upstream marks finished pods as Completed). */
  conditions?(obj: Obj): Obj[] | undefined;
  /** Reshapes an object before its cells are read (events.k8s.io Events seen as core Events). */
  normalize?(obj: Obj): Obj;
}

/** Printers keyed by group kind: `Pod`, `Deployment.apps`. */
export type Printers = Record<string, Printer>;
export const groupKind = (group: string, kind: string) => (group ? `${kind}.${group}` : kind);

type CellFn = (obj: Obj, ctx: Ctx) => Cell;
export const str = (name: string, description: string, cell: CellFn): Column => ({ name, type: "string", description, cell });
export const int = (name: string, description: string, cell: CellFn): Column => ({ name, type: "integer", description, cell });
export const bool = (name: string, description: string, cell: CellFn): Column => ({ name, type: "boolean", description, cell });
/** The same column, shown by kubectl only with `-o wide`. */
export const wide = (c: Column): Column => ({ ...c, priority: 1 });

export const nameColumn: Column = {
  name: "Name", type: "string", format: "name", description: "The object's name, unique within its namespace and kind.",
  cell: (o) => o.metadata?.name ?? "",
};
export const ageColumn = str("Age", "Time since the object was created (metadata.creationTimestamp).", (o, { now }) => since(o.metadata?.creationTimestamp, now));
export const createdAtColumn: Column = {
  name: "Created At", type: "date", description: "When the object was created (metadata.creationTimestamp).",
  cell: (o) => rfc3339(o.metadata?.creationTimestamp),
};

/** The table for types without their own printer (spec §2.5). */
export const DEFAULT_PRINTER: Printer = { columns: [nameColumn, createdAtColumn] };

// ---- formatting helpers shared by the printers, after upstream's ----

/** `a=1,b=2` with sorted keys; `<none>` when empty (labels.FormatLabels). */
export function formatLabels(m: Record<string, string> | undefined | null): string {
  const keys = Object.keys(m ?? {}).sort();
  return keys.length ? keys.map((k) => `${k}=${m![k]}`).join(",") : "<none>";
}

/** A label selector as a selector string, requirements sorted by key; "" for an empty one, undefined when invalid. */
export function selectorString(sel: Obj | undefined | null): string | undefined {
  if (!sel) return "";
  const reqs: [string, string][] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push([k, `${k}=${v}`]);
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].map(String).sort();
    switch (e.operator) {
      case "In": reqs.push([e.key, `${e.key} in (${values.join(",")})`]); break;
      case "NotIn": reqs.push([e.key, `${e.key} notin (${values.join(",")})`]); break;
      case "Exists": reqs.push([e.key, e.key]); break;
      case "DoesNotExist": reqs.push([e.key, `!${e.key}`]); break;
      default: return undefined;
    }
  }
  return reqs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((r) => r[1]).join(",");
}

/** A label selector for display: `<none>` when empty, `<error>` when invalid (metav1.FormatLabelSelector). */
export function formatLabelSelector(sel: Obj | undefined | null): string {
  if (!sel) return "<none>";
  const s = selectorString(sel);
  if (s === undefined) return "<error>";
  return s === "" ? "<none>" : s;
}

/** Container names and images, comma separated. */
export function containerCells(podSpec: Obj | undefined): { names: string; images: string } {
  const cs: Obj[] = podSpec?.containers ?? [];
  return { names: cs.map((c) => c.name ?? "").join(","), images: cs.map((c) => c.image ?? "").join(",") };
}

/** Up to `max` entries, then ` + N more...`; `<unset>` when there are none. */
export function listWithMore(all: string[], max = 3, empty = "<unset>"): string {
  const shown = all.slice(0, max).join(",");
  if (all.length > max) return `${shown} + ${all.length - max} more...`;
  return shown === "" ? empty : shown;
}

/** An int-or-string value as Go's IntOrString.String(). */
export const intOrString = (v: unknown): string => (v === undefined || v === null ? "" : String(v));

/** A resource quantity as written (upstream prints its canonical form). */
export const quantity = (v: unknown): string => (v === undefined || v === null || v === "" ? "0" : String(v));

/** "True"/"False", or "<unset>" for a missing optional bool (upstream's printBoolPtr). */
export const boolPtr = (v: unknown): string => (v === undefined || v === null ? "<unset>" : v ? "True" : "False");

/** Host and port joined as Go's net.JoinHostPort (IPv6 in brackets). */
export { joinHostPort } from "../util/hostport.ts";

/** Computes a derived value once per object and table, for columns that share one computation (pod status). */
export function memo<T>(fn: (o: Obj, ctx: Ctx) => T): (o: Obj, ctx: Ctx) => T {
  const memoized = (o: Obj, ctx: Ctx): T => {
    let cache = ctx.memo.get(memoized);
    if (!cache) ctx.memo.set(memoized, (cache = new WeakMap()));
    if (cache.has(o)) return cache.get(o) as T;
    const v = fn(o, ctx);
    cache.set(o, v);
    return v;
  };
  return memoized;
}
