// The server-side Table representation (spec §2.5, §4.4): objects turned into rows of cells by a
// per-kind printer, as upstream's printers and its default table convertor do.
import type { Obj, ResourceDef } from "../registry/types.ts";
import { DEFAULT_PRINTER, groupKind, newCtx, type Column, type Printer, type Printers } from "./columns.ts";
import { APPS, BATCH } from "./apps.ts";
import { CLUSTER } from "./cluster.ts";
import { CORE } from "./core.ts";
import { NETWORKING } from "./networking.ts";
import { STORAGE } from "./storage.ts";

export { humanDuration } from "./duration.ts";
export type { Cell, Column, Printer } from "./columns.ts";

const PRINTERS: Printers = {
  ...CORE, ...APPS, ...BATCH, ...NETWORKING, ...STORAGE, ...CLUSTER,
  // events.k8s.io serves the core Event under new field names; upstream prints both with one printer.
  "Event.events.k8s.io": CORE.Event,
};

/** The printer for a resource type: its own, or the default Name / Created At table. */
export function printerFor(def: Pick<ResourceDef, "group" | "kind" | "printer">): Printer {
  return def.printer ?? PRINTERS[groupKind(def.group, def.kind)] ?? DEFAULT_PRINTER;
}

/** True for the Table group versions the server answers (`as=Table;g=...;v=...`). */
export function supportsTable(group: string, version: string): boolean {
  return (group === "meta.k8s.io" || group === "meta.platform.io") && (version === "v1" || version === "v1beta1");
}

export interface TableOptions {
  /** The group the client asked for: `meta.k8s.io` or `meta.platform.io`. */
  group: string;
  /** `v1` or `v1beta1`. */
  version: string;
  /** What each row carries: PartialObjectMetadata (default), the whole object, or nothing. */
  includeObject?: "None" | "Metadata" | "Object";
  /** The list's metadata, carried over to the table. */
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** Leave out the column definitions (TableOptions.noHeaders). */
  noHeaders?: boolean;
  /** The clock for ages, in epoch milliseconds (defaults to now). */
  now?: number;
  /** The object as the printer reads it: a version served through the conversion table is printed at its hub. */
  atHub?: (obj: Obj) => Obj;
}

const columnDefinition = (c: Column) => ({
  name: c.name, type: c.type, format: c.format ?? "", description: c.description, priority: c.priority ?? 0,
});

/** A Table of `objs` as the printer of `def` shows them, with every column (wide ones have priority 1). */
export function tableFor(def: Pick<ResourceDef, "group" | "kind" | "printer">, objs: Obj[], opts: TableOptions): Obj {
  const printer = printerFor(def);
  const ctx = newCtx(opts.now ?? Date.now());
  const include = opts.includeObject ?? "Metadata";
  const rows = objs.map((obj) => {
    const hubView = opts.atHub ? opts.atHub(obj) : obj;
    const view = printer.normalize ? printer.normalize(hubView) : hubView;
    const row: Obj = { cells: printer.columns.map((c) => c.cell(view, ctx)) };
    const conditions = printer.conditions?.(view);
    if (conditions) row.conditions = conditions;
    if (include === "Object") row.object = obj;
    else if (include === "Metadata") row.object = partialObjectMetadata(obj, opts.group, opts.version);
    return row;
  });
  return {
    kind: "Table",
    apiVersion: `${opts.group}/${opts.version}`,
    metadata: listMetadata(opts.listMeta),
    columnDefinitions: opts.noHeaders ? [] : printer.columns.map(columnDefinition),
    rows,
  };
}

function listMetadata(m: TableOptions["listMeta"]): Obj {
  const out: Obj = {};
  if (m?.resourceVersion !== undefined) out.resourceVersion = m.resourceVersion;
  if (m?.continue) out.continue = m.continue;
  if (m?.remainingItemCount !== undefined && m.remainingItemCount !== null) out.remainingItemCount = m.remainingItemCount;
  return out;
}

/** An object reduced to its metadata (`as=PartialObjectMetadata`), named in the asked group version. */
export function partialObjectMetadata(obj: Obj, group: string, version: string): Obj {
  return { kind: "PartialObjectMetadata", apiVersion: `${group}/${version}`, metadata: obj.metadata ?? {} };
}

/** A list reduced to its items' metadata (`as=PartialObjectMetadataList`), keeping the list's metadata. */
export function partialObjectMetadataList(list: Obj, group: string, version: string): Obj {
  return {
    kind: "PartialObjectMetadataList",
    apiVersion: `${group}/${version}`,
    metadata: list.metadata ?? {},
    items: (list.items ?? []).map((i: Obj) => partialObjectMetadata(i, group, version)),
  };
}
