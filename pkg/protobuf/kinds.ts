// Which protobuf message carries a given apiVersion + kind.
import { getCatalogue, type MessagePlan } from "./schema.ts";
import { ROWS } from "../convert/rows/index.ts";

const META = "k8s.io.apimachinery.pkg.apis.meta";
/** API group → protobuf package prefix (the version is appended). */
const GROUP_PACKAGES: Record<string, string> = {
  "": "k8s.io.api.core",
  apps: "k8s.io.api.apps",
  batch: "k8s.io.api.batch",
  extensions: "k8s.io.api.extensions",
  autoscaling: "k8s.io.api.autoscaling",
  policy: "k8s.io.api.policy",
  "coordination.k8s.io": "k8s.io.api.coordination",
  "rbac.authorization.k8s.io": "k8s.io.api.rbac",
  "networking.k8s.io": "k8s.io.api.networking",
  "scheduling.k8s.io": "k8s.io.api.scheduling",
  "storage.k8s.io": "k8s.io.api.storage",
  "events.k8s.io": "k8s.io.api.events",
  "flowcontrol.apiserver.k8s.io": "k8s.io.api.flowcontrol",
  "discovery.k8s.io": "k8s.io.api.discovery",
  "node.k8s.io": "k8s.io.api.node",
  "certificates.k8s.io": "k8s.io.api.certificates",
  "admissionregistration.k8s.io": "k8s.io.api.admissionregistration",
  "authentication.k8s.io": "k8s.io.api.authentication",
  "authorization.k8s.io": "k8s.io.api.authorization",
  "apiextensions.k8s.io": "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions",
  "apiregistration.k8s.io": "k8s.io.kube_aggregator.pkg.apis.apiregistration",
  "metrics.k8s.io": "k8s.io.metrics.pkg.apis.metrics",
  "meta.k8s.io": `${META}`,
  "meta.platform.io": `${META}`,
};

/** Kinds of meta/v1 that upstream registers in every group version (errors, watch events, options). */
const UNVERSIONED = new Set([
  "Status",
  "WatchEvent",
  "DeleteOptions",
  "ListOptions",
  "GetOptions",
  "CreateOptions",
  "UpdateOptions",
  "PatchOptions",
  "APIVersions",
  "APIGroup",
  "APIGroupList",
  "APIResourceList",
]);

const OBJECT_META = `${META}.v1.ObjectMeta`;
const LIST_META = `${META}.v1.ListMeta`;

/** A message is a kind when it carries object or list metadata (as every registered API type does). */
function isKind(plan: MessagePlan): boolean {
  return plan.fields.some((f) => f.json === "metadata" && (f.msg?.name === OBJECT_META || f.msg?.name === LIST_META));
}

let packageSet: Set<string> | null = null;
function packages(): Set<string> {
  if (!packageSet) {
    packageSet = new Set();
    for (const name of getCatalogue().messages.keys()) packageSet.add(name.slice(0, name.lastIndexOf(".")));
  }
  return packageSet;
}

const cache = new Map<string, MessagePlan | null>();

/** The message for apiVersion + kind, or null when the kind has no protobuf form (e.g. custom resources). */
export function messageForKind(apiVersion: string, kind: string): MessagePlan | null {
  const key = `${apiVersion} ${kind}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const found = lookup(apiVersion, kind);
  cache.set(key, found);
  return found;
}

function lookup(apiVersion: string, kind: string): MessagePlan | null {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !kind) return null;
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const prefix = GROUP_PACKAGES[group];
  if (prefix === undefined || !/^v\d+((alpha|beta)\d+)?$/.test(version)) return null;
  const { messages } = getCatalogue();
  const own = messages.get(`${prefix}.${version}.${kind}`);
  if (own && isKind(own)) return own;
  if (prefix === META) {
    // meta.k8s.io/v1beta1 PartialObjectMetadata is the v1 type
    const v1 = messages.get(`${META}.v1.${kind}`);
    if (v1 && isKind(v1)) return v1;
  }
  if (UNVERSIONED.has(kind) && packages().has(`${prefix}.${version}`)) return messages.get(`${META}.v1.${kind}`) ?? null;
  return sameFieldsAsHub(group, version, kind);
}

/** A version whose fields are its hub's (pkg/convert's sameFields rows) has the hub's wire form, lists included. */
function sameFieldsAsHub(group: string, version: string, kind: string): MessagePlan | null {
  const item = kind.endsWith("List") ? kind.slice(0, -4) : kind;
  const row = ROWS.find((r) => r.sameFields && r.group === group && r.version === version && r.kind === item);
  if (!row) return null;
  const hubKind = (row.hub.kind ?? row.kind) + kind.slice(item.length);
  return messageForKind(row.hub.group ? `${row.hub.group}/${row.hub.version}` : row.hub.version, hubKind);
}
