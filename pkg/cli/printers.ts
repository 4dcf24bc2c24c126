// Output as kubectl prints it: the tab writer (liggitt/tabwriter: min width 6, padding 3, widths
// remembered across flushes), Tables (the server's, or NAME/AGE from plain objects), ages, JSON (4-space
// indent, sorted keys, HTML-escaped as Go does) and YAML (sorted keys, unindented sequences).
import type { Obj } from "../client/client.ts";

const MIN_WIDTH = 6;
const PADDING = 3;

const width = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Go's text/tabwriter as kubectl configures it; the last cell of a line is never padded. */
export class TabWriter {
  private rows: string[][] = [];
  private remembered: number[] = [];

  add(cells: string[]): void {
    this.rows.push(cells);
  }

  /** Aligned text of the rows added since the last flush; column widths never shrink until reset. */
  flush(): string {
    const widths = this.remembered;
    for (const r of this.rows) {
      for (let i = 0; i < r.length - 1; i++) widths[i] = Math.max(widths[i] ?? MIN_WIDTH, width(r[i]) + PADDING);
    }
    let s = "";
    for (const r of this.rows) {
      for (let i = 0; i < r.length; i++) s += i < r.length - 1 ? r[i] + " ".repeat(widths[i] - width(r[i])) : r[i];
      s += "\n";
    }
    this.rows = [];
    return s;
  }

  resetWidths(): void {
    this.remembered = [];
  }
}

/** k8s.io/apimachinery's duration.HumanDuration, as in the AGE column. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

export const age = (ts: string | undefined, now = Date.now()) => (ts ? humanDuration(now - Date.parse(ts)) : "<unknown>");

export interface Column { name: string; type?: string; format?: string; priority?: number }
export interface Row { cells: unknown[]; object?: Obj }
export interface Table { columns: Column[]; rows: Row[] }

export const isTable = (o: Obj | undefined) => o?.kind === "Table" && Array.isArray(o.rows);

/** A server Table as columns and rows. */
export function fromServerTable(t: Obj): Table {
  return { columns: t.columnDefinitions ?? [], rows: t.rows ?? [] };
}

export const FALLBACK_COLUMNS: Column[] = [
  { name: "Name", type: "string", format: "name", priority: 0 },
  { name: "Age", type: "string", priority: 0 },
];

/** What kubectl shows for a server that does not serve Tables: NAME and AGE. */
export function fallbackTable(objects: Obj[], now = Date.now()): Table {
  return { columns: FALLBACK_COLUMNS, rows: objects.map((o) => ({ cells: [o.metadata?.name ?? "", age(o.metadata?.creationTimestamp, now)], object: o })) };
}

/** One cell as kubectl prints it: text up to the first line break (then "..."), <none> for null. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "<none>";
  if (typeof v === "string") {
    const i = v.search(/[\f\n\r]/);
    return i >= 0 ? `${v.slice(0, i)}...` : v;
  }
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export function formatLabels(labels: Record<string, string> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  return keys.length ? keys.map((k) => `${k}=${labels![k]}`).join(",") : "<none>";
}

export interface TableView {
  wide?: boolean;
  /** Adds a NAMESPACE column first. */
  withNamespace?: boolean;
  /** Prefixes names with `kind/` (e.g. `deployment.apps/`). */
  kind?: string;
  showLabels?: boolean;
  labelColumns?: string[];
  /** An EVENT column first (--output-watch-events). */
  eventColumn?: boolean;
}

/** The visible columns of a table (priority 0 unless wide), as indexes. */
export function visibleColumns(t: Table, view: TableView): number[] {
  const idx: number[] = [];
  t.columns.forEach((c, i) => { if (view.wide || !c.priority) idx.push(i); });
  return idx;
}

export function headerCells(t: Table, view: TableView): string[] {
  const h = visibleColumns(t, view).map((i) => t.columns[i].name.toUpperCase());
  if (view.withNamespace) h.unshift("NAMESPACE");
  if (view.eventColumn) h.unshift("EVENT");
  for (const l of view.labelColumns ?? []) h.push(l.split("/").pop()!.toUpperCase());
  if (view.showLabels) h.push("LABELS");
  return h;
}

/** kubectl pads event types to one width (its formatEventType). */
const EVENT_CELLS: Record<string, string> = { ADDED: "ADDED   ", MODIFIED: "MODIFIED", DELETED: "DELETED ", ERROR: "ERROR   " };

export function rowCells(t: Table, row: Row, view: TableView, event?: string): string[] {
  const cols = visibleColumns(t, view);
  const nameCol = t.columns.findIndex((c) => c.format === "name");
  const cells = cols.map((i) => {
    const text = cellText(row.cells[i]);
    return view.kind && i === (nameCol >= 0 ? nameCol : 0) ? `${view.kind}/${text}` : text;
  });
  const meta = row.object?.metadata ?? {};
  if (view.withNamespace) cells.unshift(meta.namespace ?? "");
  if (view.eventColumn) cells.unshift(EVENT_CELLS[event ?? ""] ?? event ?? "");
  for (const l of view.labelColumns ?? []) cells.push(meta.labels?.[l] ?? "");
  if (view.showLabels) cells.push(formatLabels(meta.labels));
  return cells;
}

/** Go's encoding/json escaping of a string (HTML-safe, as kubectl's JSON output). */
function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** JSON as Go marshals a map: keys sorted; indent "" for compact output. */
export function goJSON(v: unknown, indent = "", level = 0): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return goString(v);
  if (typeof v !== "object") return JSON.stringify(v);
  const nl = indent ? `\n${indent.repeat(level + 1)}` : "";
  const end = indent ? `\n${indent.repeat(level)}` : "";
  const sep = indent ? ": " : ":";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return `[${v.map((x) => nl + goJSON(x, indent, level + 1)).join(",")}${end}]`;
  }
  const keys = Object.keys(v).filter((k) => (v as Obj)[k] !== undefined).sort();
  if (keys.length === 0) return "{}";
  return `{${keys.map((k) => `${nl}${goString(k)}${sep}${goJSON((v as Obj)[k], indent, level + 1)}`).join(",")}${end}}`;
}

/** Recursively key-sorted copy (YAML output sorts keys as Go's map marshalling does). */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object") {
    const o: Obj = {};
    for (const k of Object.keys(v).sort()) if ((v as Obj)[k] !== undefined) o[k] = sorted((v as Obj)[k]);
    return o;
  }
  return v;
}

// Plain scalars that YAML 1.1 would read as something other than a string (go-yaml v2 double-quotes them;
// strings that need quotes for other reasons get single quotes).
const YAML11_NON_STRING = new RegExp("^(?:" + [
  "|~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
  "[-+]?(?:0[bB][01_]+|0[oO]?[0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*)",
  "[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)",
  "[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\\.[0-9_]*)?",
  "\\d{4}-\\d\\d?-\\d\\d?(?:[Tt ]\\d\\d?:\\d\\d?:\\d\\d?(?:\\.\\d*)?(?:Z|[-+]\\d\\d?(?::\\d\\d)?)?)?",
].join("|") + ")$");

/** YAML as kubectl prints it (sigs.k8s.io/yaml, go-yaml v2): sorted keys, `- ` items at the parent's indent. */
export async function toYaml(v: unknown): Promise<string> {
  const YAML = (await import("yaml")).default;
  const doc = new YAML.Document(sorted(v), { version: "1.1", aliasDuplicateObjects: false } as never);
  YAML.visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string" && !node.value.includes("\n") && YAML11_NON_STRING.test(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  return doc.toString({ indentSeq: false, singleQuote: true, lineWidth: 80, nullStr: "null" });
}
