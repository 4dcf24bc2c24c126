// The scale subresource (autoscaling/v1 Scale) of the workloads that declare it: a view of the parent's
// spec.replicas, status.replicas and selector. A write through it changes only the parent's spec.replicas;
// the Scale's resourceVersion and uid are preconditions on the parent.
import { badRequest, conflict, invalid } from "../api/status.ts";
import { ProtobufError, encodeObject as encodeProtobuf } from "../protobuf/index.ts";
import { selectorString } from "../table/columns.ts";
import { Errs } from "../validation/field.ts";
import { type Obj, type ResourceDef, SUBRESOURCE_KINDS, apiVersionOf } from "./types.ts";
import { nameErrors } from "../validation/names.ts";
import { isMap } from "../util/ismap.ts";

const SCALE = SUBRESOURCE_KINDS.scale!;
const SCALE_API_VERSION = apiVersionOf(SCALE);

/** The parent's selector as a selector string; a ReplicationController's is a plain label map. */
function selectorOf(def: ResourceDef, parent: Obj): string {
  const sel = parent.spec?.selector;
  const s = def.group ? selectorString(sel) : selectorString({ matchLabels: sel ?? {} });
  if (s === undefined) {
    const op = (sel?.matchExpressions ?? []).find((e: Obj) => !["In", "NotIn", "Exists", "DoesNotExist"].includes(e.operator))?.operator;
    throw badRequest(`${JSON.stringify(op)} is not a valid pod selector operator`);
  }
  return s;
}

/** A field at a CRD's scale path (`.spec.replicas`). */
const segments = (path: string) => path.replace(/^\./, "").split(".");
const readPath = (o: Obj, path: string): unknown => segments(path).reduce<any>((v, k) => (isMap(v) ? v[k] : undefined), o);
function writePath(o: Obj, path: string, value: unknown) {
  const keys = segments(path);
  let cur = o;
  for (const k of keys.slice(0, -1)) cur = isMap(cur[k]) ? cur[k] : (cur[k] = {});
  cur[keys[keys.length - 1]] = value;
}

/** Desired and observed replicas and the selector: a custom resource's at its definition's paths. */
function replicasOf(def: ResourceDef, parent: Obj): { spec: number; status: number; selector: string } {
  const paths = def.custom?.scale;
  if (!paths) {
    // v1 defaults replicas to 1 on every kind that has a scale subresource.
    return { spec: parent.spec?.replicas ?? 1, status: parent.status?.replicas ?? 0, selector: selectorOf(def, parent) };
  }
  const num = (v: unknown) => (typeof v === "number" ? v : 0);
  const sel = paths.labelSelectorPath ? readPath(parent, paths.labelSelectorPath) : undefined;
  return { spec: num(readPath(parent, paths.specReplicasPath)), status: num(readPath(parent, paths.statusReplicasPath)), selector: typeof sel === "string" ? sel : "" };
}

/** The Scale of a parent object: its identity, desired and observed replicas, and selector. */
export function scaleOf(def: ResourceDef, parent: Obj): Obj {
  const m = parent.metadata;
  const { spec: replicas, status: observed, selector } = replicasOf(def, parent);
  return {
    kind: SCALE.kind,
    apiVersion: SCALE_API_VERSION,
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    // Zero values are left out, as upstream's omitempty fields are.
    spec: replicas ? { replicas } : {},
    status: { replicas: observed, ...(selector ? { selector } : {}) },
  };
}

/** A Scale body as decoding into upstream's Scale checks it: its kind, apiVersion and field types. */
export function readScale(body: unknown): Obj {
  if (!isMap(body)) throw badRequest("the body of the request must be a JSON or YAML object");
  if (body.kind !== undefined && body.kind !== SCALE.kind) {
    throw badRequest(`the object provided is unrecognized (must be of type ${SCALE.kind}): kind ${JSON.stringify(body.kind)} is not ${JSON.stringify(SCALE.kind)}`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== SCALE_API_VERSION) {
    throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${SCALE_API_VERSION})`);
  }
  const scale: Obj = { ...body, kind: SCALE.kind, apiVersion: SCALE_API_VERSION, metadata: body.metadata ?? {} };
  try {
    encodeProtobuf(scale);
  } catch (e) {
    if (e instanceof ProtobufError) throw badRequest(`${SCALE.kind} in version "${SCALE.version}" cannot be handled as a ${SCALE.kind}: ${e.message.replace(/^cannot encode /, "")}`);
    throw e;
  }
  return scale;
}

/** Upstream's ValidateScale: object metadata (a subdomain name) and replicas not below zero. */
function validateScale(scale: Obj): void {
  const errs = new Errs();
  const m = scale.metadata ?? {};
  if (!m.name) errs.required("metadata.name", "name or generateName is required");
  else for (const e of nameErrors(m.name)) errs.invalid("metadata.name", m.name, e);
  if (!m.namespace) errs.required("metadata.namespace");
  const replicas = scale.spec?.replicas ?? 0;
  if (replicas < 0) errs.invalid("spec.replicas", replicas, "must be greater than or equal to 0");
  if (errs.causes.length) throw invalid({ group: SCALE.group, resource: "", kind: SCALE.kind }, String(m.name ?? ""), errs.causes);
}

/**
 * The parent after a write of its Scale: `next` is the Scale the client wants (sent whole, or the
 * current Scale patched). Only spec.replicas moves to the parent; the Scale's resourceVersion becomes the
 * parent's, so the store's compare-and-swap answers a stale one with 409.
 */
export function applyScale(def: ResourceDef, parent: Obj, next: Obj): Obj {
  validateScale(next);
  const m = parent.metadata;
  const q = { group: def.group, resource: `${def.plural}/scale` };
  if (next.metadata.uid && next.metadata.uid !== m.uid) {
    throw conflict(q, m.name, `Precondition failed: UID in precondition: ${next.metadata.uid}, UID in object meta: ${m.uid}`);
  }
  const path = def.custom?.scale?.specReplicasPath;
  if (path) writePath(parent, path, next.spec?.replicas ?? 0);
  else parent.spec = { ...parent.spec, replicas: next.spec?.replicas ?? 0 };
  if (next.metadata.resourceVersion) m.resourceVersion = next.metadata.resourceVersion;
  return parent;
}

/** A PUT's Scale names the object on the URL, as every update's body does; an empty namespace is the URL's. */
export function checkScaleName(scale: Obj, name: string, ns: string): void {
  const m = scale.metadata;
  if ((m.name ?? "") !== name) throw badRequest(`the name of the object (${m.name ?? ""}) does not match the name on the URL (${name})`);
  if (m.namespace && m.namespace !== ns) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  m.namespace = ns;
}
