// `kite get`: lists or fetches objects of any type and prints them as kubectl does. People get the server's
// Table (NAME/AGE when a server has none); programs get yaml, json, name, jsonpath or custom columns.
import { ApiError, BINARY_ACCEPT, Client, TABLE_ACCEPT, type Obj } from "../client/client.ts";
import { kindName, type ApiResource } from "../client/discovery.ts";
import { CliError, formatError } from "../client/errors.ts";
import type { KubeconfigFlags } from "../client/kubeconfig.ts";
import { customCell, omitManagedFields, parseOutput, sortBy, sortKey, withKinds, type Format } from "./format.ts";
import { errLine, flush, out, printWarning } from "./output.ts";
import { TabWriter, fallbackTable, fromServerTable, goJSON, headerCells, isTable, rowCells, toYaml, type Table, type TableView } from "./printers.ts";
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
  showManagedFields: boolean;
}

interface Result {
  req: Request;
  table?: Table;
  objects: Obj[];
  error?: unknown;
}

/** kubectl names the namespace unless -A was given or a cluster-scoped type answered. */
const noResources = (ns: string | undefined) => (ns ? `No resources found in ${ns} namespace.` : "No resources found");

export async function runGet(o: GetOptions, flags: KubeconfigFlags): Promise<number> {
  const format = parseOutput(o.output);
  const sorter = o.sortBy ? sortKey(o.sortBy) : undefined;
  if (o.args.length === 0) {
    throw new CliError(`Required resource not specified.\nYou must specify the type of resource to get. Use "kite get all" or a type such as pods, services, deployments, configmaps.\nSee 'kite get --help' for usage.`);
  }
  const client = await Client.load(flags, printWarning);
  const ns = o.allNamespaces ? undefined : client.config.namespace;
  const plan = await planRequests(client.discovery, o.args);
  if (plan.named && o.allNamespaces) throw new CliError("a resource cannot be retrieved by name across all namespaces");
  if (plan.named && o.labelSelector) throw new CliError("name cannot be provided when a selector is specified");
  if (o.watch || o.watchOnly) return (await import("./watch.ts")).watch(client, plan.requests, o, format, ns);

  const human = format.kind === "table";
  // Objects come in the binary form where the server has it (JSON otherwise), as client-go prefers.
  const accept = human ? TABLE_ACCEPT : BINARY_ACCEPT;
  // Rows carry the object only as far as printing needs it: all of it to sort, metadata for NAMESPACE and
  // label columns, nothing otherwise (a smaller answer, sooner).
  const includeObject = !human ? undefined
    : sorter ? "Object" as const
    : o.allNamespaces || o.showLabels || o.labelColumns.length ? undefined : "None" as const;

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

  const printed = format.kind === "table"
    ? printTables(results, o, format.wide)
    : await printDocuments(results, o, format, plan.singleItemImplied, errors.length > 0);
  await flush();
  // Only the table printer says so (kubectl's generic printers print an empty List, or nothing).
  if (printed.rows === 0 && format.kind === "table" && errors.length === 0 && !o.ignoreNotFound) {
    await errLine(noResources(printed.allNamespaced ? ns : undefined));
  }
  for (const e of errors) await errLine(formatError(e.error));
  return errors.length ? 1 : 0;
}

function sameColumns(a: Table, b: Table): boolean {
  return a.columns.length === b.columns.length && a.columns.every((c, i) => c.name === b.columns[i].name);
}

/** Tables as kubectl's human-readable printer lays them out; returns the row count. */
function printTables(results: Result[], o: GetOptions, wide: boolean): { rows: number; allNamespaced: boolean } {
  // kubectl's "infos": one per server Table (even an empty one), else one per object of a plain list.
  const infos: ApiResource[] = [];
  for (const r of results) {
    if (r.error !== undefined) continue;
    if (r.table) infos.push(r.req.res);
    else for (const _ of r.objects) infos.push(r.req.res);
  }
  const allNamespaced = !o.allNamespaces && infos.every((x) => x.namespaced);
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
  const sorter = o.sortBy ? sortKey(o.sortBy) : undefined;
  const tw = new TabWriter();
  let text = "", rows = 0;
  for (const s of sections) {
    if (s.table.rows.length === 0) continue;
    if (sorter) s.table.rows = sortBy(s.table.rows, (row) => row.object, sorter);
    if (rows > 0) {
      text += tw.flush();
      tw.resetWidths();
      if (!o.noHeaders) text += "\n";
    }
    const view: TableView = {
      wide, withNamespace: s.withNamespace, kind: showKind ? kindName(s.res) : undefined,
      showLabels: o.showLabels, labelColumns: o.labelColumns,
    };
    if (!o.noHeaders) tw.add(headerCells(s.table, view));
    for (const row of s.table.rows) tw.add(rowCells(s.table, row, view));
    rows += s.table.rows.length;
  }
  out(text + tw.flush());
  return { rows, allNamespaced };
}

/** yaml, json, name, jsonpath and custom columns: one object when one was named, else a List. */
async function printDocuments(results: Result[], o: GetOptions, format: Format, singleItemImplied: boolean, failed: boolean): Promise<{ rows: number; allNamespaced: boolean }> {
  let pairs = results.flatMap((r) => r.objects.map((obj) => ({ res: r.req.res, obj })));
  if (o.sortBy) pairs = sortBy(pairs, (p) => p.obj, sortKey(o.sortBy));
  const objects = pairs.map((p) => (o.showManagedFields ? p.obj : omitManagedFields(p.obj)));
  const doc = singleItemImplied && objects.length === 1 && results.length === 1
    ? objects[0]
    : { apiVersion: "v1", items: objects, kind: "List", metadata: { resourceVersion: "" } };
  // Documents print even when empty (an empty List), as kubectl does; errors alone print nothing.
  const some = objects.length > 0 || !failed;
  switch (format.kind) {
    case "yaml": if (some) out(await toYaml(doc)); break;
    case "json": if (some) out(`${goJSON(doc, "    ")}\n`); break;
    case "jsonpath": if (some) out(format.tpl.execute(doc)); break;
    case "name": for (const p of pairs) out(`${kindName(p.res)}/${p.obj.metadata?.name}\n`); break;
    case "custom": {
      const tw = new TabWriter();
      if (!o.noHeaders && some) tw.add(format.columns.map((c) => c.header));
      for (const obj of objects) tw.add(format.columns.map((c) => customCell(c.path, obj)));
      out(tw.flush());
      break;
    }
  }
  return { rows: objects.length, allNamespaced: false };
}
