// Which FlowSchema a request belongs to: the first, by matchingPrecedence (then name), one of whose rules
// matches both who sent it (user, group, service account) and what it asks (resource or non-resource).
import type { UserInfo } from "../auth/user.ts";
import type { RequestInfo } from "../api/requestinfo.ts";
import type { Obj } from "../registry/types.ts";

const has = (list: unknown, v: string) => Array.isArray(list) && (list.includes("*") || list.includes(v));

function subjectMatches(s: Obj, user: UserInfo): boolean {
  switch (s?.kind) {
    case "User": return s.user?.name === "*" || s.user?.name === user.name;
    case "Group": return s.group?.name === "*" || user.groups.includes(s.group?.name);
    case "ServiceAccount": {
      const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user.name);
      return !!m && m[1] === s.serviceAccount?.namespace && (s.serviceAccount?.name === "*" || s.serviceAccount?.name === m[2]);
    }
  }
  return false;
}

function resourceMatches(r: Obj, info: RequestInfo): boolean {
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!has(r.verbs, info.verb) || !has(r.apiGroups, info.group) || !has(r.resources, resource)) return false;
  return info.namespace ? has(r.namespaces, info.namespace) : r.clusterScope === true;
}

function nonResourceMatches(r: Obj, info: RequestInfo): boolean {
  if (!has(r.verbs, info.verb)) return false;
  return (r.nonResourceURLs ?? []).some((u: string) => u === "*" || u === info.path || (u.endsWith("/*") && info.path.startsWith(u.slice(0, -1))));
}

export function schemaMatches(fs: Obj, info: RequestInfo, user: UserInfo): boolean {
  return (fs.spec?.rules ?? []).some((rule: Obj) =>
    (rule.subjects ?? []).some((s: Obj) => subjectMatches(s, user)) &&
    (info.isResourceRequest
      ? (rule.resourceRules ?? []).some((r: Obj) => resourceMatches(r, info))
      : (rule.nonResourceRules ?? []).some((r: Obj) => nonResourceMatches(r, info))));
}

/** FlowSchemas in the order they are tried. */
export function byPrecedence(schemas: Obj[]): Obj[] {
  return [...schemas].sort((a, b) => (a.spec?.matchingPrecedence ?? 1000) - (b.spec?.matchingPrecedence ?? 1000) || (a.metadata.name < b.metadata.name ? -1 : 1));
}

/** The flow within the schema: its name plus the user or namespace it tells flows apart by. */
export function flowKey(fs: Obj, info: RequestInfo, user: UserInfo): string {
  const by = fs.spec?.distinguisherMethod?.type;
  return `${fs.metadata.name}/${by === "ByUser" ? user.name : by === "ByNamespace" ? info.namespace : ""}`;
}
