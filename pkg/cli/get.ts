// `kite get`: lists or fetches objects of any type and prints them as kubectl does. People get the server's
// Table (NAME/AGE when a server has none); programs get yaml, json, name, jsonpath or custom columns.
import { ApiError, Client, TABLE_ACCEPT, type Obj } from "../client/client.ts";
import { apiVersionOf, kindName, type ApiResource } from "../client/discovery.ts";
import { CliError, formatError } from "../client/errors.ts";
import type { KubeconfigFlags } from "../client/kubeconfig.ts";
import { UsageError } from "./args.ts";
import { JsonPath, JsonPathError, relaxed } from "./jsonpath.ts";
import { errLine, flush, out } from "./output.ts";
import {
  TabWriter, fallbackTable, fromServerTable, goJSON, headerCells, isTable, rowCells, toYaml,
  type Row, type Table, type TableView,
} from "./printers.ts";
import { planRequests, type Request } from "./resources.ts";

export interface GetOptions {
  args: string[];
  allNamespaces: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  output: string;
  watch: boolean;
  watchOnly: boolean;
  outputWatchEvents: boolean;
  chunkSize: number;
  showLabels: boolean;
  showKind: boolean;
  noHeaders: boolean;
  ignoreNotFound: boolean;
  labelColumns: string[];
  sortBy?: string;
}

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

interface Result {
  req: Request;
  table?: Table;
  objects: Obj[];
  error?: unknown;
}

/** kubectl names the namespace unless -A was given or a cluster-scoped type answered. */
const noResources = (ns: string | undefined) => (ns ? `No resources found in ${ns} namespace.` : "No resources found");

/** Items of a list with kind and apiVersion filled in, as kubectl shows them. */
function withKinds(items: Obj[], res: ApiResource): Obj[] {
  return items.map((i) => (i.kind && i.apiVersion ? i : { apiVersion: apiVersionOf(res), kind: res.kind, ...i }));
}

export async function runGet(o: GetOptions, flags: KubeconfigFlags): Promise<number> {
  const format = parseOutput(o.output);
  const sorter = o.sortBy ? sortKey(o.sortBy) : undefined;
  if (o.args.length === 0) {
    throw new CliError(`Required resource not specified.\nYou must specify the type of resource to get. Use "kite get all" or a type such as pods, services, deployments, configmaps.\nSee 'kite get --help' for usage.`);
  }
  const client = await Client.load(flags);
  const ns = o.allNamespaces ? undefined : client.config.namespace;
  const plan = await planRequests(client.discovery, o.args);
  if (plan.named && o.allNamespaces) throw new CliError("a resource cannot be retrieved by name across all namespaces");
  if (plan.named && o.labelSelector) throw new CliError("name cannot be provided when a selector is specified");
  if (o.watch || o.watchOnly) return watch(client, plan.requests, o, format, ns);

  const human = format.kind === "table";
  const accept = human ? TABLE_ACCEPT : undefined;
  const includeObject = human && sorter ? "Object" as const : undefined;

  const fetchOne = async (req: Request, retry = true): Promise<Result> => {
    try {
      if (req.name !== undefined) {
        const obj = await client.get(req.res, req.name, { namespace: ns, accept, includeObject });
        return isTable(obj) ? { req, table: fromServerTable(obj), objects: [] } : { req, objects: [obj] };
      }
      let table: Table | undefined;
      const objects: Obj[] = [];
      for await (const page of client.listPages(req.res, {
        namespace: ns, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: sorter ? 0 : o.chunkSize, accept, includeObject,
      })) {
        if (isTable(page)) {
          const t = fromServerTable(page);
          if (!table) table = t;
          else table.rows.push(...t.rows);
        } else objects.push(...withKinds(page.items ?? [], req.res));
      }
      return { req, table, objects };
    } catch (e) {
      // A type that discovery (cached) knows but the server no longer serves: refresh once and retry.
      if (retry && e instanceof ApiError && e.code === 404 && !e.status.details?.name && req.name === undefined) {
        await client.discovery.refresh();
        return fetchOne({ ...req, res: await client.discovery.resolve(req.arg) }, false);
      }
      return { req, objects: [], error: e };
    }
  };
  const results = await Promise.all(plan.requests.map((r) => fetchOne(r)));
  const errors = results.filter((r) => r.error !== undefined && !(o.ignoreNotFound && r.error instanceof ApiError && r.error.code === 404));

  let count = 0, quiet = false, allNamespaced = !o.allNamespaces;
  if (format.kind === "table") {
    // kubectl's "infos": one per server Table (even an empty one), else one per object of a plain list.
    const infos: ApiResource[] = [];
    for (const r of results) {
      if (r.error !== undefined) continue;
      if (r.table) infos.push(r.req.res);
      else for (const _ of r.objects) infos.push(r.req.res);
    }
    allNamespaced = !o.allNamespaces && infos.every((x) => x.namespaced);
    const showKind = o.showKind || new Set(infos.map((x) => `${x.group}/${x.version}/${x.kind}`)).size > 1;
    // One printer per run of the same type. As in kubectl, once a namespaced type under -A added the
    // NAMESPACE column, later printers keep it (the flag lives in shared print flags).
    const sections: { res: ApiResource; table: Table; withNamespace: boolean }[] = [];
    let sticky = false;
    for (const r of results) {
      if (r.error !== undefined || (!r.table && r.objects.length === 0)) continue;
      const t = r.table ?? fallbackTable(r.objects);
      const last = sections[sections.length - 1];
      if (last && last.res === r.req.res && sameColumns(last.table, t)) { last.table.rows.push(...t.rows); continue; }
      if (!last || last.res !== r.req.res) sticky ||= o.allNamespaces && r.req.res.namespaced;
      sections.push({ res: r.req.res, table: { columns: t.columns, rows: [...t.rows] }, withNamespace: sticky });
    }
    const tw = new TabWriter();
    let text = "";
    for (const s of sections) {
      if (s.table.rows.length === 0) continue;
      if (sorter) s.table.rows = sortBy(s.table.rows, (row) => row.object, sorter);
      if (count > 0) {
        text += tw.flush();
        tw.resetWidths();
        if (!o.noHeaders) text += "\n";
      }
      const view: TableView = {
        wide: format.wide, withNamespace: s.withNamespace, kind: showKind ? kindName(s.res) : undefined,
        showLabels: o.showLabels, labelColumns: o.labelColumns,
      };
      if (!o.noHeaders) tw.add(headerCells(s.table, view));
      for (const row of s.table.rows) tw.add(rowCells(s.table, row, view));
      count += s.table.rows.length;
    }
    out(text + tw.flush());
  } else {
    quiet = true; // kubectl's generic printers never say "No resources found"
    let pairs = results.flatMap((r) => r.objects.map((obj) => ({ res: r.req.res, obj })));
    if (sorter) pairs = sortBy(pairs, (p) => p.obj, sorter);
    count = pairs.length;
    const objects = pairs.map((p) => p.obj);
    const doc = plan.singleItemImplied && objects.length === 1 && results.length === 1
      ? objects[0]
      : { apiVersion: "v1", items: objects, kind: "List", metadata: { resourceVersion: "" } };
    switch (format.kind) {
      // Documents print even when empty (an empty List), as kubectl does; errors alone print nothing.
      case "yaml": if (count || !errors.length) out(await toYaml(doc)); break;
      case "json": if (count || !errors.length) out(`${goJSON(doc, "    ")}\n`); break;
      case "jsonpath": if (count || !errors.length) out(format.tpl.execute(doc)); break;
      case "name": for (const p of pairs) out(`${kindName(p.res)}/${p.obj.metadata?.name}\n`); break;
      case "custom": {
        const tw = new TabWriter();
        if (!o.noHeaders && (count || !errors.length)) tw.add(format.columns.map((c) => c.header));
        for (const obj of objects) tw.add(format.columns.map((c) => customCell(c.path, obj)));
        out(tw.flush());
        break;
      }
    }
  }
  await flush();
  if (count === 0 && !quiet && errors.length === 0 && !o.ignoreNotFound) await errLine(noResources(allNamespaced ? ns : undefined));
  for (const e of errors) await errLine(formatError(e.error));
  return errors.length ? 1 : 0;
}

function sameColumns(a: Table, b: Table): boolean {
  return a.columns.length === b.columns.length && a.columns.every((c, i) => c.name === b.columns[i].name);
}

function customCell(path: JsonPath, obj: Obj): string {
  const vals = path.values(obj).filter((v) => v !== undefined);
  if (!vals.length) return "<none>";
  return vals.map((v) => (v === null ? "<none>" : typeof v === "object" ? JSON.stringify(v) : String(v))).join(",");
}

function sortKey(expr: string): JsonPath {
  try {
    return new JsonPath(relaxed(expr));
  } catch (e) {
    throw new UsageError(`invalid --sort-by expression ${JSON.stringify(expr)}: ${(e as Error).message}`);
  }
}

/** Stable sort by a JSONPath value, numbers numerically and strings in natural order (as kubectl). */
function sortBy<T>(items: T[], objOf: (t: T) => Obj | undefined, key: JsonPath): T[] {
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

/** `get -w`: the list (unless --watch-only), then one line per change, until the server ends the watch. */
async function watch(client: Client, requests: Request[], o: GetOptions, format: Format, ns: string | undefined): Promise<number> {
  if (new Set(requests.map((r) => r.res)).size > 1) throw new CliError("you may only specify a single resource type");
  if (requests.length > 1) throw new CliError(`watch is only supported on individual resources and resource collections, but ${requests.length} resources were found`);
  const req = requests[0];
  const fieldSelector = [o.fieldSelector, req.name !== undefined ? `metadata.name=${req.name}` : ""].filter(Boolean).join(",") || undefined;
  const human = format.kind === "table";
  const accept = human ? TABLE_ACCEPT : undefined;
  const opts = { namespace: ns, labelSelector: o.labelSelector, fieldSelector, accept };

  let table: Table | undefined;
  const initial: Obj[] = [];
  let rv = "";
  for await (const page of client.listPages(req.res, { ...opts, limit: o.chunkSize })) {
    rv = page.metadata?.resourceVersion ?? rv;
    if (isTable(page)) {
      const t = fromServerTable(page);
      if (!table) table = t;
      else table.rows.push(...t.rows);
    } else initial.push(...withKinds(page.items ?? [], req.res));
  }
  const serverTables = !!table;
  let columns = table?.columns ?? fallbackTable([]).columns;
  const view: TableView = {
    wide: format.kind === "table" && format.wide, withNamespace: o.allNamespaces && req.res.namespaced,
    kind: o.showKind ? kindName(req.res) : undefined, showLabels: o.showLabels, labelColumns: o.labelColumns, eventColumn: o.outputWatchEvents,
  };
  const tw = new TabWriter();
  let headed = o.noHeaders;
  let docs = 0;

  const emitRows = async (rows: Row[], event: string) => {
    if (!rows.length) return;
    const t: Table = { columns, rows };
    if (!headed) { tw.add(headerCells(t, view)); headed = true; }
    for (const r of rows) tw.add(rowCells(t, r, view, event));
    out(tw.flush());
    await flush();
  };
  const emitObject = async (obj: Obj, event: string) => {
    const doc = o.outputWatchEvents ? { type: event, object: obj } : obj;
    switch (format.kind) {
      case "yaml": out(`${docs ? "---\n" : ""}${await toYaml(doc)}`); break;
      case "json": out(`${goJSON(doc, "    ")}\n`); break;
      case "name": out(`${kindName(req.res)}/${obj.metadata?.name}\n`); break;
      case "jsonpath": out(format.tpl.execute(doc)); break;
      case "custom": {
        const cols = (format as Extract<Format, { kind: "custom" }>).columns;
        if (!headed) { tw.add(cols.map((c) => c.header)); headed = true; }
        tw.add(cols.map((c) => customCell(c.path, obj)));
        out(tw.flush());
        break;
      }
    }
    docs++;
    await flush();
  };

  if (!o.watchOnly) {
    if (human) await emitRows(table?.rows ?? fallbackTable(initial).rows, "ADDED");
    else for (const obj of initial) await emitObject(obj, "ADDED");
  }
  for await (const ev of client.watch(req.res, { ...opts, resourceVersion: rv })) {
    if (ev.type === "BOOKMARK") continue;
    if (ev.type === "ERROR") throw new ApiError(ev.object?.code ?? 500, ev.object ?? {});
    if (human) {
      if (serverTables && isTable(ev.object)) {
        const t = fromServerTable(ev.object);
        if (t.columns.length) columns = t.columns;
        await emitRows(t.rows, ev.type);
      } else {
        if (serverTables) columns = fallbackTable([]).columns;
        await emitRows(fallbackTable([ev.object]).rows, ev.type);
      }
    } else await emitObject(ev.object, ev.type);
  }
  return 0;
}
