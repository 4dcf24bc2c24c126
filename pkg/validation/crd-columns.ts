// A CRD version's additionalPrinterColumns, checked as upstream checks them: a name, a type and format
// from the printer's sets, and a simple JSONPath starting with a dot. Upstream reports the path at its
// internal field's name, `JSONPath`, whatever the version's own spelling (`jsonPath`).
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { isMap } from "./rules.ts";

const TYPES = ["boolean", "date", "integer", "number", "string"];
const FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];
const oneOfThese = (set: string[]) => `must be one of ${set.join(",")}`;

function column(e: Errs, c: Obj, path: string) {
  if (!c.name) e.required(`${path}.name`);
  if (!c.type) e.required(`${path}.type`, oneOfThese(TYPES));
  else if (!TYPES.includes(c.type)) e.invalid(`${path}.type`, c.type, oneOfThese(TYPES));
  if (c.format && !FORMATS.includes(c.format)) e.invalid(`${path}.format`, c.format, oneOfThese(FORMATS));
  const jsonPath = String(c.jsonPath ?? "");
  if (!jsonPath) e.required(`${path}.JSONPath`);
  else if (!jsonPath.startsWith(".")) e.invalid(`${path}.JSONPath`, jsonPath, "must be a simple json path starting with .");
}

/** Every version's columns (`spec` is the hub form: v1beta1's top-level columns are per version there). */
export function printerColumns(e: Errs, spec: Obj) {
  const versions: Obj[] = Array.isArray(spec.versions) ? spec.versions : [];
  versions.forEach((v, i) => {
    const cols = Array.isArray(v?.additionalPrinterColumns) ? v.additionalPrinterColumns : [];
    cols.forEach((c: unknown, j: number) => column(e, isMap(c) ? c : {}, `spec.versions[${i}].additionalPrinterColumns[${j}]`));
  });
}
