// The v1 objects the scheduler reads, as the API serves them in JSON. Only the fields the scheduler
// looks at are typed; everything else passes through untouched.

export type Labels = Record<string, string>;

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Labels;
  annotations?: Record<string, string>;
  [k: string]: unknown;
}

export interface LabelSelectorRequirement { key: string; operator: string; values?: string[] }
export interface LabelSelector { matchLabels?: Labels; matchExpressions?: LabelSelectorRequirement[] }

export interface NodeSelectorRequirement { key: string; operator: string; values?: string[] }
export interface NodeSelectorTerm { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }
export interface NodeSelector { nodeSelectorTerms: NodeSelectorTerm[] }
export interface PreferredSchedulingTerm { weight: number; preference: NodeSelectorTerm }

export interface PodAffinityTerm {
  labelSelector?: LabelSelector | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelector | null;
  topologyKey: string;
}
export interface WeightedPodAffinityTerm { weight: number; podAffinityTerm: PodAffinityTerm }
export interface PodAffinityRules {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}
export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector | null;
    preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
  };
  podAffinity?: PodAffinityRules;
  podAntiAffinity?: PodAffinityRules;
}

export interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }
export interface Taint { key: string; value?: string; effect: string; timeAdded?: string }

export interface ContainerPort { containerPort: number; hostPort?: number; hostIP?: string; protocol?: string; name?: string }
export interface ResourceList { [name: string]: string | number }
export interface Container {
  name: string;
  image?: string;
  ports?: ContainerPort[];
  resources?: { requests?: ResourceList; limits?: ResourceList };
  [k: string]: unknown;
}

export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  ephemeral?: unknown;
  [k: string]: unknown;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: string;
  labelSelector?: LabelSelector | null;
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Labels;
  affinity?: Affinity;
  tolerations?: Toleration[];
  containers: Container[];
  initContainers?: Container[];
  overhead?: ResourceList;
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: string;
  schedulerName?: string;
  volumes?: Volume[];
  topologySpreadConstraints?: TopologySpreadConstraint[];
  [k: string]: unknown;
}

export interface PodCondition { type: string; status: string; reason?: string; message?: string; [k: string]: unknown }
export interface PodStatus { phase?: string; nominatedNodeName?: string; conditions?: PodCondition[]; [k: string]: unknown }

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}

export interface ContainerImage { names?: string[]; sizeBytes?: number }
export interface Node {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[]; [k: string]: unknown };
  status?: { allocatable?: ResourceList; capacity?: ResourceList; images?: ContainerImage[]; [k: string]: unknown };
}

/** Any other object (PVC, PV, StorageClass, PodDisruptionBudget) a plugin reads through the listers. */
export interface AnyObject { metadata: ObjectMeta; spec?: any; status?: any; [k: string]: any }

/** "namespace/name", the key the cache and the queue use for a pod. */
export const podKey = (p: Pod) => `${p.metadata.namespace ?? ""}/${p.metadata.name ?? ""}`;
/** The uid, or the key for objects made without one (tests). */
export const podUID = (p: Pod) => p.metadata.uid || podKey(p);
