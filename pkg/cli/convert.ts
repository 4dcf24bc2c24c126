// kite convert: manifests read as apply reads them, each object converted through the conversion table
// (pkg/convert), written as one object or a List (as kubectl convert does) in YAML or JSON. Offline. Any
// error (an unreadable document, a field the target version requires and the conversion cannot invent)
// is reported with its document and field, and nothing is written.
import { statSync } from "node:fs";
import { convertObject } from "../convert/manifest.ts";
import type { GroupVersion } from "../convert/table.ts";
import { gvString } from "../convert/rows/util.ts";
import { type Manifest, readManifests, where } from "./manifests.ts";
import { errLine, out } from "./output.ts";
import { goJSON, toYaml } from "./printers.ts";

export interface ConvertOptions {
  filenames: string[];
  recursive: boolean;
  /** Undefined: each object to its kind's stable (hub) version. */
  outputVersion?: GroupVersion;
  output: "yaml" | "json";
}

/** kubectl prints one object as itself only when one file (or stdin) held exactly one object, not a List. */
function singleItem(filenames: string[], manifests: Manifest[]): boolean {
  if (filenames.length !== 1 || manifests.length !== 1 || manifests[0].item !== undefined) return false;
  const f = filenames[0];
  if (f === "-" || /^https?:\/\//.test(f)) return true;
  try { return !statSync(f).isDirectory(); } catch { return false; }
}

export async function runConvert(o: ConvertOptions): Promise<number> {
  const manifests = await readManifests(o.filenames, o.recursive);
  const errors: string[] = [], objects: Record<string, any>[] = [];
  for (const m of manifests) {
    if (m.error || !m.obj) { errors.push(`error: ${where(m)}: ${m.error}`); continue; }
    const r = convertObject(m.obj, o.outputVersion);
    const what = `${where(m)} ${m.obj.apiVersion} ${m.obj.kind}${m.obj.metadata?.name ? ` "${m.obj.metadata.name}"` : ""}`;
    if (!r.converted) {
      await errLine(`Warning: ${what} is not suitable for converting to "${gvString(o.outputVersion!)}"; written unchanged`);
    }
    for (const w of r.warnings) await errLine(`Warning: ${what}: ${w.field}: ${w.message}`);
    for (const e of r.errors) errors.push(`error: ${what}: ${e.field}: ${e.message}`);
    objects.push(r.obj);
  }
  if (errors.length) {
    for (const e of errors) await errLine(e);
    return 1;
  }
  if (objects.length === 0) {
    await errLine("error: no objects passed to convert");
    return 1;
  }
  const doc = singleItem(o.filenames, manifests) ? objects[0]
    : { apiVersion: "v1", kind: "List", items: objects, metadata: { resourceVersion: "", selfLink: "" } };
  out(o.output === "json" ? `${goJSON(doc, "    ")}\n` : await toYaml(doc));
  return 0;
}
