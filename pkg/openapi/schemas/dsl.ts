// A tiny DSL for hand-written OpenAPI v3 schemas. Names are written short ("core.Pod",
// "meta.ObjectMeta") and expanded to upstream's full names ("io.k8s.api.core.v1.Pod").

export type Schema = { [key: string]: unknown };
export type Table = Record<string, Schema>;

export const REF_PREFIX = "#/components/schemas/";

const PREFIXES: Record<string, string> = {
  meta: "io.k8s.apimachinery.pkg.apis.meta.v1.",
  resource: "io.k8s.apimachinery.pkg.api.resource.",
  intstr: "io.k8s.apimachinery.pkg.util.intstr.",
  runtime: "io.k8s.apimachinery.pkg.runtime.",
  apiext: "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.",
};

/** "core.Pod" → "io.k8s.api.core.v1.Pod"; a name starting with "io." is kept. */
export function full(short: string): string {
  if (short.startsWith("io.")) return short;
  const dot = short.indexOf(".");
  const alias = short.slice(0, dot);
  return (PREFIXES[alias] ?? `io.k8s.api.${alias}.v1.`) + short.slice(dot + 1);
}

/** Expand a table's short keys under one alias: pkg("core", { Pod }) → { "io.k8s.api.core.v1.Pod": ... }. */
export function pkg(alias: string, table: Table): Table {
  const out: Table = {};
  for (const [k, v] of Object.entries(table)) out[full(`${alias}.${k}`)] = v;
  return out;
}

const typed = (type: string, d: string, x?: Schema): Schema => ({ description: d, type, ...x });
type Items = Schema | string;
const item = (i: Items): Schema => (typeof i === "string" ? ref(i) : i);

export const str = (d: string, x?: Schema) => typed("string", d, x);
export const int = (d: string, x?: Schema) => typed("integer", d, { format: "int32", ...x });
export const i64 = (d: string, x?: Schema) => typed("integer", d, { format: "int64", ...x });
export const num = (d: string) => typed("number", d, { format: "double" });
export const bool = (d: string) => typed("boolean", d);
export const bytes = (d: string, x?: Schema) => typed("string", d, { format: "byte", ...x });
export const time = (d: string) => ref("meta.Time", d);
export const enm = (d: string, values: string[]) => str(d, { enum: values });

/** A reference; with a description it is wrapped in allOf, as upstream does. */
export function ref(name: string, d?: string, x?: Schema): Schema {
  const r = { $ref: REF_PREFIX + full(name) };
  return d === undefined ? { ...r, ...x } : { description: d, allOf: [r], ...x };
}

export const arr = (items: Items, d: string, x?: Schema) => typed("array", d, { items: item(items), ...x });
export const strs = (d: string, x?: Schema) => arr({ type: "string", default: "" }, d, x);
export const map = (values: Items, d: string, x?: Schema) => typed("object", d, { additionalProperties: item(values), ...x });
export const strMap = (d: string, x?: Schema) => map({ type: "string", default: "" }, d, x);
export const quantities = (d: string) => map("resource.Quantity", d);

/** An object with named properties; `req` lists required ones. */
export function obj(d: string, properties: Table, req?: string[], x?: Schema): Schema {
  return typed("object", d, { properties, ...(req?.length ? { required: req } : {}), ...x });
}
/** An object whose fields are not described: anything is kept. */
export const free = (d: string) => typed("object", d, { "x-kubernetes-preserve-unknown-fields": true });

// List semantics (read by strategic merge patch and server-side apply).
export const ATOMIC: Schema = { "x-kubernetes-list-type": "atomic" };
export const SET: Schema = { "x-kubernetes-list-type": "set" };
export const MAP_ATOMIC: Schema = { "x-kubernetes-map-type": "atomic" };
/** A list of objects keyed by `keys`, merged by the first key under strategic merge patch. */
export const listMap = (keys: string[], strategy: string | null = "merge"): Schema => ({
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": keys,
  ...(strategy ? { "x-kubernetes-patch-merge-key": keys[0], "x-kubernetes-patch-strategy": strategy } : {}),
});
/** A list of primitives merged as a set. */
export const mergeSet: Schema = { "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge" };

/** The envelope every kind shares. */
export const TYPE_META: Table = {
  apiVersion: str("Versioned schema of this representation, e.g. `v1` or `apps/v1`."),
  kind: str("The type of this object, in CamelCase."),
};

/** A top-level kind: apiVersion, kind, metadata, then its own fields. */
export function kind(d: string, props: Table, req?: string[]): Schema {
  return obj(d, { ...TYPE_META, metadata: ref("meta.ObjectMeta", "Standard object metadata: name, namespace, labels, annotations, ..."), ...props }, req);
}

/** A kind with spec and (optionally) status sub-objects. */
export function specStatus(d: string, spec: string, status?: string, specRequired = false): Schema {
  return kind(d, {
    spec: ref(spec, "The desired state, as written by the user."),
    ...(status ? { status: ref(status, "The observed state, written by the system; read-only for users.") } : {}),
  }, specRequired ? ["spec"] : undefined);
}

/** A status condition with the usual fields; `times` adds extra timestamps (e.g. lastProbeTime). */
export function condition(d: string, times: string[] = []): Schema {
  const t: Table = {};
  const what: Record<string, string> = { lastProbeTime: "probed", lastUpdateTime: "updated", lastHeartbeatTime: "reported by its owner" };
  for (const n of times) t[n] = time(`When the condition was last ${what[n] ?? "seen"}.`);
  return obj(d, {
    type: str("Condition type, e.g. Ready or Available."),
    status: str("True, False or Unknown."),
    ...t,
    lastTransitionTime: time("When the status last changed."),
    reason: str("Machine-readable CamelCase reason for the last transition."),
    message: str("Human-readable details of the last transition."),
  }, ["type", "status"]);
}

/** `conditions` field: a list of `name` items keyed by type. */
export const conditions = (name: string, strategy: string | null = "merge") =>
  arr(name, "Current observations of the object's state.", listMap(["type"], strategy));
