// The checks every body passes before the registry takes it, as decoding into upstream's typed objects
// does: object shape, kind and apiVersion, namespace, each field's type (through the protobuf codec's
// plans, so nothing is stored that cannot be encoded later), and unknown fields dropped or reported.
import { badRequest } from "../api/status.ts";
import { ProtobufError, encodeObject as encodeProtobuf } from "../protobuf/index.ts";
import { messageForKind } from "../protobuf/kinds.ts";
import { type FieldCheck, checkFields, reportDropped } from "../fieldvalidation/index.ts";
import { goTypeError } from "../fieldvalidation/typeerror.ts";
import { type Obj, type ResourceDef, apiVersionOf } from "./types.ts";
import { isMap } from "../util/ismap.ts";


/**
 * Body checks shared by create and update of `def` (or of a kind a subresource takes instead: a
 * ServiceAccount's TokenRequest); returns the object with kind and apiVersion leading.
 */
export function checkBody(def: ResourceDef, body: unknown, ns: string, fields?: FieldCheck): Obj {
  if (!isMap(body)) throw badRequest("the body of the request must be a JSON or YAML object");
  const want = apiVersionOf(def);
  if (body.kind !== undefined && body.kind !== def.kind) {
    throw badRequest(`the object provided is unrecognized (must be of type ${def.kind}): kind ${JSON.stringify(body.kind)} is not ${JSON.stringify(def.kind)}`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== want) {
    throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${want})`);
  }
  if (body.metadata === undefined || body.metadata === null) body.metadata = {};
  // upstream names the version alone here
  const cannot = (what: string) => badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${what}`);
  if (!isMap(body.metadata)) throw cannot("metadata must be an object");
  const md = body.metadata;
  for (const f of ["name", "generateName", "namespace", "resourceVersion", "uid"]) {
    if (md[f] !== undefined && md[f] !== null && typeof md[f] !== "string") throw cannot(`metadata.${f} must be a string`);
  }
  for (const f of ["labels", "annotations"]) {
    if (md[f] !== undefined && md[f] !== null && (!isMap(md[f]) || Object.values(md[f]).some((v) => typeof v !== "string"))) {
      throw cannot(`metadata.${f} must be a map of strings`);
    }
  }
  // kind and apiVersion lead, as upstream serializes them.
  const { kind: _k, apiVersion: _a, ...rest } = body;
  body = { kind: def.kind, apiVersion: want, ...rest };
  const m = (body as Obj).metadata;
  if (def.namespaced) {
    if (m.namespace && m.namespace !== ns) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    m.namespace = ns;
  } else delete m.namespace;
  // Every field must have its type, as decoding into upstream's typed objects demands: a value of the
  // wrong type stored once would break every later protobuf read and watch of the collection.
  const plan = messageForKind(want, def.kind);
  // a version without its own message is checked (and its unknown fields dropped) at its hub
  const c = def.conversion;
  if (!plan && c && messageForKind(apiVersionOf(c.hub), c.hub.kind)) {
    return c.fromHub(checkBody({ ...def, ...c.hub, conversion: undefined }, c.toHub(body as Obj), ns, fields));
  }
  if (plan) {
    // Unknown fields (at any depth) are dropped, as decoding into upstream's typed objects drops them.
    const strict = checkFields(plan, body as Obj, fields);
    try {
      encodeProtobuf(body as Obj);
    } catch (e) {
      if (e instanceof ProtobufError) throw cannot(goTypeError(plan, body as Obj) ?? e.message.replace(/^cannot encode /, ""));
      throw e;
    }
    // a value of the wrong type is the error upstream's decoding reports first
    if (strict) throw fields?.patch ? badRequest(strict) : cannot(strict);
  } else if (def.strategy?.decode) {
    const strict = reportDropped(def.strategy.decode(body as Obj), fields);
    if (strict) throw fields?.patch ? badRequest(strict) : cannot(strict);
  }
  return body as Obj;
}
