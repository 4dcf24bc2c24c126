// Strategic-merge-patch metadata for the built-in kinds, transcribed from the
// `patchStrategy`/`patchMergeKey` struct tags of k8s.io/api and apimachinery's ObjectMeta.
// Only fields that carry a tag (or lead to one) are listed: everything else is a plain
// field, and a plain list is replaced whole. That is why, e.g., tolerations, envFrom,
// Endpoints subsets, Node taints and ServiceAccount imagePullSecrets are absent.

/** How one field patches. `fields` describes the nested object (for a list: each item). */
export interface FieldMeta {
  strategy?: "merge" | "replace";
  /** Merge key for a merge list of objects; absent for a merge list of primitives. */
  key?: string;
  fields?: Schema;
}
export type Schema = Readonly<Record<string, FieldMeta>>;

const obj = (fields: Schema): FieldMeta => ({ fields });
const merge = (key?: string, fields?: Schema): FieldMeta => ({ strategy: "merge", key, fields });

const conditions = merge("type");

const objectMeta: Schema = { ownerReferences: merge("uid"), finalizers: merge() };

// Container and EphemeralContainer share these tagged fields.
const container: Schema = {
  ports: merge("containerPort"),
  env: merge("name"),
  volumeMounts: merge("mountPath"),
  volumeDevices: merge("devicePath"),
};

const podSpec: Schema = {
  volumes: merge("name"), // tagged merge,retainKeys; retainKeys only matters to the patch generator
  initContainers: merge("name", container),
  containers: merge("name", container),
  ephemeralContainers: merge("name", container),
  imagePullSecrets: merge("name"),
  hostAliases: merge("ip"),
  topologySpreadConstraints: merge("topologyKey"),
  schedulingGates: merge("name"),
  resourceClaims: merge("name"),
  evictionResponders: merge("name"),
};

const podStatus: Schema = {
  conditions,
  hostIPs: merge("ip"),
  podIPs: merge("ip"),
  resourceClaimStatuses: merge("name"),
  nodeAllocatableResourceClaimStatuses: merge("resourceClaimName", {
    mapping: merge("name"),
    overhead: merge("name"),
  }),
};

const podTemplateSpec = obj({ metadata: obj(objectMeta), spec: obj(podSpec) });
const withConditions = obj({ conditions });
// Deployment, ReplicaSet, StatefulSet, DaemonSet and ReplicationController look alike here.
const workload: Schema = { spec: obj({ template: podTemplateSpec }), status: withConditions };
const jobSpec: Schema = { template: podTemplateSpec, scheduling: obj({ resourceClaims: merge("name") }) };

const kinds: Record<string, Schema> = {
  Pod: { spec: obj(podSpec), status: obj(podStatus) },
  PodTemplate: { template: podTemplateSpec },
  ReplicationController: workload,
  Deployment: workload,
  ReplicaSet: workload,
  StatefulSet: workload,
  DaemonSet: workload,
  Job: { spec: obj(jobSpec), status: withConditions },
  CronJob: { spec: obj({ jobTemplate: obj({ metadata: obj(objectMeta), spec: obj(jobSpec) }) }) },
  Service: { spec: obj({ ports: merge("port") }), status: withConditions },
  Endpoints: {},
  Node: {
    spec: obj({ podCIDRs: merge() }),
    status: obj({ conditions, addresses: merge("type") }),
  },
  Namespace: { status: withConditions },
  ConfigMap: {},
  Secret: {},
  ServiceAccount: { secrets: merge("name") },
  PersistentVolumeClaim: {
    status: obj({ conditions, healthStatus: obj({ healthConditions: merge("status") }) }),
  },
  PodDisruptionBudget: { spec: obj({ selector: { strategy: "replace" } }), status: withConditions },
  ComponentStatus: { conditions },
};

/** Patch metadata for a kind's top-level object; unknown kinds get ObjectMeta rules only. */
export function patchMetaFor(kind: string): Schema {
  const own = Object.hasOwn(kinds, kind) ? kinds[kind] : {};
  return { ...own, metadata: obj(objectMeta) };
}

/** The metadata of one field of `schema`, or none when the field is untagged/unknown. */
export function fieldMeta(schema: Schema | undefined, field: string): FieldMeta {
  return schema && Object.hasOwn(schema, field) ? schema[field] : {};
}
