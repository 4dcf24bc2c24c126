// OpenAPI v2 (Swagger 2.0), the one document `/openapi/v2` serves: every path and schema of the v3
// documents (the same source, see document.ts) rendered in v2's form, as upstream v1.21 serves it.
// Built once; only its encoded bytes are kept (JSON here, protobuf in v2proto.ts).
import type { ResourceDef } from "../registry/types.ts";
import { BEARER, INFO, type OpenAPIDoc, apiSource, hashOf, reachable } from "./document.ts";
import type { Json } from "./operations.ts";
import { REF_PREFIX, type Schema, type Table } from "./schemas/index.ts";
import { encodeV2 } from "./v2proto.ts";

const V2_REF_PREFIX = "#/definitions/";
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

const v2Ref = (ref: string) => V2_REF_PREFIX + ref.slice(REF_PREFIX.length);

/**
 * One schema in v2's form: references point into `definitions`; a described reference (v3's
 * `{description, allOf: [$ref]}`) is a `$ref` with its description beside it, as upstream writes it;
 * a `oneOf` of scalars (Quantity, IntOrString) is a string, which v2 readers accept any scalar for.
 */
function schemaV2(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "$ref") out.$ref = v2Ref(v as string);
    else if (k === "allOf" && (v as Schema[]).length === 1 && (v as Schema[])[0].$ref) out.$ref = v2Ref((v as Schema[])[0].$ref as string);
    else if (k === "allOf") out.allOf = (v as Schema[]).map(schemaV2);
    else if (k === "oneOf") out.type = "string";
    else if (k === "properties") out.properties = Object.fromEntries(Object.entries(v as Table).map(([p, x]) => [p, schemaV2(x)]));
    else if ((k === "items" || k === "additionalProperties") && typeof v === "object") out[k] = schemaV2(v as Schema);
    else out[k] = v;
  }
  return out;
}

/** A v3 parameter (`schema` holds its type) in v2's form, where the type sits on the parameter. */
const parameterV2 = ({ schema, ...p }: Json): Json => ({ ...p, ...(schema as Json) });

const contentTypes = (x: Json | undefined) => Object.keys((x?.content as Json | undefined) ?? {});
const contentSchema = (x: Json) => Object.values(x.content as Record<string, { schema: Schema }>)[0].schema;

function operationV2({ parameters = [], requestBody, responses, ...rest }: Json): Json {
  const params = (parameters as Json[]).map(parameterV2);
  const body = requestBody as Json | undefined;
  if (body) params.unshift({ name: "body", in: "body", ...(body.required ? { required: true } : {}), schema: schemaV2(contentSchema(body)) });
  const replies = Object.entries(responses as Record<string, Json>);
  return {
    ...rest,
    consumes: body ? contentTypes(body) : ["*/*"],
    produces: [...new Set(replies.flatMap(([, r]) => contentTypes(r)))],
    ...(params.length ? { parameters: params } : {}),
    responses: Object.fromEntries(replies.map(([code, r]) => [code, { description: r.description, ...(r.content ? { schema: schemaV2(contentSchema(r)) } : {}) }])),
    schemes: ["https"],
  };
}

function pathItemV2(item: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(item)) {
    if (HTTP_METHODS.includes(k)) out[k] = operationV2(v as Json);
    else if (k === "parameters") out.parameters = (v as Json[]).map(parameterV2);
    else out[k] = v;
  }
  return out;
}

/** The Swagger 2.0 document of `defs`: the paths of every v3 document, and every schema they reach. */
function swaggerV2(defs: ResourceDef[]): Json {
  const source = apiSource(defs);
  const paths: Json = Object.assign({}, ...[...source.paths.values()].map((build) => build()));
  const sorted = Object.keys(paths).sort();
  return {
    swagger: "2.0",
    info: INFO,
    paths: Object.fromEntries(sorted.map((p) => [p, pathItemV2(paths[p] as Json)])),
    definitions: Object.fromEntries(Object.entries(reachable(paths, source.schemas)).map(([name, s]) => [name, schemaV2(s)])),
    securityDefinitions: { BearerToken: BEARER },
    security: [{ BearerToken: [] }],
  };
}

export interface OpenAPIV2 { json: OpenAPIDoc; protobuf: OpenAPIDoc }

/** Both encodings of the v2 document, each with its own ETag; the document itself is not kept. */
export function openapiV2(defs: ResourceDef[]): OpenAPIV2 {
  const doc = swaggerV2(defs);
  const json = new TextEncoder().encode(JSON.stringify(doc));
  const pb = encodeV2(doc);
  return { json: { body: json, etag: hashOf(json) }, protobuf: { body: pb, etag: hashOf(pb) } };
}
