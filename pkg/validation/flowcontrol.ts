// FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io), validated as upstream's v1.21:
// rules with subjects, verbs and paths; levels' shares and queues; the mandatory objects' specs fixed.
import type { Obj } from "../registry/types.ts";
import { MANDATORY_LEVELS, MANDATORY_SCHEMAS } from "../flowcontrol/bootstrap.ts";
import { applyDefaults } from "../defaults/index.ts";
import { type Errs, goStrings, Printed } from "./field.ts";
import { dns1123Label, dns1123Subdomain } from "./names.ts";
import { isMap, list, run, same } from "./rules.ts";

const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"];
const MAX_QUEUES = 10_000_000;
/** Bits of hash a hand of handSize queues out of `queues` needs; upstream's shuffle sharding has 60. */
const MAX_HASH_BITS = 60;
const GROUP = "flowcontrol.apiserver.k8s.io";

/** The mandatory objects' specs as stored (defaults filled in), by kind and name. */
const fixedSpec = (kind: string, objs: Obj[]) => new Map(objs.map((o) => {
  const c = structuredClone(o);
  applyDefaults(GROUP, kind, c);
  return [o.metadata.name, c.spec];
}));
let fixed: { schemas: Map<string, Obj>; levels: Map<string, Obj> } | undefined;
const fixedSpecs = () => (fixed ??= { schemas: fixedSpec("FlowSchema", MANDATORY_SCHEMAS), levels: fixedSpec("PriorityLevelConfiguration", MANDATORY_LEVELS) });

/** A list of names where "*" must stand alone; `what` names them in the message. */
function wildcardAlone(e: Errs, field: string, v: string[], what: string) {
  if (v.length > 1 && v.includes("*")) e.invalid(field, new Printed(goStrings(v)), `if '*' is present, must not specify other ${what}`);
}

function verbs(e: Errs, field: string, v: string[]) {
  if (!v.length) e.required(field, "verbs must contain at least one value");
  else if (v.includes("*")) wildcardAlone(e, field, v, "verbs");
  else if (v.some((x) => !VERBS.includes(x))) e.notSupported(field, new Printed(goStrings(v)), VERBS);
}

function nonResourcePath(p: string): string | null {
  if (!p) return "must not be empty";
  if (p === "/") return null;
  if (!p.startsWith("/")) return "must start with slash";
  if (p.includes(" ")) return "must not contain white-space";
  if (p.includes("//")) return "must not contain double slash";
  const stars = p.split("*").length - 1;
  if (stars > 1 || (stars === 1 && !p.endsWith("/*"))) return "wildcard can only do suffix matching";
  return null;
}

function subject(e: Errs, path: string, s: Obj) {
  const kinds: Record<string, string> = { ServiceAccount: "serviceAccount", User: "user", Group: "group" };
  const own = kinds[s.kind];
  if (!own) { e.notSupported(`${path}.kind`, s.kind ?? "", Object.keys(kinds).sort()); return; }
  const sub = s[own];
  if (!isMap(sub)) e.required(`${path}.${own}`, `${own} is required when subject kind is '${s.kind}'`);
  else if (s.kind === "ServiceAccount") {
    if (!sub.name) e.required(`${path}.${own}.name`);
    else if (sub.name !== "*") for (const m of dns1123Subdomain(sub.name)) e.invalid(`${path}.${own}.name`, sub.name, m);
    if (!sub.namespace) e.required(`${path}.${own}.namespace`, "must specify namespace for service account");
    else for (const m of dns1123Label(sub.namespace)) e.invalid(`${path}.${own}.namespace`, sub.namespace, m);
  } else if (!sub.name) e.required(`${path}.${own}.name`);
  for (const [k, field] of Object.entries(kinds)) {
    if (k !== s.kind && s[field] != null) e.forbidden(`${path}.${field}`, `${field} is forbidden when subject kind is not '${k}'`);
  }
}

function resourceRule(e: Errs, path: string, r: Obj) {
  verbs(e, `${path}.verbs`, list(r.verbs));
  const groups = list(r.apiGroups), resources = list(r.resources), namespaces = list(r.namespaces);
  if (!groups.length) e.required(`${path}.apiGroups`, "resource rules must supply at least one api group");
  else wildcardAlone(e, `${path}.apiGroups`, groups, "api groups");
  if (!resources.length) e.required(`${path}.resources`, "resource rules must supply at least one resource");
  else wildcardAlone(e, `${path}.resources`, resources, "resources");
  if (!namespaces.length && !r.clusterScope) e.required(`${path}.namespaces`, "resource rules that are not cluster scoped must supply at least one namespace");
  else if (namespaces.includes("*")) wildcardAlone(e, `${path}.namespaces`, namespaces, "namespaces");
  else namespaces.forEach((ns, i) => {
    for (const m of dns1123Label(ns)) e.invalid(`${path}.namespaces[${i}]`, ns, `each member of this list must be '*' or a DNS-1123 label; ${m}`);
  });
}

function nonResourceRule(e: Errs, path: string, r: Obj) {
  verbs(e, `${path}.verbs`, list(r.verbs));
  const urls = list(r.nonResourceURLs);
  if (!urls.length) e.required(`${path}.nonResourceURLs`, "nonResourceURLs must contain at least one value");
  else if (urls.includes("*")) wildcardAlone(e, `${path}.nonResourceURLs`, urls, "non-resource URLs");
  else urls.forEach((u, i) => { const m = nonResourcePath(u); if (m) e.invalid(`${path}.nonResourceURLs[${i}]`, u, m); });
}

function conditionTypes(e: Errs, status: unknown) {
  const seen = new Set<string>();
  list(isMap(status) ? status.conditions : undefined).forEach((c: Obj, i) => {
    if (!c?.type) e.required(`status.conditions[${i}].type`, "must not be empty");
    else if (seen.has(c.type)) e.duplicate(`status.conditions[${i}].type`, c.type);
    seen.add(c?.type);
  });
}

export const flowSchema = (o: Obj) => run((e) => {
  const name = String(o.metadata?.name ?? "");
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const precedence = sp.matchingPrecedence ?? 0;
  if (precedence <= 0) e.invalid("spec.matchingPrecedence", precedence, "must be a positive value");
  if (precedence > 10000) e.invalid("spec.matchingPrecedence", precedence, "must not be greater than 10000");
  if (precedence === 1 && name !== "exempt") e.invalid("spec.matchingPrecedence", precedence, "only the schema named 'exempt' may have matchingPrecedence 1");
  if (isMap(sp.distinguisherMethod) && !["ByNamespace", "ByUser"].includes(sp.distinguisherMethod.type)) {
    e.notSupported("spec.distinguisherMethod.type", sp.distinguisherMethod, ["ByNamespace", "ByUser"]);
  }
  const level = sp.priorityLevelConfiguration?.name;
  if (!level) e.required("spec.priorityLevelConfiguration.name", "must reference a priority level");
  else for (const m of dns1123Subdomain(level)) e.invalid("spec.priorityLevelConfiguration.name", level, m);
  list(sp.rules).forEach((rule: Obj, i) => {
    const path = `spec.rules[${i}]`;
    const subjects = list(rule?.subjects);
    if (!subjects.length) e.required(`${path}.subjects`, "subjects must contain at least one value");
    subjects.forEach((s, j) => subject(e, `${path}.subjects[${j}]`, isMap(s) ? s : {}));
    const rr = list(rule?.resourceRules), nr = list(rule?.nonResourceRules);
    if (!rr.length && !nr.length) e.required(path, "at least one of resourceRules and nonResourceRules has to be non-empty");
    rr.forEach((r, j) => resourceRule(e, `${path}.resourceRules[${j}]`, isMap(r) ? r : {}));
    nr.forEach((r, j) => nonResourceRule(e, `${path}.nonResourceRules[${j}]`, isMap(r) ? r : {}));
  });
  const must = fixedSpecs().schemas.get(name);
  if (must && !same(o.spec, must)) e.invalid("spec", o.spec, `spec of '${name}' must equal the fixed value`);
  conditionTypes(e, o.status);
});

function queuing(e: Errs, path: string, q: Obj) {
  const { queues = 0, handSize = 0, queueLengthLimit = 0 } = q;
  if (queueLengthLimit <= 0) e.invalid(`${path}.queueLengthLimit`, queueLengthLimit, "must be positive");
  if (queues <= 0) e.invalid(`${path}.queues`, queues, "must be positive");
  else if (queues > MAX_QUEUES) e.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`);
  if (handSize <= 0) e.invalid(`${path}.handSize`, handSize, "must be positive");
  else if (handSize > queues) e.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`);
  else if (Math.ceil(Math.log2(queues) * handSize) > MAX_HASH_BITS) {
    e.invalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`);
  }
}

export const priorityLevelConfiguration = (o: Obj) => run((e) => {
  const name = String(o.metadata?.name ?? "");
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  if ((name === "exempt") !== (sp.type === "Exempt")) e.invalid("spec.type", sp.type ?? "", "type must be 'Exempt' if and only if name is 'exempt'");
  if (sp.type === "Exempt") {
    if (sp.limited != null) e.forbidden("spec.limited", "must be nil if the type is not Limited");
  } else if (sp.type === "Limited") {
    if (!isMap(sp.limited)) e.required("spec.limited", "must not be empty when type is Limited");
    else {
      const acs = sp.limited.assuredConcurrencyShares ?? 0;
      if (acs <= 0) e.invalid("spec.limited.assuredConcurrencyShares", acs, "must be positive");
      const lr: Obj = isMap(sp.limited.limitResponse) ? sp.limited.limitResponse : {};
      const path = "spec.limited.limitResponse";
      if (lr.type === "Reject") {
        if (lr.queuing != null) e.forbidden(`${path}.queuing`, "must be nil if limited.limitResponse.type is not Limited");
      } else if (lr.type === "Queue") {
        if (!isMap(lr.queuing)) e.required(`${path}.queuing`, "must not be empty if limited.limitResponse.type is Limited");
        else queuing(e, `${path}.queuing`, lr.queuing);
      } else e.notSupported(`${path}.type`, lr.type ?? "", ["Queue", "Reject"]);
    }
  } else e.notSupported("spec.type", sp.type ?? "", ["Exempt", "Limited"]);
  const must = fixedSpecs().levels.get(name);
  if (must && !same(o.spec, must)) e.invalid("spec", o.spec, `spec of '${name}' must equal the fixed value`);
  conditionTypes(e, o.status);
});
