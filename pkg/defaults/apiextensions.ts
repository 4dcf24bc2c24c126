// Defaults of apiextensions.k8s.io/v1 CustomResourceDefinitions.
import type { Obj } from "../registry/types.ts";
import { child, fill, sub } from "./fill.ts";
import { defaultClientConfig } from "./webhooks.ts";

export function defaultCRD(crd: Obj): void {
  const sp = child(crd, "spec");
  const names = child(sp, "names");
  if (typeof names.kind === "string" && names.kind) {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  fill(sp, { conversion: { strategy: "None" } });
  defaultClientConfig(sub(sub(sp.conversion, "webhook"), "clientConfig"));
}
