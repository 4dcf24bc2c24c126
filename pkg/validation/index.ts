// Each built-in kind's validation, found by kind and group; the generic registry calls it on every write.
import type { FieldCause, Obj } from "../registry/types.ts";
import { WORKLOAD_KINDS } from "./kinds-workloads.ts";
import { OTHER_KINDS } from "./kinds-other.ts";

/** Validates a new object (old undefined) or an update; returns 422 causes. May throw a 400 for what upstream could not decode. */
export type KindValidator = (obj: Obj, old?: Obj) => FieldCause[];

/** Keyed `Kind` for the core group, `Kind.group` for the others (`Deployment.apps`). */
const BY_KIND: Record<string, KindValidator> = { ...WORKLOAD_KINDS, ...OTHER_KINDS };

export function validateKind(group: string, kind: string, obj: Obj, old?: Obj): FieldCause[] {
  return BY_KIND[group ? `${kind}.${group}` : kind]?.(obj, old) ?? [];
}
