// metadata.managedFields in and out. A manager is identified as upstream does: by name and
// operation, plus apiVersion for Update (an applier keeps one entry whatever version it
// applies with). The identifier is the JSON of those fields, which also orders conflicts.
import { FieldSet } from "./fieldset.ts";
import { ApplyError, type Obj, compareStrings, goJSON } from "./value.ts";
import { isMap } from "../util/ismap.ts";

export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

export interface ManagerId {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion?: string;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/** The identifier of a manager: the JSON of a ManagedFieldsEntry holding only these fields. */
export function managerKey(manager: string, operation: "Apply" | "Update", apiVersion: string): string {
  let s = `{"manager":${goJSON(manager)},"operation":"${operation}"`;
  if (operation === "Update" && apiVersion) s += `,"apiVersion":${goJSON(apiVersion)}`;
  return `${s}}`;
}

export function parseManagerKey(key: string): ManagerId {
  try {
    const o = JSON.parse(key) as Partial<ManagerId>;
    if (typeof o.manager === "string" && (o.operation === "Apply" || o.operation === "Update")) return o as ManagerId;
  } catch {
    // not one of ours
  }
  return { manager: key, operation: "Update" };
}

const isEmptyEntry = (e: unknown): boolean =>
  isMap(e) && Object.values(e).every((v) => v === null || v === undefined || v === "" || (isMap(v) && Object.keys(v).length === 0));

/** Rule 11: a list holding exactly one empty entry clears managedFields. */
export function isResetManagedFields(list: unknown): boolean {
  return Array.isArray(list) && list.length === 1 && isEmptyEntry(list[0]);
}

/** Reads managedFields; an invalid entry fails the whole list, with upstream's messages. */
export function decodeManagedFields(list: unknown): Managed {
  const m = emptyManaged();
  if (list === undefined || list === null) return m;
  if (!Array.isArray(list)) throw new ApplyError("managedFields must be a list");
  list.forEach((e, i) => {
    if (!isMap(e)) throw new ApplyError(`managed fields entry ${i} must be an object`);
    const operation = e.operation;
    if (operation !== "Apply" && operation !== "Update") throw new ApplyError("operation must be `Apply` or `Update`");
    const apiVersion = typeof e.apiVersion === "string" ? e.apiVersion : "";
    if (!apiVersion) throw new ApplyError("apiVersion must not be empty");
    if (e.fieldsType === undefined || e.fieldsType === "") throw new ApplyError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== "FieldsV1") throw new ApplyError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const key = managerKey(typeof e.manager === "string" ? e.manager : "", operation, apiVersion);
    m.fields.set(key, { set: FieldSet.fromFieldsV1(e.fieldsV1), apiVersion, applied: operation === "Apply" });
    m.times.set(key, typeof e.time === "string" ? e.time : undefined);
  });
  return m;
}

const seconds = (t: string | undefined): number => {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/** Writes managedFields: Apply entries first, then by time, manager and apiVersion. */
export function encodeManagedFields(m: Managed): Obj[] | undefined {
  if (m.fields.size === 0) return undefined;
  const entries: Obj[] = [];
  for (const [key, vs] of m.fields) {
    const id = parseManagerKey(key);
    const e: Obj = { manager: id.manager, operation: vs.applied ? "Apply" : id.operation, apiVersion: vs.apiVersion };
    const time = m.times.get(key);
    if (time) e.time = time;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = vs.set.toFieldsV1();
    entries.push(e);
  }
  const str = (e: Obj, k: string) => String(e[k] ?? "");
  return entries.sort((p, q) =>
    compareStrings(str(p, "operation"), str(q, "operation")) ||
    seconds(p.time as string | undefined) - seconds(q.time as string | undefined) ||
    compareStrings(str(p, "manager"), str(q, "manager")) ||
    compareStrings(str(p, "apiVersion"), str(q, "apiVersion")));
}

export function copyManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

export function sameFields(a: Map<string, VersionedSet>, b: Map<string, VersionedSet>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, x] of a) {
    const y = b.get(k);
    if (!y || y.apiVersion !== x.apiVersion || y.applied !== x.applied || !y.set.equals(x.set)) return false;
  }
  return true;
}

const MAX_UPDATE_MANAGERS = 10;
const ANCIENT = "ancient-changes";

/**
 * Keeps at most ten Update entries: the oldest are folded, per apiVersion, into one
 * "ancient-changes" entry (the first of a version is kept until a second one arrives).
 */
export function capUpdateManagers(m: Managed): void {
  const updaters = [...m.fields].filter(([, vs]) => !vs.applied).map(([k]) => k);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort((a, b) => seconds(m.times.get(a)) - seconds(m.times.get(b)) || compareStrings(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const key = updaters[i];
    const vs = m.fields.get(key)!;
    const time = m.times.get(key);
    const bucket = managerKey(ANCIENT, "Update", vs.apiVersion);
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, key);
      continue;
    }
    if (!m.fields.has(bucket)) {
      m.fields.set(bucket, m.fields.get(first)!);
      m.fields.delete(first);
    }
    const into = m.fields.get(bucket)!;
    m.fields.set(bucket, { set: vs.set.union(into.set), apiVersion: vs.apiVersion, applied: false });
    m.fields.delete(key);
    m.times.set(bucket, time);
    length--;
  }
}
