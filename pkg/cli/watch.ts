// `kite get -w`: the list (or the named object), then one row or document per change, as kubectl prints them.
import { ApiError, TABLE_ACCEPT, type Client, type Obj } from "../client/client.ts";
import { kindName } from "../client/discovery.ts";
import { CliError } from "../client/errors.ts";
import { customCell, omitManagedFields, withKinds, type Format } from "./format.ts";
import type { GetOptions } from "./get.ts";
import { flush, out } from "./output.ts";
import { TabWriter, fallbackTable, fromServerTable, goJSON, headerCells, isTable, rowCells, toYaml, type Row, type Table, type TableView } from "./printers.ts";
import type { Request } from "./resources.ts";
import { nameSelector } from "../util/fieldselector.ts";

/** `get -w`: the list (unless --watch-only), then one line per change, until the server ends the watch. */
export async function watch(client: Client, requests: Request[], o: GetOptions, format: Format, ns: string | undefined): Promise<number> {
  if (new Set(requests.map((r) => r.res)).size > 1) throw new CliError("you may only specify a single resource type");
  if (requests.length > 1) throw new CliError(`watch is only supported on individual resources and resource collections, but ${requests.length} resources were found`);
  const req = requests[0];
  const fieldSelector = [o.fieldSelector, req.name !== undefined ? nameSelector(req.name) : ""].filter(Boolean).join(",") || undefined;
  const human = format.kind === "table";
  const accept = human ? TABLE_ACCEPT : undefined;
  const opts = { namespace: ns, labelSelector: o.labelSelector, fieldSelector, accept };

  let table: Table | undefined;
  const initial: Obj[] = [];
  let rv = "";
  // As kubectl: one named object is read (a missing one is an error), then watched from "now" (rv 0),
  // whose first event only repeats what was printed; a collection is watched from its list's revision.
  let skipFirst = false;
  if (req.name !== undefined) {
    let obj: Obj;
    try {
      obj = await client.get(req.res, req.name, { namespace: ns, accept });
    } catch (e) {
      if (o.ignoreNotFound && e instanceof ApiError && e.code === 404) return 0;
      throw e;
    }
    if (isTable(obj)) table = fromServerTable(obj);
    else initial.push(obj);
    rv = "0";
    skipFirst = true;
  } else {
    for await (const page of client.listPages(req.res, { ...opts, limit: o.chunkSize })) {
      rv = page.metadata?.resourceVersion ?? rv;
      if (isTable(page)) {
        const t = fromServerTable(page);
        if (!table) table = t;
        else table.rows.push(...t.rows);
      } else initial.push(...withKinds(page.items ?? [], req.res));
    }
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
  const emitObject = async (raw: Obj, event: string) => {
    const obj = o.showManagedFields ? raw : omitManagedFields(raw);
    const doc = o.outputWatchEvents ? { type: event, object: obj } : obj;
    switch (format.kind) {
      case "yaml": out(`${docs ? "---\n" : ""}${await toYaml(doc)}`); break;
      // kubectl marshals a watch event compactly, type first (it is a Go struct, not a map).
      case "json": out(o.outputWatchEvents ? `{"type":${goJSON(event)},"object":${goJSON(obj)}}\n` : `${goJSON(doc, "    ")}\n`); break;
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
    if (skipFirst) { skipFirst = false; continue; }
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
