// NodeRestriction: a node agent (system:node:NAME in system:nodes) writes only its own Node, its own
// mirror pods and the status of pods bound to it.
import { forbidden } from "../../api/status.ts";
import { type Attributes, type Plugin, isKind, qualified } from "../types.ts";

const MIRROR = "kubernetes.io/config.mirror";

/** The node a caller acts as, if it is one. */
function nodeOf(a: Attributes): string | undefined {
  const u = a.user;
  if (!u || !u.groups.includes("system:nodes") || !u.name.startsWith("system:node:")) return undefined;
  return u.name.slice("system:node:".length);
}

function checkPod(a: Attributes, node: string) {
  const refuse = (why: string) => forbidden(qualified(a), a.name, why);
  const pod = a.object ?? a.oldObject!;
  if (a.operation === "CREATE" && !a.subresource) {
    if (pod.metadata.annotations?.[MIRROR] === undefined) throw refuse(`pod does not have "${MIRROR}" annotation, node "${node}" can only create mirror pods`);
    if (pod.spec?.nodeName !== node) throw refuse(`node "${node}" can only create pods with spec.nodeName set to itself`);
    return;
  }
  const bound = (a.oldObject ?? pod).spec?.nodeName;
  if (a.operation === "DELETE" && bound !== node) throw refuse(`node "${node}" can only delete pods with spec.nodeName set to itself`);
  if (a.operation === "UPDATE" && a.subresource === "status" && bound !== node) throw refuse(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
}

function checkNode(a: Attributes, node: string) {
  if (a.name !== node) throw forbidden(qualified(a), a.name, `node "${node}" is not allowed to modify node "${a.name}"`);
  if (a.operation === "UPDATE" && !Bun.deepEquals(a.object?.spec?.taints ?? [], a.oldObject?.spec?.taints ?? [])) {
    throw forbidden(qualified(a), a.name, `node "${node}" is not allowed to modify taints`);
  }
}

export function nodeRestriction(): Plugin {
  return {
    handles: (a) => (isKind(a, "", "Pod") || isKind(a, "", "Node")) && nodeOf(a) !== undefined,
    validate(a) {
      const node = nodeOf(a)!;
      if (a.def.kind === "Pod") checkPod(a, node);
      else checkNode(a, node);
    },
  };
}
