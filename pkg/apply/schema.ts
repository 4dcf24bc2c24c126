// The type model server-side apply merges by (upstream's structured-merge-diff schema), read
// from the OpenAPI schemas: objects are maps (granular unless x-kubernetes-map-type: atomic),
// arrays are lists (atomic unless x-kubernetes-list-type or a merge patch strategy says
// otherwise, rule 7), and anything untyped is "deduced": maps granular, lists atomic.
import { SCHEMAS, schemaName } from "../openapi/schemas/index.ts";
import { REF_PREFIX } from "../openapi/schemas/index.ts";
import { presentFields } from "./present.ts";
import { type Obj } from "./value.ts";
import { isMap } from "../util/ismap.ts";

export interface MapType {
  atomic: boolean;
  /** The declared field's type, or undefined for a key that is not a declared field. */
  field(name: string): Atom | undefined;
  /** Type of keys that are not declared fields. */
  elem(): Atom;
  /** A key's schema default (used for list keys a client left out). */
  defaultOf(name: string): unknown;
  /** Fields Go always serializes (non-pointer structs, non-omitempty lists); see present.ts. */
  present?: Readonly<Record<string, "map" | "list">>;
  /** The walkers' node for this type, made once (see node.ts). */
  node?: { kind: "map"; map: MapType };
}

export interface ListType {
  /** atomic: one value; associative: items by key (or by value for a set); separable: by index. */
  rel: "atomic" | "associative" | "separable";
  keys: string[];
  elem(): Atom;
  /** The walkers' node for this type, made once (see node.ts). */
  node?: { kind: "list"; list: ListType };
}

export interface Atom {
  scalar?: true;
  list?: ListType;
  map?: MapType;
}

type Schema = Obj;

const lazy = <T>(make: () => T): (() => T) => {
  let v: T | undefined;
  return () => (v ??= make());
};

// Upstream's two shared untyped types: everything atomic, and the deduced one.
export const UNTYPED_ATOMIC: Atom = { scalar: true };
UNTYPED_ATOMIC.list = { rel: "atomic", keys: [], elem: () => UNTYPED_ATOMIC };
UNTYPED_ATOMIC.map = { atomic: true, field: () => undefined, elem: () => UNTYPED_ATOMIC, defaultOf: () => undefined };
export const DEDUCED: Atom = { scalar: true, list: { rel: "atomic", keys: [], elem: () => UNTYPED_ATOMIC } };
DEDUCED.map = { atomic: false, field: () => undefined, elem: () => DEDUCED, defaultOf: () => undefined };

const SCALAR: Atom = { scalar: true };
const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension";
const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/** Converts OpenAPI schemas to atoms; named schemas are converted once and shared. */
class Converter {
  private named = new Map<string, Atom>();
  constructor(private table: Readonly<Record<string, Schema>>) {}

  byName(name: string): Atom {
    const known = this.named.get(name);
    if (known) return known;
    if (name === QUANTITY) return SCALAR;
    if (name === RAW_EXTENSION) return UNTYPED_ATOMIC;
    const s = this.table[name];
    if (!s) return DEDUCED;
    const atom = this.convert(s, presentFields(name));
    this.named.set(name, atom);
    return atom;
  }

  /** A property/items schema: a reference (possibly wrapped in allOf) or an inline schema. */
  ref(s: Schema): Atom {
    const target = refName(s);
    if (target === undefined) return this.convert(s);
    const atom = this.byName(target);
    const mapType = s["x-kubernetes-map-type"];
    // The referring site may override the referred map's granularity.
    if (atom.map && (mapType === "atomic" || mapType === "granular")) {
      return { ...atom, map: { ...atom.map, atomic: mapType === "atomic", node: undefined } };
    }
    return atom;
  }

  convert(s: Schema, present?: Record<string, "map" | "list">): Atom {
    const type = typeof s.type === "string" ? s.type : Array.isArray(s.type) ? String(s.type[0]) : "";
    if (type === "object") return { map: this.mapOf(s, present) };
    if (type === "array") return { list: this.listOf(s) };
    if (type === "") {
      // Untyped (int-or-string, preserve-unknown-fields without a type, ...): any shape.
      return { scalar: true, list: this.listOf(s), map: this.mapOf(s, present) };
    }
    return SCALAR;
  }

  private mapOf(s: Schema, present?: Record<string, "map" | "list">): MapType {
    const props = isMap(s.properties) ? (s.properties as Record<string, Schema>) : {};
    const cache = new Map<string, Atom>();
    const ap = s.additionalProperties;
    // Undeclared keys of a struct have no type upstream; they are kept, so deduce them.
    const elem = lazy((): Atom => (isMap(ap) ? this.ref(ap) : DEDUCED));
    return {
      atomic: s["x-kubernetes-map-type"] === "atomic",
      field: (name) => {
        let a = cache.get(name);
        if (a === undefined && Object.hasOwn(props, name)) cache.set(name, (a = this.ref(props[name])));
        return a;
      },
      elem,
      defaultOf: (name) => (Object.hasOwn(props, name) ? (props[name] as Schema).default : undefined),
      present,
    };
  }

  private listOf(s: Schema): ListType {
    const items = s.items;
    const elem = lazy((): Atom => (isMap(items) ? this.ref(items) : UNTYPED_ATOMIC));
    const listType = s["x-kubernetes-list-type"];
    if (listType === "map") {
      const keys = Array.isArray(s["x-kubernetes-list-map-keys"]) ? (s["x-kubernetes-list-map-keys"] as string[]) : [];
      return { rel: "associative", keys, elem };
    }
    if (listType === "set") return { rel: "associative", keys: [], elem };
    if (listType === "atomic") return { rel: "atomic", keys: [], elem };
    const strategy = String(s["x-kubernetes-patch-strategy"] ?? "");
    if (strategy.split(",").includes("merge")) {
      const key = s["x-kubernetes-patch-merge-key"];
      return { rel: "associative", keys: typeof key === "string" ? [key] : [], elem };
    }
    return { rel: "atomic", keys: [], elem };
  }
}

function refName(s: Schema): string | undefined {
  const direct = typeof s.$ref === "string" ? s.$ref : undefined;
  const wrapped = Array.isArray(s.allOf) && s.allOf.length === 1 && isMap(s.allOf[0]) && typeof s.allOf[0].$ref === "string"
    ? (s.allOf[0].$ref as string)
    : undefined;
  const ref = direct ?? wrapped;
  if (ref === undefined) return undefined;
  return ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref.slice(ref.lastIndexOf("/") + 1);
}

const builtin = new Converter(SCHEMAS);

/** The group and version of an apiVersion string ("v1" is the core group). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  return i < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

const roots = new Map<string, Atom>();
const customRoots = new WeakMap<object, Atom>();
let deducedRoot: Atom | undefined;

/**
 * The type of a whole object of `kind`. Built-in kinds come from the OpenAPI schemas; other
 * kinds use `custom` (a CRD version's openAPIV3Schema) when given, else are deduced. Either
 * way `metadata` is typed as ObjectMeta, as upstream does for custom resources.
 */
export function rootAtom(kind: string, apiVersion: string, custom?: object): Atom {
  const { group, version } = splitApiVersion(apiVersion);
  const name = schemaName(group, version, kind);
  if (!custom && Object.hasOwn(SCHEMAS, name)) {
    let atom = roots.get(name);
    if (!atom) roots.set(name, (atom = builtinRoot(name)));
    return atom;
  }
  if (!custom) return (deducedRoot ??= customRoot(undefined));
  let atom = customRoots.get(custom);
  if (!atom) customRoots.set(custom, (atom = customRoot(custom)));
  return atom;
}

function customRoot(custom: object | undefined): Atom {
  const map = (custom && isMap(custom) ? builtin.convert(custom).map : undefined) ?? DEDUCED.map!;
  const meta = builtin.byName(OBJECT_META);
  const field = (n: string): Atom | undefined => (n === "metadata" ? meta : n === "apiVersion" || n === "kind" ? SCALAR : map.field(n));
  return { map: { ...map, atomic: false, field, node: undefined } };
}

// A built-in kind's Go struct always carries metadata, and spec/status where it has them.
function builtinRoot(name: string): Atom {
  const atom = builtin.byName(name);
  const map = atom.map;
  if (!map) return atom;
  const present: Record<string, "map" | "list"> = { ...map.present, metadata: "map" };
  for (const f of ["spec", "status"]) if (map.field(f)) present[f] = "map";
  return { map: { ...map, present, node: undefined } };
}

/** The type of key `name` in a map: its declared field, else the element type. */
export function childOf(map: MapType, name: string): Atom {
  return map.field(name) ?? map.elem();
}
