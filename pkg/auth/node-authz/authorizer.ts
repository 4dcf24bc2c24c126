// --authorization-mode=Node: what a kubelet's credentials (user system:node:NAME in group system:nodes)
// may reach, decided on the graph of objects bound to that node (./graph.ts), as upstream's Node
// authorizer: the Secrets, ConfigMaps, PVCs, PVs, VolumeAttachments and ServiceAccount tokens of its pods,
// its own Lease and CSINode. Everything else is decided by the static rules of the system:node role when
// they are given (upstream evaluates them here, its system:node binding having no subjects), else no opinion.
// The NodeRestriction idea is decided here too: a node may write only its own Node object and the pods
// bound to it (status, deletion, eviction); such a write to another's is denied, so no later authorizer
// can allow it.
import type { Registry } from "../../registry/registry.ts";
import { type Attributes, type Authorizer, ALLOW, type Decision } from "../authorize.ts";
import type { UserInfo } from "../user.ts";
import { vertex, type VertexType } from "./graph.ts";
import { GraphPopulator } from "./populator.ts";

export const NODES_GROUP = "system:nodes";
const NODE_PREFIX = "system:node:";
const NODE_LEASE_NAMESPACE = "kube-node-lease";
const READ = new Set(["get", "list", "watch"]);
const WRITE = new Set(["update", "patch", "delete"]);
const OWN_VERBS = new Set(["get", "create", "update", "patch", "delete"]);

/** upstream's NodeIdentity: undefined when the user is not a node; "" when it is one without a name. */
export function nodeIdentity(u: UserInfo): string | undefined {
  if (!u.name.startsWith(NODE_PREFIX) || !u.groups.includes(NODES_GROUP)) return undefined;
  return u.name.slice(NODE_PREFIX.length);
}

const no = (reason: string): Decision => ({ decision: "noOpinion", reason });
const deny = (reason: string): Decision => ({ decision: "deny", reason });

/** Whether the system:node role's rules allow a request (RBAC's rule matching over the bootstrap role). */
export type StaticNodeRules = (a: Attributes) => boolean;

/** The decisions, on a graph that answers "is there a path from this object to that node". */
export class NodeRules {
  constructor(private graph: { hasPath(from: string, to: string): boolean; hasEdge(from: string, to: string): boolean }, private staticRules?: StaticNodeRules) {}

  private byRole(a: Attributes): Decision {
    return this.staticRules?.(a) ? ALLOW : { decision: "noOpinion" };
  }

  decide(a: Attributes): Decision {
    const node = nodeIdentity(a.user);
    if (node === undefined) return { decision: "noOpinion" };
    if (!node) return no(`unknown node for user ${JSON.stringify(a.user.name)}`);
    if (!a.isResourceRequest) return this.byRole(a);
    switch (`${a.resource}.${a.apiGroup}`) {
      case "secrets.": return this.readNamespaced(node, "secret", a);
      case "configmaps.": return this.readNamespaced(node, "configmap", a);
      case "persistentvolumeclaims.": return a.subresource === "status" ? this.statusUpdate(node, "pvc", a) : this.getOnly(node, "pvc", a);
      case "persistentvolumes.": return this.getOnly(node, "pv", a);
      case "volumeattachments.storage.k8s.io": return this.getOnly(node, "volumeattachment", a);
      case "serviceaccounts.": return this.createToken(node, a);
      case "leases.coordination.k8s.io": return this.ownNamed(node, a, "node lease", NODE_LEASE_NAMESPACE);
      case "csinodes.storage.k8s.io": return this.ownNamed(node, a, "CSINode");
      case "nodes.": return this.ownNode(node, a) ?? this.byRole(a);
      case "pods.": return this.boundPod(node, a) ?? this.byRole(a);
    }
    return this.byRole(a);
  }

  private related(node: string, type: VertexType, a: Attributes): Decision {
    if (!a.name) return no("No Object name found");
    if (this.graph.hasPath(vertex(type, a.namespace, a.name), vertex("node", "", node))) return ALLOW;
    return no(`no relationship found between node '${node}' and this object`);
  }

  private readNamespaced(node: string, type: VertexType, a: Attributes): Decision {
    if (!READ.has(a.verb)) return no("can only read resources of this type");
    if (a.subresource) return no("cannot read subresource");
    if (!a.namespace) return no("can only read namespaced object of this type");
    return this.related(node, type, a);
  }

  private getOnly(node: string, type: VertexType, a: Attributes): Decision {
    if (a.verb !== "get") return no("can only get individual resources of this type");
    if (a.subresource) return no("cannot get subresource");
    return this.related(node, type, a);
  }

  private statusUpdate(node: string, type: VertexType, a: Attributes): Decision {
    if (a.verb !== "update" && a.verb !== "patch") return no("can only get/update/patch this type");
    return this.related(node, type, a);
  }

  private createToken(node: string, a: Attributes): Decision {
    if (a.verb !== "create" || !a.name) return no("can only create tokens for individual service accounts");
    if (a.subresource !== "token") return no("can only create token subresource of serviceaccount");
    return this.related(node, "serviceaccount", a);
  }

  /** An object named after the node (a create's name is not known here: admission's to check). */
  private ownNamed(node: string, a: Attributes, what: string, namespace?: string): Decision {
    if (!OWN_VERBS.has(a.verb)) return no(`can only get, create, update, patch, or delete a ${what}`);
    if (namespace !== undefined && a.namespace !== namespace) return no(`can only access leases in the ${JSON.stringify(namespace)} system namespace`);
    if (a.verb !== "create" && a.name !== node) return no(`can only access ${what} with the same name as the requesting node`);
    return ALLOW;
  }

  /** Its own Node: read and written; another's: written never; undefined leaves the rest to the role. */
  private ownNode(node: string, a: Attributes): Decision | undefined {
    if (a.name === node && (READ.has(a.verb) || WRITE.has(a.verb)) && (!a.subresource || a.subresource === "status")) return ALLOW;
    if (a.name && a.name !== node && WRITE.has(a.verb)) return deny(`node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(a.name)}`);
    return undefined;
  }

  /** Pods bound to it: read, status written, deleted, evicted; those of other nodes: never written. */
  private boundPod(node: string, a: Attributes): Decision | undefined {
    if (!a.name) return undefined;
    const bound = this.graph.hasEdge(vertex("pod", a.namespace, a.name), vertex("node", "", node));
    const write = a.subresource === "status" ? a.verb === "update" || a.verb === "patch"
      : a.subresource === "eviction" ? a.verb === "create"
      : !a.subresource && a.verb === "delete";
    if (bound && (write || (READ.has(a.verb) && !a.subresource) || (a.subresource === "status" && a.verb === "get"))) return ALLOW;
    if (!bound && write) {
      const what = a.subresource === "status" ? "update pod status for" : a.subresource === "eviction" ? "evict" : "delete";
      return deny(`node ${JSON.stringify(node)} can only ${what} pods with spec.nodeName set to itself`);
    }
    return undefined;
  }
}

/** The authorizer of the mode: its graph is fed by the server's watches; decisions wait for the first sync. */
export class NodeAuthorizer implements Authorizer {
  private populator: GraphPopulator;
  private rules: NodeRules;
  private synced: Promise<void>;

  constructor(registry: Registry, staticRules?: StaticNodeRules) {
    this.populator = new GraphPopulator(registry);
    this.rules = new NodeRules(this.populator.graph, staticRules);
    this.synced = this.populator.start();
    this.synced.catch(() => {});
  }

  async authorize(a: Attributes): Promise<Decision> {
    if (nodeIdentity(a.user) === undefined) return { decision: "noOpinion" };
    await this.synced;
    return this.rules.decide(a);
  }

  stop() {
    this.populator.stop();
  }
}
