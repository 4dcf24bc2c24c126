// The protobuf form of the v2 document (gnostic's openapi.v2.Document, what kubectl reads for
// validation, explain and strategic merge patches), encoded with protobufjs from the JSON form.
import protobuf from "protobufjs";
import proto from "../../proto/openapi/openapi_v2.proto" with { type: "text" };
import type { Json } from "./operations.ts";

type Conv = (v: any) => unknown;

/** A free-form value: its JSON text, which is also its YAML (gnostic's readers parse it as YAML). */
const any: Conv = (v) => ({ yaml: JSON.stringify(v) });
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const named = (conv: Conv): Conv => (o: Record<string, unknown>) => Object.entries(o).map(([name, value]) => ({ name, value: conv(value) }));

/**
 * A JSON object as a message: `x-` keys become `vendor_extension`, keys in `special` are converted by
 * their rule into the field it names, every other key is the camelCase spelling of a scalar field.
 */
function message(special: Record<string, [string, Conv]>, extensions = "vendor_extension"): Conv {
  return (o: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    const ext: unknown[] = [];
    for (const [k, v] of Object.entries(o)) {
      if (k.startsWith("x-")) ext.push({ name: k, value: any(v) });
      else if (special[k]) out[special[k][0]] = special[k][1](v);
      else out[snake(k)] = v;
    }
    if (ext.length) out[extensions] = ext;
    return out;
  };
}
const same: Conv = (v) => v;
const each = (conv: Conv): Conv => (v: unknown[]) => v.map(conv);

const FREE_FORM: Record<string, [string, Conv]> = { default: ["default", any], enum: ["enum", each(any)], example: ["example", any] };

const schema: Conv = (s) => SCHEMA(s);
const SCHEMA = message({
  ...FREE_FORM,
  $ref: ["_ref", same],
  type: ["type", (t: string | string[]) => ({ value: Array.isArray(t) ? t : [t] })],
  items: ["items", (i: Json | Json[]) => ({ schema: (Array.isArray(i) ? i : [i]).map(schema) })],
  allOf: ["all_of", each(schema)],
  properties: ["properties", (p: Json) => ({ additional_properties: named(schema)(p) })],
  additionalProperties: ["additional_properties", (a: boolean | Json) => (typeof a === "boolean" ? { boolean: a } : { schema: schema(a) })],
});

const primitives: Conv = (p) => message({ ...FREE_FORM, items: ["items", primitives] })(p);
const NON_BODY: Record<string, string> = { query: "query_parameter_sub_schema", path: "path_parameter_sub_schema" };
const parameter: Conv = (p: Json) => {
  if (p.in === "body") return { parameter: { body_parameter: message({ schema: ["schema", schema] })(p) } };
  const field = NON_BODY[p.in as string];
  if (!field) throw new Error(`openapi v2: no protobuf form for a parameter in ${String(p.in)}`);
  return { parameter: { non_body_parameter: { [field]: message({ ...FREE_FORM, items: ["items", primitives] })(p) } } };
};

const response = message({ schema: ["schema", (s: Json) => ({ schema: schema(s) })] });
const operation = message({
  parameters: ["parameters", each(parameter)],
  responses: ["responses", (r: Json) => ({ response_code: named((x) => ({ response: response(x) }))(r) })],
});
const pathItem = message({
  ...Object.fromEntries(["get", "put", "post", "delete", "options", "head", "patch"].map((m) => [m, [m, operation] as [string, Conv]])),
  $ref: ["_ref", same],
  parameters: ["parameters", each(parameter)],
});

const DOCUMENT = message({
  info: ["info", message({})],
  paths: ["paths", (p: Json) => ({ path: named(pathItem)(p) })],
  definitions: ["definitions", (d: Json) => ({ additional_properties: named(schema)(d) })],
  security: ["security", each((r: Json) => ({ additional_properties: named((scopes: string[]) => ({ value: scopes }))(r) }))],
  securityDefinitions: ["security_definitions", (d: Json) => ({ additional_properties: named((x) => ({ api_key_security: message({})(x) }))(d) })],
});

/** The message type, parsed from the embedded .proto; not kept, since the document is encoded once. */
function gnosticDocument(): protobuf.Type {
  const root = new protobuf.Root();
  root.addJSON(protobuf.common.get("google/protobuf/any.proto")!.nested!);
  protobuf.parse(proto, root, { keepCase: true });
  return root.lookupType("openapi.v2.Document");
}

/** The v2 document's protobuf bytes. */
export function encodeV2(doc: Json): Uint8Array {
  return gnosticDocument().encode(DOCUMENT(doc) as Record<string, unknown>).finish();
}
