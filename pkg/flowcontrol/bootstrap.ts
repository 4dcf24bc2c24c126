// Upstream's v1.21 bootstrap configuration: the mandatory objects (exempt, catch-all), which the server
// puts back when they are deleted, and the suggested ones, made once when missing.
import type { Obj } from "../registry/types.ts";

type Subject = Obj;
type Distinguisher = "ByUser" | "ByNamespace" | undefined;

const group = (name: string): Subject => ({ kind: "Group", group: { name } });
const user = (name: string): Subject => ({ kind: "User", user: { name } });
const kubeSystemSA = (name: string): Subject => ({ kind: "ServiceAccount", serviceAccount: { namespace: "kube-system", name } });
const EVERYONE = [group("system:authenticated"), group("system:unauthenticated")];

const allResources = [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }];
const allNonResources = [{ verbs: ["*"], nonResourceURLs: ["*"] }];
const leaderElection = (namespaces: string[]) => [
  { verbs: ["get", "create", "update"], apiGroups: [""], resources: ["endpoints", "configmaps"], namespaces },
  { verbs: ["get", "create", "update"], apiGroups: ["coordination.k8s.io"], resources: ["leases"], namespaces },
];

function flowSchema(name: string, level: string, matchingPrecedence: number, by: Distinguisher, subjects: Subject[], rules?: { resourceRules?: Obj[]; nonResourceRules?: Obj[] }): Obj {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1", kind: "FlowSchema", metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: level }, matchingPrecedence,
      ...(by ? { distinguisherMethod: { type: by } } : {}),
      rules: [{ subjects, ...(rules ?? { resourceRules: allResources, nonResourceRules: allNonResources }) }],
    },
  };
}

function queued(name: string, assuredConcurrencyShares: number, queues: number, handSize: number, queueLengthLimit: number): Obj {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1", kind: "PriorityLevelConfiguration", metadata: { name },
    spec: { type: "Limited", limited: { assuredConcurrencyShares, limitResponse: { type: "Queue", queuing: { queues, handSize, queueLengthLimit } } } },
  };
}

export const MANDATORY_LEVELS: Obj[] = [
  { apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1", kind: "PriorityLevelConfiguration", metadata: { name: "exempt" }, spec: { type: "Exempt" } },
  {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1", kind: "PriorityLevelConfiguration", metadata: { name: "catch-all" },
    spec: { type: "Limited", limited: { assuredConcurrencyShares: 5, limitResponse: { type: "Reject" } } },
  },
];

export const MANDATORY_SCHEMAS: Obj[] = [
  flowSchema("exempt", "exempt", 1, undefined, [group("system:masters")]),
  flowSchema("catch-all", "catch-all", 10000, "ByUser", EVERYONE),
];

export const SUGGESTED_LEVELS: Obj[] = [
  queued("system", 30, 64, 6, 50),
  queued("leader-election", 10, 16, 4, 50),
  queued("workload-high", 40, 128, 6, 50),
  queued("workload-low", 100, 128, 6, 50),
  queued("global-default", 20, 128, 6, 50),
];

export const SUGGESTED_SCHEMAS: Obj[] = [
  flowSchema("probes", "exempt", 2, undefined, EVERYONE, { nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }] }),
  flowSchema("system-leader-election", "leader-election", 100, "ByUser",
    [user("system:kube-controller-manager"), user("system:kube-scheduler"), kubeSystemSA("kube-controller-manager"), kubeSystemSA("kube-scheduler")],
    { resourceRules: leaderElection(["kube-system"]) }),
  flowSchema("workload-leader-election", "leader-election", 200, "ByUser", [kubeSystemSA("*")], { resourceRules: leaderElection(["*"]) }),
  flowSchema("system-nodes", "system", 500, "ByUser", [group("system:nodes")]),
  flowSchema("kube-controller-manager", "workload-high", 800, "ByNamespace", [user("system:kube-controller-manager")]),
  flowSchema("kube-scheduler", "workload-high", 800, "ByNamespace", [user("system:kube-scheduler")]),
  flowSchema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", [kubeSystemSA("*")]),
  flowSchema("service-accounts", "workload-low", 9000, "ByUser", [group("system:serviceaccounts")]),
  flowSchema("global-default", "global-default", 9900, "ByUser", EVERYONE),
];
