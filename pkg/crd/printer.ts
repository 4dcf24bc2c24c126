// The Table of a custom resource version: Name, then its additionalPrinterColumns (each a JSONPath into
// the object), or an Age column when it declares none, as upstream's table convertor for CRDs.
import { JsonPath, relaxed } from "../cli/jsonpath.ts";
import { type Cell, type Column, type ColumnType, type Printer, nameColumn } from "../table/columns.ts";
import { since } from "../table/duration.ts";
import type { Obj } from "../registry/types.ts";

const AGE = { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata" };

/** A cell from the first value the path selects, kept only when it has the column's type. */
function cellOf(type: string, v: unknown, now: number): Cell {
  if (v === undefined || v === null) return null;
  switch (type) {
    case "integer": return typeof v === "number" && Number.isInteger(v) ? v : null;
    case "number": return typeof v === "number" ? v : null;
    case "boolean": return typeof v === "boolean" ? v : null;
    case "date": return typeof v === "string" ? since(v, now) : null;
    default: return typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
  }
}

function column(c: Obj): Column {
  let path: JsonPath | undefined;
  try { path = new JsonPath(relaxed(String(c.jsonPath ?? ""))); } catch { path = undefined; }
  const type = String(c.type ?? "string");
  return {
    name: String(c.name ?? ""), type: type as ColumnType, format: c.format ?? "", priority: c.priority ?? 0,
    description: c.description ?? "",
    cell: (obj, ctx) => {
      let vs: unknown[] = [];
      try { vs = path?.values(obj) ?? []; } catch { vs = []; }
      return cellOf(type, vs[0], ctx.now);
    },
  };
}

/** The printer of a CRD version's columns. */
export function printerOf(columns: Obj[] | undefined): Printer {
  return { columns: [nameColumn, ...(columns?.length ? columns : [AGE]).map(column)] };
}
