// A resource type is a declaration (this shape) plus optional small hooks (a Strategy).
// Every generic part (routes, discovery, registry, storage keys, OpenAPI) reads these.
import type { UserInfo } from "../auth/user.ts";
import type { Printer } from "../table/columns.ts";

export type Obj = Record<string, any>;

export interface FieldCause { field: string; message: string; reason?: string }

/** Small per-type hooks, as upstream's strategies: defaults, validation, spec/status split. */
export interface Strategy {
  /**
   * What decoding into the kind does besides checking types, for kinds without a typed message (a custom
   * resource's schema defaults and pruning); returns the paths of the fields it dropped.
   */
  decode?(obj: Obj): string[];
  /** Fill defaults and reset server-owned fields on create. */
  prepareForCreate?(obj: Obj, user?: UserInfo): void;
  /** Carry server-owned fields over from the stored object on update. */
  prepareForUpdate?(obj: Obj, old: Obj): void;
  /** The same for a write of the status or approval subresource (`obj` already holds the old object with the new status). */
  prepareForSubresourceUpdate?(sub: "status" | "approval", obj: Obj, old: Obj): void;
  /** Type-specific validation; returns one cause per bad field. `sub` names the subresource an update writes. */
  validate?(obj: Obj, old?: Obj, sub?: UpdateTarget): FieldCause[];
  /** True when the object can be removed at once on delete (no graceful period). */
  deleteImmediately?(obj: Obj): boolean;
  /** Finalizers outside metadata.finalizers that hold a deleted object (a namespace's spec.finalizers). */
  pendingFinalizers?(obj: Obj): boolean;
  /** Refuses a delete by throwing (the immortal system namespaces). */
  validateDelete?(obj: Obj): void;
  /** Finalizers a delete adds before the object goes (a CRD's customresourcecleanup). */
  deletionFinalizers?(obj: Obj): string[];
  /** Marks an object whose deletion has begun (a namespace turns Terminating). */
  onDeleting?(obj: Obj): void;
  /** The kind's own field selectors, as upstream's field label conversion and GetAttrs define them. */
  fieldLabels?: FieldLabels;
}

/** Field selectors of a kind beyond metadata's (kinds without these select on metadata.name and metadata.namespace). */
export interface FieldLabels {
  /** The values of the kind's own selectable fields. */
  values(obj: Obj): Record<string, string>;
  /** Which of metadata.name and metadata.namespace may be selected (both unless said). */
  metadata?: string[];
  /** Labels accepted under an older name, and the field they select. */
  aliases?: Record<string, string>;
  /** Upstream's words for a label the kind does not support (else `field label not supported: X`). */
  unsupported?(label: string): string;
}

/** How the same stored object is seen through another group version (events.k8s.io/v1 over core Events). */
export interface Codec {
  toStorage(obj: Obj): Obj;
  fromStorage(obj: Obj): Obj;
}

/**
 * A conversion that takes a round trip (a custom resource's conversion webhook): many objects in one call,
 * each converted only when it is not at the wanted version already.
 */
export interface AsyncCodec {
  toStorage(objs: Obj[]): Promise<Obj[]>;
  fromStorage(objs: Obj[]): Promise<Obj[]>;
}

/** What an update of the generic path writes: the whole object ("") or one subresource (`approval` is a
 * CSR's: like status, a write of part of status, the strategy says which part; `binding` is a pod's node,
 * annotations and PodScheduled condition, composed by the server: ./binding.ts). */
export type UpdateTarget = "" | "status" | "finalize" | "approval" | "binding";

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface ResourceDef {
  group: string;
  version: string;
  kind: string;
  /** Plural, lower case: the name in the URL. */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: Verb[];
  /**
   * Subresources served by the generic path. `status` writes only status; the main resource ignores it.
   * `scale` is autoscaling/v1 Scale over spec.replicas, status.replicas and spec.selector (./scale.ts);
   * `token` (serviceaccounts) takes an authentication.k8s.io/v1 TokenRequest (pkg/auth/serviceaccount-tokenrequest.ts);
   * `binding` (pods) takes a v1 Binding (./binding.ts).
   */
  subresources?: Subresource[];
  /** metadata.generation bumps when anything but metadata and status changes. */
  generation?: boolean;
  /** Resource name under the storage prefix when it differs from group/plural (upstream's etcd layout). */
  storageResource?: string;
  /** The name rule: DNS-1123 subdomain (default), DNS-1123 label, DNS-1035 label (services), or any path segment. */
  nameRule?: "subdomain" | "label" | "dns1035" | "segment";
  /** PUT to a missing object creates it. */
  createOnUpdate?: boolean;
  /** Writes return once this server's watch cache has them (admission reads the cache). */
  readYourWrites?: boolean;
  strategy?: Strategy;
  codec?: Codec;
  /** Instead of `codec`: the version's objects are converted on every read and write by ./converted.ts. */
  asyncCodec?: AsyncCodec;
  /**
   * The storage version of a custom resource whose versions differ only in name (conversion None): an
   * object stored at an earlier storage version reads at this one by taking its apiVersion.
   */
  relabelStored?: boolean;
  /**
   * The releases that deprecated (and remove) this type at this version: every request gets upstream's
   * Warning (`batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob`).
   */
  deprecated?: { in: string; removedIn?: string; replacement?: string };
  /**
   * A version served through the conversion table (pkg/convert): objects are stored at `hub`, and
   * defaulting and validation see them there. The def's codec converts on every read and write.
   */
  conversion?: {
    hub: GroupVersionKind;
    toHub(obj: Obj): Obj;
    fromHub(obj: Obj): Obj;
    /** The version's fields are the hub's: the hub's protobuf message and OpenAPI schema describe it. */
    sameFields?: boolean;
  };
  /**
   * Objects the server computes instead of storing, never watched: on each read (componentstatuses,
   * read-only), or as the answer to a create (the review kinds, create-only).
   */
  computed?: boolean;
  /** The type's own Table columns, when not the printer of its group kind (a CRD's additionalPrinterColumns). */
  printer?: Printer;
  /** Set on the types a CustomResourceDefinition serves (pkg/crd). */
  custom?: CustomInfo;
}

/** What a type served from a CustomResourceDefinition carries besides its declaration. */
export interface CustomInfo {
  /** The CRD's name (`<plural>.<group>`). */
  crd: string;
  /** The version's openAPIV3Schema: apply's field types (list and map markers) and OpenAPI. */
  schema?: Obj;
  /** The kind of its lists (spec.names.listKind). */
  listKind?: string;
  /** Where the scale subresource finds replicas and the selector (JSON paths such as `.spec.replicas`). */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

export type Subresource = "status" | "finalize" | "scale" | "token" | "approval" | "binding" | "eviction" | "log" | "exec" | "attach" | "portforward" | "proxy";

/** The kind a subresource speaks when it is not its parent's (discovery, OpenAPI). */
export const SUBRESOURCE_KINDS: Partial<Record<Subresource, GroupVersionKind>> = {
  scale: { group: "autoscaling", version: "v1", kind: "Scale" },
  token: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
  binding: { group: "", version: "v1", kind: "Binding" },
  // v1.21 serves evictions as policy/v1beta1 (policy/v1 Eviction came in v1.22); Kite takes either body
  eviction: { group: "policy", version: "v1beta1", kind: "Eviction" },
  exec: { group: "", version: "v1", kind: "PodExecOptions" },
  attach: { group: "", version: "v1", kind: "PodAttachOptions" },
  portforward: { group: "", version: "v1", kind: "PodPortForwardOptions" },
};

export interface GroupVersionKind { group: string; version: string; kind: string }

export const apiVersionOf = (d: { group: string; version: string }) => (d.group ? `${d.group}/${d.version}` : d.version);
/** The kind of a type's lists: `<Kind>List`, or a CRD's listKind. */
export const listKindOf = (d: ResourceDef) => d.custom?.listKind ?? `${d.kind}List`;
export const qualifiedName = (d: ResourceDef) => (d.group ? `${d.plural}.${d.group}` : d.plural);
export const ALL_VERBS: Verb[] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
