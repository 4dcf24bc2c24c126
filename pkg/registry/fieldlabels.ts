// Which fields a kind's field selectors may name, as upstream's field label conversion functions
// accept them, and the values an object has for them.
import { badRequest } from "../api/status.ts";
import type { Obj, ResourceDef } from "./types.ts";

const METADATA = ["metadata.name", "metadata.namespace"];

export interface FieldLabelRules {
  /** The field a selector's label selects; throws upstream's 400 for a label the kind does not support. */
  convert(label: string): string;
  /** Every selectable field of an object and its value. */
  values(obj: Obj): Record<string, string>;
}

export function fieldLabelRules(def: ResourceDef): FieldLabelRules {
  const own = def.strategy?.fieldLabels;
  const meta = (o: Obj) => ({ "metadata.name": o.metadata?.name ?? "", "metadata.namespace": o.metadata?.namespace ?? "" });
  if (!own) {
    // Kinds with no conversion of their own get the scheme's default one.
    return {
      convert(label) {
        if (METADATA.includes(label)) return label;
        throw badRequest(`${JSON.stringify(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
      },
      values: meta,
    };
  }
  const supported = new Set([...(own.metadata ?? METADATA), ...Object.keys(own.values({}))]);
  return {
    convert(label) {
      if (supported.has(label)) return label;
      const alias = own.aliases?.[label];
      if (alias) return alias;
      throw badRequest(own.unsupported?.(label) ?? `field label not supported: ${label}`);
    },
    values: (o) => ({ ...meta(o), ...own.values(o) }),
  };
}
