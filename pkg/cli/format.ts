// Output formats of `kite get` (-o), and sorting (--sort-by) as kubectl does them.
import type { Obj } from "../client/client.ts";
import { apiVersionOf, type ApiResource } from "../client/discovery.ts";
import { UsageError } from "./args.ts";
import { JsonPath, JsonPathError, relaxed } from "./jsonpath.ts";

export type Format =
  | { kind: "table"; wide: boolean }
  | { kind: "yaml" | "json" | "name" }
  | { kind: "jsonpath"; tpl: JsonPath }
  | { kind: "custom"; columns: { header: string; path: JsonPath }[] };

const FORMATS = "custom-columns, json, jsonpath, name, wide, yaml";

/** Parses -o; an unknown format or a bad template is a usage error (exit 2). */
export function parseOutput(o: string): Format {
  try {
    if (o === "" ) return { kind: "table", wide: false };
    if (o === "wide") return { kind: "table", wide: true };
    if (o === "yaml" || o === "json" || o === "name") return { kind: o };
    const eq = o.indexOf("=");
    const name = eq < 0 ? o : o.slice(0, eq), arg = eq < 0 ? "" : o.slice(eq + 1);
    if (name === "jsonpath") {
      if (!arg) throw new UsageError("template format specified but no template given");
      return { kind: "jsonpath", tpl: new JsonPath(arg) };
    }
    if (name === "custom-columns") {
      if (!arg) throw new UsageError("custom-columns format specified but no custom columns given");
      const columns = arg.split(",").map((spec) => {
        const i = spec.indexOf(":");
        if (i <= 0) throw new UsageError(`unexpected custom-columns spec: ${spec}, expected <header>:<json-path-expr>`);
        return { header: spec.slice(0, i), path: new JsonPath(relaxed(spec.slice(i + 1))) };
      });
      return { kind: "custom", columns };
    }
  } catch (e) {
    if (e instanceof JsonPathError) throw new UsageError(`error parsing jsonpath ${o.slice(o.indexOf("=") + 1)}, ${e.message}`);
    throw e;
  }
  throw new UsageError(`unable to match a printer suitable for the output format "${o}", allowed formats are: ${FORMATS}`);
}

/** Items of a list with kind and apiVersion filled in, as kubectl shows them. */
export function withKinds(items: Obj[], res: ApiResource): Obj[] {
  return items.map((i) => (i.kind && i.apiVersion ? i : { apiVersion: apiVersionOf(res), kind: res.kind, ...i }));
}

export function customCell(path: JsonPath, obj: Obj): string {
  const vals = path.values(obj).filter((v) => v !== undefined);
  if (!vals.length) return "<none>";
  return vals.map((v) => (v === null ? "<none>" : typeof v === "object" ? JSON.stringify(v) : String(v))).join(",");
}

export function sortKey(expr: string): JsonPath {
  try {
    return new JsonPath(relaxed(expr));
  } catch (e) {
    throw new UsageError(`invalid --sort-by expression ${JSON.stringify(expr)}: ${(e as Error).message}`);
  }
}

/** Stable sort by a JSONPath value, numbers numerically and strings in natural order (as kubectl). */
export function sortBy<T>(items: T[], objOf: (t: T) => Obj | undefined, key: JsonPath): T[] {
  const keyed = items.map((t, i) => ({ t, i, v: (() => { const o = objOf(t); return o ? key.values(o)[0] : undefined; })() }));
  keyed.sort((a, b) => compareValues(a.v, b.v) || a.i - b.i);
  return keyed.map((k) => k.t);
}

function compareValues(a: unknown, b: unknown): number {
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return naturalCompare(a, b);
  return naturalCompare(JSON.stringify(a), JSON.stringify(b));
}

/** sortorder.NaturalLess: digit runs compare as numbers. */
export function naturalCompare(a: string, b: string): number {
  const re = /(\d+|\D+)/g;
  const pa = a.match(re) ?? [], pb = b.match(re) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i], y = pb[i];
    const dx = /^\d/.test(x), dy = /^\d/.test(y);
    if (dx && dy) {
      const d = Number(x) - Number(y);
      if (d) return d;
      if (x.length !== y.length) return x.length - y.length;
    } else if (x !== y) return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** kubectl hides metadata.managedFields from printed objects unless --show-managed-fields is given. */
export function omitManagedFields(obj: Obj): Obj {
  if (!obj?.metadata?.managedFields) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
