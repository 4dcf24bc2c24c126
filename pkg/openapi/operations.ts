// The OpenAPI v3 path items of one resource type: collection, item, status, scale, finalize, token and
// binding paths, with upstream's operation ids, actions, GVK and query parameters.
import { ALL_VERBS, type GroupVersionKind, type ResourceDef, SUBRESOURCE_KINDS } from "../registry/types.ts";
import { REF_PREFIX, schemaName } from "./schemas/index.ts";

export type Json = Record<string, unknown>;
const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
export const STATUS = META + "Status";

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** "" → Core, rbac.authorization.k8s.io → RbacAuthorization (as in upstream operation ids). */
export const groupId = (group: string) => (group ? group.replace(/\.k8s\.io$/, "").split(/[.-]/).map(cap).join("") : "Core");
export const gvId = (d: { group: string; version: string }) => groupId(d.group) + cap(d.version);
/** Operation tags: core, apps, rbacAuthorization; with a version: core_v1, apps_v1. */
export const groupTag = (group: string) => { const g = groupId(group); return g.charAt(0).toLowerCase() + g.slice(1); };
export const tagOf = (d: { group: string; version: string }) => `${groupTag(d.group)}_${d.version}`;

const q = (name: string, description: string, type = "string"): Json => ({ name, in: "query", description, schema: { type, uniqueItems: true } });
const P = {
  pretty: q("pretty", "If 'true', the output is indented."),
  dryRun: q("dryRun", "When 'All', every stage of the request runs but nothing is persisted."),
  fieldManager: q("fieldManager", "Name of the actor making the change, recorded in managedFields."),
  fieldValidation: q("fieldValidation", "How unknown and duplicate fields are treated: Ignore, Warn (default) or Strict."),
  force: q("force", "For apply patches only: take over fields owned by other managers instead of failing.", "boolean"),
  allowWatchBookmarks: q("allowWatchBookmarks", "Ask for BOOKMARK events in a watch.", "boolean"),
  continue: q("continue", "Token from a previous chunk of a limited list."),
  fieldSelector: q("fieldSelector", "Restrict results by fields, e.g. metadata.name=x."),
  labelSelector: q("labelSelector", "Restrict results by labels, e.g. app=web,tier!=db."),
  limit: q("limit", "Maximum number of items to return; use continue for more.", "integer"),
  resourceVersion: q("resourceVersion", "Which version of the data to serve; see the API conventions."),
  resourceVersionMatch: q("resourceVersionMatch", "How resourceVersion is applied: Exact or NotOlderThan."),
  sendInitialEvents: q("sendInitialEvents", "Start a watch with the current state as ADDED events.", "boolean"),
  timeoutSeconds: q("timeoutSeconds", "Close the list or watch after this many seconds.", "integer"),
  watch: q("watch", "Stream changes instead of returning a list.", "boolean"),
  gracePeriodSeconds: q("gracePeriodSeconds", "Seconds before the object is removed; 0 removes at once.", "integer"),
  orphanDependents: q("orphanDependents", "Deprecated: use propagationPolicy.", "boolean"),
  propagationPolicy: q("propagationPolicy", "Orphan, Background or Foreground handling of dependents."),
};
const LIST = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch];
const WRITE = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH = [...WRITE, P.force];
const DELETE = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];
const DELETE_COLLECTION = [P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.labelSelector, P.limit, P.orphanDependents,
  P.propagationPolicy, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds];

const pathParam = (name: string, description: string): Json => ({ name, in: "path", required: true, description, schema: { type: "string", uniqueItems: true } });
const NAMESPACE = pathParam("namespace", "Namespace of the objects.");

const OUT = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];
const WATCH = ["application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"];
const schema = (name: string) => ({ $ref: REF_PREFIX + name });
const content = (name: string, types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: schema(name) }]));
const reply = (description: string, name: string, types = OUT): Json => ({ description, content: content(name, types) });
const UNAUTHORIZED = { description: "Unauthorized" };
const ok = (name: string, types = OUT) => ({ "200": reply("OK", name, types), "401": UNAUTHORIZED });
const written = (name: string, extra: "201" | "202" | "both") => ({
  "200": reply("OK", name),
  ...(extra !== "202" ? { "201": reply("Created", name) } : {}),
  ...(extra !== "201" ? { "202": reply("Accepted", name) } : {}),
  "401": UNAUTHORIZED,
});
const body = (name: string, types = ["*/*"]): Json => ({ content: content(name, types), required: true });
const PATCH_TYPES = ["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"];

/** A GET operation without GVK, e.g. discovery documents. */
export function getOp(operationId: string, description: string, tag: string, response: string): Json {
  return { get: { description, operationId, tags: [tag], responses: ok(response) } };
}

/** All path items of one resource type. `kind` and `list` are the schema names of the object and its list. */
export function resourcePaths(d: ResourceDef, kind: string, list: string): Record<string, Json> {
  const verbs = new Set(d.verbs ?? ALL_VERBS);
  const gvk = { group: d.group, kind: d.kind, version: d.version };
  const id = gvId(d);
  const tags = [tagOf(d)];
  const ns = d.namespaced ? "Namespaced" : "";
  const op = (action: string, operationId: string, description: string, parameters: Json[], responses: Json, requestBody?: Json, k: object = gvk): Json => ({
    description, operationId, tags, parameters, ...(requestBody ? { requestBody } : {}), responses,
    "x-kubernetes-action": action, "x-kubernetes-group-version-kind": k,
  });
  const prefix = `${d.group ? `/apis/${d.group}` : "/api"}/${d.version}`;
  const collection = `${prefix}${d.namespaced ? "/namespaces/{namespace}" : ""}/${d.plural}`;
  const scope = d.namespaced ? [NAMESPACE] : [];
  const name = pathParam("name", `Name of the ${d.kind}.`);
  const out: Record<string, Json> = {};
  const add = (path: string, params: Json[], ops: Json) => {
    if (Object.keys(ops).length) out[path] = { ...ops, parameters: [...params, P.pretty] };
  };

  const c: Json = {};
  if (verbs.has("list")) c.get = op("list", `list${id}${ns}${d.kind}`, `list or watch objects of kind ${d.kind}`, LIST, ok(list, [...OUT, ...WATCH]));
  if (verbs.has("create")) c.post = op("post", `create${id}${ns}${d.kind}`, `create a ${d.kind}`, WRITE, written(kind, "both"), body(kind));
  if (verbs.has("deletecollection")) {
    c.delete = op("deletecollection", `delete${id}Collection${ns}${d.kind}`, `delete a collection of ${d.kind}`, DELETE_COLLECTION, ok(STATUS), body(META + "DeleteOptions"));
  }
  add(collection, scope, c);

  // `sub` is the kind a subresource serves when it is not the parent's (deployments/scale: autoscaling/v1 Scale).
  const item = (suffix: string, what: string, sub?: GroupVersionKind) => {
    const s: Json = {};
    const sfx = suffix ? cap(suffix) : "";
    const k = sub ? { group: sub.group, kind: sub.kind, version: sub.version } : gvk;
    const schema = sub ? schemaName(sub.group, sub.version, sub.kind) : kind;
    if (verbs.has("get")) s.get = op("get", `read${id}${ns}${d.kind}${sfx}`, `read ${what} of the specified ${d.kind}`, [], ok(schema), undefined, k);
    if (verbs.has("update")) s.put = op("put", `replace${id}${ns}${d.kind}${sfx}`, `replace ${what} of the specified ${d.kind}`, WRITE, written(schema, "201"), body(schema), k);
    if (verbs.has("patch")) s.patch = op("patch", `patch${id}${ns}${d.kind}${sfx}`, `partially update ${what} of the specified ${d.kind}`, PATCH, written(schema, "201"), body(META + "Patch", PATCH_TYPES), k);
    return s;
  };
  const main = item("", "the object");
  if (verbs.has("delete")) {
    main.delete = op("delete", `delete${id}${ns}${d.kind}`, `delete a ${d.kind}`, DELETE, written(STATUS, "202"), { content: content(META + "DeleteOptions", ["*/*"]) });
  }
  add(`${collection}/{name}`, [name, ...scope], main);
  if (d.subresources?.includes("status")) add(`${collection}/{name}/status`, [name, ...scope], item("status", "status"));
  if (d.subresources?.includes("approval")) add(`${collection}/{name}/approval`, [name, ...scope], item("approval", "approval"));
  if (d.subresources?.includes("scale")) add(`${collection}/{name}/scale`, [name, ...scope], item("scale", "scale", SUBRESOURCE_KINDS.scale));
  if (d.subresources?.includes("finalize") && verbs.has("update")) {
    add(`${collection}/{name}/finalize`, [name, ...scope], {
      put: op("put", `replace${id}${ns}${d.kind}Finalize`, `replace finalize of the specified ${d.kind}`, WRITE, written(kind, "201"), body(kind)),
    });
  }
  // Subresources that only take a kind of their own on create (serviceaccounts/token, pods/binding).
  for (const s of ["token", "binding"] as const) {
    if (!d.subresources?.includes(s)) continue;
    const k = SUBRESOURCE_KINDS[s]!, schema = schemaName(k.group, k.version, k.kind);
    add(`${collection}/{name}/${s}`, [pathParam("name", `Name of the ${k.kind}.`), ...scope], {
      post: op("post", `create${id}${ns}${d.kind}${cap(s)}`, `create ${s} of a ${d.kind}`, WRITE, written(schema, "both"), body(schema), { group: k.group, kind: k.kind, version: k.version }),
    });
  }
  if (d.namespaced && verbs.has("list")) {
    add(`${prefix}/${d.plural}`, [], {
      get: op("list", `list${id}${d.kind}ForAllNamespaces`, `list or watch objects of kind ${d.kind} in all namespaces`, LIST, ok(list, [...OUT, ...WATCH])),
    });
  }
  return out;
}
