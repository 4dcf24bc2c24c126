// Defaults of rbac.authorization.k8s.io/v1 bindings: the API group of the role and of each subject.
import type { Obj } from "../registry/types.ts";
import { fillZero, items } from "./fill.ts";
import { isMap } from "../util/ismap.ts";

const RBAC = "rbac.authorization.k8s.io";
/** Users and groups are RBAC's; a ServiceAccount is core's (""). */
const SUBJECT_GROUPS: Record<string, string> = { User: RBAC, Group: RBAC };

export function defaultBinding(b: Obj): void {
  if (isMap(b.roleRef)) fillZero(b.roleRef, { apiGroup: RBAC });
  for (const s of items(b, "subjects")) if (!s.apiGroup && SUBJECT_GROUPS[s.kind]) s.apiGroup = SUBJECT_GROUPS[s.kind];
}
