// The warning every request to a deprecated version gets (upstream's wording, from the release that
// deprecated it, the release that removes it and what replaces it).
import { type ResourceDef, apiVersionOf } from "../registry/types.ts";

export function deprecationWarning(def: ResourceDef): string {
  const d = def.deprecated!;
  let text = `${apiVersionOf(def)} ${def.kind} is deprecated in v${d.in}+`;
  if (d.removedIn) text += `, unavailable in v${d.removedIn}+`;
  if (d.replacement) text += `; use ${d.replacement}`;
  return text;
}
