// Unknown fields at any depth of a built-in object, found along the protobuf message plans (they hold every
// field of every message with its JSON name) and removed, as decoding into upstream's typed objects drops
// them. Values whose Go types decode themselves (RawExtension, FieldsV1, apiextensions JSON, quantities,
// times...) are the messages' "specials": nothing inside them is unknown.
import type { FieldPlan, MessagePlan } from "../protobuf/schema.ts";
import { type KeyOrder, joinPath } from "./jsonrepeats.ts";
import { isMap } from "../util/ismap.ts";

type Obj = Record<string, unknown>;

const byJson = new WeakMap<MessagePlan, Map<string, FieldPlan>>();

/** A message's fields by JSON key, inline messages' fields included. */
function fieldsOf(plan: MessagePlan): Map<string, FieldPlan> {
  let m = byJson.get(plan);
  if (!m) {
    const out = new Map<string, FieldPlan>();
    const add = (p: MessagePlan) => { for (const f of p.fields) f.inline && f.msg ? add(f.msg) : out.set(f.json, f); };
    add(plan);
    byJson.set(plan, (m = out));
  }
  return m;
}

const TYPE_META = new Set(["apiVersion", "kind"]);

export interface WalkOptions {
  /** Visit keys in sorted order (the decoded text was YAML, or a patched object: upstream re-encodes those
   * with sorted keys before decoding). */
  sorted?: boolean;
  /** Key order of JSON objects that repeat a key: their repeats are reported where met. */
  order?: KeyOrder;
}

/** An unknown field, or (with `order`) a repeated known one, by its path (`spec.template.spec.containers[0].x`). */
export interface Finding { unknown: boolean; path: string }

/** Upstream's words for a finding. */
export const describeFinding = (f: Finding) => `${f.unknown ? "unknown" : "duplicate"} field "${f.path}"`;

/**
 * Removes the unknown fields of `obj` (a whole object of message `plan`) and returns them, with `order`
 * the repeats of known fields among them, in document order.
 */
export function dropUnknownFields(plan: MessagePlan, obj: Obj, o: WalkOptions = {}): Finding[] {
  const out: Finding[] = [];
  new Walk(out, o).message(plan, obj, "", TYPE_META);
  return out;
}

class Walk {
  constructor(private out: Finding[], private o: WalkOptions) {}

  message(plan: MessagePlan, obj: Obj, path: string, extra?: Set<string>) {
    const fields = fieldsOf(plan);
    const order = this.o.order?.get(obj);
    if (order) return this.repeating(fields, obj, path, order, extra);
    const keys = this.o.sorted ? Object.keys(obj).sort() : Object.keys(obj);
    for (const k of keys) {
      const f = fields.get(k);
      if (f) this.field(f, obj[k], path, k);
      else if (!extra?.has(k)) this.unknown(obj, path, k);
    }
  }

  /** An object that repeats keys: a repeat of a known key is reported where met, an unknown key once. */
  private repeating(fields: Map<string, FieldPlan>, obj: Obj, path: string, order: string[], extra?: Set<string>) {
    const left = new Map<string, number>();
    for (const k of order) left.set(k, (left.get(k) ?? 0) + 1);
    const met = new Set<string>();
    for (const k of order) {
      const n = left.get(k)! - 1;
      left.set(k, n);
      const f = fields.get(k);
      const known = f || extra?.has(k);
      if (met.has(k)) { if (known) this.out.push({ unknown: false, path: joinPath(path, k) }); } else {
        met.add(k);
        if (!known && Object.hasOwn(obj, k)) this.unknown(obj, path, k);
      }
      // the value parsed is the last one: its fields are reported where it was met
      if (f && n === 0 && Object.hasOwn(obj, k)) this.field(f, obj[k], path, k);
    }
  }

  private unknown(obj: Obj, path: string, k: string) {
    this.out.push({ unknown: true, path: joinPath(path, k) });
    delete obj[k];
  }

  private field(f: FieldPlan, v: unknown, path: string, k: string) {
    if (typeof v !== "object" || v === null) return;
    const msg = f.msg;
    const at = joinPath(path, k);
    if (!msg) { if (this.o.order) repeatsIn(v, this.o.order, at, this.out); return; }
    if (msg.special) return;
    if (f.map) {
      if (!isMap(v)) return;
      const order = this.o.order?.get(v);
      if (order) reportRepeats(order, at, this.out);
      const keys = this.o.sorted ? Object.keys(v).sort() : Object.keys(v);
      for (const key of keys) { const x = v[key]; if (isMap(x)) this.message(msg, x, joinPath(at, key)); }
    } else if (f.repeated) {
      // a null item of a list of objects decodes as upstream's zero value: an empty object
      if (Array.isArray(v)) for (let i = 0; i < v.length; i++) { const x = v[i] ?? (v[i] = {}); if (isMap(x)) this.message(msg, x, `${at}[${i}]`); }
    } else if (isMap(v)) this.message(msg, v, at);
  }
}

function reportRepeats(keys: string[], path: string, out: Finding[]) {
  const met = new Set<string>();
  for (const k of keys) { if (met.has(k)) out.push({ unknown: false, path: joinPath(path, k) }); met.add(k); }
}

/** The repeats inside a map or list of no message (a map of strings), in document order. */
function repeatsIn(v: unknown, order: KeyOrder, path: string, out: Finding[]) {
  if (Array.isArray(v)) { v.forEach((x, i) => repeatsIn(x, order, `${path}[${i}]`, out)); return; }
  if (!isMap(v)) return;
  const keys = order.get(v);
  if (keys) reportRepeats(keys, path, out);
}
