// Server-side apply types every field of the configuration, whatever fieldValidation says: an undeclared
// one fails the apply with upstream's message (and a repeated key is the YAML reader's, see index.ts).
import { messageForKind } from "../protobuf/kinds.ts";
import { dropUnknownFields } from "./unknown.ts";

export interface ApplyTarget { group: string; version: string; kind: string; namespace: string; name: string }

/** Upstream's refusal of a configuration naming fields its kind does not declare, or null. */
export function undeclaredFields(config: Record<string, unknown>, t: ApplyTarget): string | null {
  const plan = messageForKind(t.group ? `${t.group}/${t.version}` : t.version, t.kind);
  if (!plan) return null;
  const found = dropUnknownFields(plan, config, { sorted: true }).map((f) => `.${f.path}: field not declared in schema`);
  if (!found.length) return null;
  const errors = found.length === 1 ? found[0] : `errors:\n  ${found.join("\n  ")}`;
  return `failed to create typed patch object (${t.namespace}/${t.name}; ${t.group}/${t.version}, Kind=${t.kind}): ${errors}`;
}
