// Each built-in kind's validation, found by kind and group; the generic registry calls it on every write.
import type { FieldCause, Obj } from "../registry/types.ts";
import { WORKLOAD_KINDS } from "./kinds-workloads.ts";
import { OTHER_KINDS } from "./kinds-other.ts";
import { decodeFailure, Undecodable } from "./decode.ts";
import { customResourceDefinitionV1beta1 } from "./crd-v1beta1.ts";

/**
 * Validates a new object (old undefined) or an update; returns 422 causes. May throw a 400 for what upstream
 * could not decode. `version` is the version the request was made at (the object is at its kind's hub);
 * `sent` is the object at that version, for checks the hub's form cannot carry (an HPA's v2 metrics).
 */
export type KindValidator = (obj: Obj, old?: Obj, version?: string, sent?: Obj) => FieldCause[];

/** Keyed `Kind` for the core group, `Kind.group` for the others (`Deployment.apps`). */
export const KIND_VALIDATORS: Record<string, KindValidator> = { ...WORKLOAD_KINDS, ...OTHER_KINDS };

/** A value upstream could not even decode (a string where a number goes, a bad quantity) is a 400, not a cause. */
export function validateKind(group: string, kind: string, obj: Obj, old?: Obj, version?: string, sent: Obj = obj): FieldCause[] {
  try {
    return KIND_VALIDATORS[group ? `${kind}.${group}` : kind]?.(obj, old, version, sent) ?? [];
  } catch (e) {
    if (e instanceof Undecodable) throw decodeFailure(obj, e.message);
    throw e;
  }
}

/**
 * Checks of a served version's own shape that the trip through its hub (defaulting there) merges away:
 * run on the object as written, before defaults. Keyed `Kind.group/version`.
 */
const AS_WRITTEN: Record<string, (obj: Obj) => FieldCause[]> = {
  "CustomResourceDefinition.apiextensions.k8s.io/v1beta1": customResourceDefinitionV1beta1,
};

export const validateAsWritten = (group: string, version: string, kind: string, obj: Obj): FieldCause[] =>
  AS_WRITTEN[`${group ? `${kind}.${group}` : kind}/${version}`]?.(obj) ?? [];
