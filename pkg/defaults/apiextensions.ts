// Defaults of apiextensions.k8s.io/v1 CustomResourceDefinitions.
import type { Obj } from "../registry/types.ts";
import { child, fill, items, sub } from "./fill.ts";
import { defaultClientConfig } from "./webhooks.ts";

/** A definition has stored objects in its storage version from the start. */
export function defaultStoredVersions(crd: Obj): void {
  const st = child(crd, "status");
  if (Array.isArray(st.storedVersions) && st.storedVersions.length) return;
  const storage = items(sub(crd, "spec"), "versions").find((v) => v.storage === true);
  if (storage) st.storedVersions = [storage.name];
}

export function defaultCRD(crd: Obj): void {
  const sp = child(crd, "spec");
  const names = child(sp, "names");
  if (typeof names.kind === "string" && names.kind) {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  fill(sp, { conversion: { strategy: "None" } });
  defaultClientConfig(sub(sub(sp.conversion, "webhook"), "clientConfig"));
  defaultStoredVersions(crd);
}
