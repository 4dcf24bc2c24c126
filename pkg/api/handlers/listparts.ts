// A list's body in the negotiated representation as parts — its envelope, then item after item — so that
// ./stream.ts can encode it a slice at a time. Joined, the parts are exactly the list encoded whole.
import { listJSONParts, listProtobufParts } from "../../registry/serialized.ts";
import { type Representation, toYAML } from "../negotiate.ts";
import type { Part } from "./stream.ts";

/** The parts of a list, or of a Table's rows; undefined for anything else (single objects are encoded whole). */
export function listParts(rep: Representation, obj: unknown): Iterator<Part> | undefined {
  if (typeof obj !== "object" || obj === null) return undefined;
  const o = obj as Record<string, any>;
  if (rep.as === "Table" && Array.isArray(o.rows)) return listJSONParts(o, "rows");
  if (!Array.isArray(o.items)) return undefined;
  if (rep.format === "protobuf") return listProtobufParts(o as { items: object[] });
  if (rep.format === "yaml") return yamlParts(o as { items: object[] });
  return listJSONParts(o);
}

/** One element of `items` as toYAML writes it in a list: its sequence entry, indented under the key. */
const entryYAML = (item: unknown) => toYAML({ items: [item] }).slice("items:\n".length);

const PLACEHOLDER = "kite-items-placeholder";
let placeholderEntry: string | undefined;

/** The list written around a one-entry placeholder, then each item's entry in the placeholder's place. */
function* yamlParts(list: { items: object[] }): Generator<string> {
  if (list.items.length === 0) {
    yield toYAML(list);
    return;
  }
  const around = toYAML({ ...list, items: [PLACEHOLDER] });
  const placeholder = (placeholderEntry ??= entryYAML(PLACEHOLDER));
  const at = around.indexOf(placeholder);
  yield around.slice(0, at);
  for (const item of list.items) yield entryYAML(item);
  yield around.slice(at + placeholder.length);
}
