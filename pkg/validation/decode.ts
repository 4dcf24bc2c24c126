// Values upstream could not even decode into its Go types: a 400, not a 422 cause.
import { badRequest } from "../api/status.ts";
import type { Obj } from "../registry/types.ts";

/** Thrown deep inside a validator; the kind's entry point turns it into upstream's 400. */
export class Undecodable extends Error {}

/** The 400 upstream's decoder answers: `Deployment in version "v1" cannot be handled as a Deployment: ...`. */
export function decodeFailure(obj: Obj, detail: string) {
  const version = String(obj.apiVersion ?? "").split("/").pop();
  return badRequest(`${obj.kind} in version "${version}" cannot be handled as a ${obj.kind}: ${detail}`);
}

const jsonType = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "object" ? "object" : typeof v);
/** A value of the wrong JSON type for its Go field, in encoding/json's words. */
export const unmarshal = (v: unknown, path: string, goType: string) =>
  new Undecodable(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${path.replace(/\[\d+\]/g, "")} of type ${goType}`);

/** An optional integer field: undefined when absent, else the number (a 400 for a string, a fraction, ...). */
export function int(v: unknown, path: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v)) throw unmarshal(v, path, "int32");
  return v;
}

/** An optional string field. */
export function str(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw unmarshal(v, path, "string");
  return v;
}

/** An optional list: [] when absent. */
export function list<T = Obj>(v: unknown, path: string): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw unmarshal(v, path, "[]");
  return v as T[];
}

/** An optional object: {} when absent. */
export function obj(v: unknown, path: string): Obj {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw unmarshal(v, path, "struct");
  return v as Obj;
}
