// Rows of kinds whose fields are the same at both versions: only apiVersion changes.
import type { Obj } from "../../registry/types.ts";
import type { Deprecation, VersionRow } from "../table.ts";

const withApiVersion = (obj: Obj, apiVersion: string): Obj => {
  const { kind, apiVersion: _a, ...rest } = obj;
  return { kind, apiVersion, ...rest };
};

/** One row per kind of `group` at `version`, served, over the same kinds at `hubVersion`. */
export function sameShape(group: string, version: string, hubVersion: string, kinds: string[], deprecated?: (kind: string) => Deprecation): VersionRow[] {
  return kinds.map((kind) => ({
    group, version, kind, hub: { group, version: hubVersion }, served: true, sameFields: true,
    ...(deprecated ? { deprecated: deprecated(kind) } : {}),
    toHub: (o) => withApiVersion(o, `${group}/${hubVersion}`),
    fromHub: (o) => withApiVersion(o, `${group}/${version}`),
  }));
}

/** Upstream's deprecation of a beta replaced by the same kind at the hub version. */
export const replacedBy = (group: string, hubVersion: string, deprecatedIn: string, removedIn: string) =>
  (kind: string): Deprecation => ({ in: deprecatedIn, removedIn, replacement: `${group}/${hubVersion} ${kind}` });
