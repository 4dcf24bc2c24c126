// Small pieces the rows share: copying an object under another apiVersion, renaming keys in place (so a
// converted manifest keeps its field order), annotations that carry a field a version lacks, and a row
// builder whose conversions default to "same fields, new apiVersion".
import type { Obj } from "../../registry/types.ts";
import type { Deprecation, GroupVersion, Notes, VersionRow } from "../table.ts";

export const gvString = (gv: GroupVersion) => (gv.group ? `${gv.group}/${gv.version}` : gv.version);

/** A deep copy of `obj` at another apiVersion (and kind), apiVersion and kind first. */
export function retag(obj: Obj, gv: GroupVersion, kind: string = obj.kind): Obj {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: gvString(gv), kind, ...structuredClone(rest) };
}

/** `obj` with key `from` renamed to `to` at the same position (nothing when `from` is absent). */
export function renameKey(obj: Obj, from: string, to: string, value: (v: any) => any = (v) => v): Obj {
  if (!(from in obj)) return obj;
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === from) out[to] = value(v);
    else if (k !== to) out[k] = v;
  }
  return out;
}

/** Sets `obj[key]` to `v` only when it is absent (or null); says whether it did. */
export function fill(obj: Obj, key: string, v: unknown): boolean {
  if (obj[key] !== undefined && obj[key] !== null) return false;
  obj[key] = v;
  return true;
}

export function setAnnotation(obj: Obj, key: string, value: string) {
  obj.metadata ??= {};
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [key]: value };
}

/** Removes and returns an annotation; drops an annotations map left empty. */
export function takeAnnotation(obj: Obj, key: string): string | undefined {
  const a = obj.metadata?.annotations;
  if (!a || !(key in a)) return undefined;
  const v = a[key];
  delete a[key];
  if (Object.keys(a).length === 0) delete obj.metadata.annotations;
  return v;
}

export type Convert = (obj: Obj, notes: Notes) => Obj;

export interface RowSpec {
  group: string;
  version: string;
  kind: string;
  hub: GroupVersion & { kind?: string };
  served: boolean;
  deprecated?: Deprecation;
  /** Changes after the copy to the hub's apiVersion (the copy is the rule's input and may be changed). */
  toHub?: Convert;
  /** Changes after the copy to this row's apiVersion. */
  fromHub?: Convert;
}

/** A row: both directions copy the object under the other apiVersion, then apply the row's changes. */
export function row(spec: RowSpec): VersionRow {
  const self: GroupVersion = { group: spec.group, version: spec.version };
  const hubKind = spec.hub.kind ?? spec.kind;
  return {
    group: spec.group, version: spec.version, kind: spec.kind, hub: spec.hub, served: spec.served, deprecated: spec.deprecated,
    toHub: (obj, notes) => (spec.toHub ?? ((o) => o))(retag(obj, spec.hub, hubKind), notes),
    fromHub: (obj, notes) => (spec.fromHub ?? ((o) => o))(retag(obj, self, spec.kind), notes),
  };
}

/** Rows of several kinds that share a version and a hub version, each with its own changes. */
export function rows(base: Omit<RowSpec, "kind" | "hub" | "toHub" | "fromHub"> & { hub: GroupVersion },
  kinds: Record<string, Pick<RowSpec, "toHub" | "fromHub" | "deprecated"> & { hubKind?: string }>): VersionRow[] {
  return Object.entries(kinds).map(([kind, k]) => row({
    ...base, kind, hub: k.hubKind ? { ...base.hub, kind: k.hubKind } : base.hub,
    deprecated: k.deprecated ?? base.deprecated, toHub: k.toHub, fromHub: k.fromHub,
  }));
}
