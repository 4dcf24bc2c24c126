// The one conversion table: for each kind, how an object at a non-hub version goes to and from the
// kind's hub (the version the server stores and serves as stable). The API server serves every row with
// `served`, and `kite convert` rewrites manifests with every row, served or removed.
import type { Obj } from "../registry/types.ts";

export interface GroupVersion { group: string; version: string }

/** Where a conversion reports what it could not carry: `field` is the object's path (`spec.rules[0].http`). */
export interface Notes {
  /** The object converts, but a meaning changes (PDB's empty selector). */
  warn(field: string, message: string): void;
  /** A required field the target version needs cannot be invented. */
  error(field: string, message: string): void;
  /**
   * True when the result must be valid at its version (`kite convert` writes manifests to create). When
   * unset (the API server), rows report no error for what upstream's server accepts at the old version and
   * keeps (a v1beta1 webhook's sideEffects Unknown, a v1beta1 CRD without a schema).
   */
  strict?: boolean;
}

export interface Deprecation {
  /** The release that deprecated it, as upstream prints it: "1.14". */
  in: string;
  /** The release that removes (or removed) it: "1.22". */
  removedIn: string;
  /** What to use instead: "networking.k8s.io/v1 Ingress". */
  replacement?: string;
}

/** One kind at one non-hub version. Conversions are pure: they return new objects, and set apiVersion. */
export interface VersionRow extends GroupVersion {
  kind: string;
  /** The kind's hub version (a kind may change group: extensions/v1beta1 Ingress → networking.k8s.io/v1). */
  hub: GroupVersion & { kind?: string };
  /** False for versions removed before v1.21: `kite convert` reads and writes them, the server answers 404. */
  served: boolean;
  deprecated?: Deprecation;
  /**
   * The version's fields, their JSON and their protobuf numbers are the hub's (only apiVersion differs):
   * the server encodes it with the hub's protobuf message and describes it with the hub's schema.
   */
  sameFields?: boolean;
  /**
   * Annotations of the hub that carry this version's status (an HPA's current metrics and conditions on
   * autoscaling/v1): a write of the hub's status sets them, a write of the rest keeps them.
   */
  statusAnnotations?: string[];
  toHub(obj: Obj, notes: Notes): Obj;
  fromHub(obj: Obj, notes: Notes): Obj;
}
