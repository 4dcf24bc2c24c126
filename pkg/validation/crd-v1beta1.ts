// A v1beta1 CustomResourceDefinition's own shape, as upstream checks its internal object, which keeps
// v1beta1's top-level `version`, `validation`, `subresources` and `additionalPrinterColumns` beside the
// per-version ones. The stored v1 form merges them, so these run on the object as written (./index.ts).
import type { Obj } from "../registry/types.ts";
import { Printed } from "./field.ts";
import { dns1035Label } from "./names.ts";
import { isMap, list, run } from "./rules.ts";

/** [top-level field, per-version field, how upstream names the setting in the two messages]. */
const SETTINGS: [string, string, string, string][] = [
  ["validation", "schema", "schemas", "validation"],
  ["subresources", "subresources", "subresources", "subresources"],
  ["additionalPrinterColumns", "additionalPrinterColumns", "additionalPrinterColumns", "additionalPrinterColumns"],
];

/** Set as Go sees it: a pointer that is not nil, or (printer columns) a list that is not empty. */
const isSet = (v: unknown) => (Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null);

export const customResourceDefinitionV1beta1 = (o: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const versions = list(sp.versions);
  const shown = new Printed(JSON.stringify(versions));
  for (const [top, per, plural, topName] of SETTINGS) {
    if (isSet(sp[top]) && versions.some((v) => isSet(v?.[per]))) e.forbidden(`spec.${top}`, `top-level and per-version ${plural} are mutually exclusive`);
    const first = versions[0]?.[per];
    if (versions.length && versions.every((v) => isSet(v?.[per]) && Bun.deepEquals(v[per], first))) {
      e.invalid("spec.versions", shown, `per-version ${plural} may not all be set to identical values (top-level ${topName} should be used instead)`);
    }
  }
  const version = sp.version;
  if (typeof version === "string" && version) {
    const errs = dns1035Label(version);
    if (errs.length) e.invalid("spec.version", version, errs.join(","));
    if (versions.length && versions[0]?.name !== version) e.invalid("spec.version", version, "must match the first version in spec.versions");
  }
});
