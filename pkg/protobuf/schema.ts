// The message catalogue: Kite's .proto files, embedded as text (so `bun build --compile` carries them),
// parsed on first use into flat per-message plans that the codec walks.
import admissionregistrationV1 from "../../proto/api/admissionregistration_v1.proto" with { type: "text" };
import appsV1 from "../../proto/api/apps_v1.proto" with { type: "text" };
import authenticationV1 from "../../proto/api/authentication_v1.proto" with { type: "text" };
import authenticationV1beta1 from "../../proto/api/authentication_v1beta1.proto" with { type: "text" };
import authorizationV1 from "../../proto/api/authorization_v1.proto" with { type: "text" };
import autoscalingV1 from "../../proto/api/autoscaling_v1.proto" with { type: "text" };
import autoscalingV2beta1 from "../../proto/api/autoscaling_v2beta1.proto" with { type: "text" };
import autoscalingV2beta2 from "../../proto/api/autoscaling_v2beta2.proto" with { type: "text" };
import batchV1 from "../../proto/api/batch_v1.proto" with { type: "text" };
import certificatesV1 from "../../proto/api/certificates_v1.proto" with { type: "text" };
import coordinationV1 from "../../proto/api/coordination_v1.proto" with { type: "text" };
import coreV1 from "../../proto/api/core_v1.proto" with { type: "text" };
import discoveryV1 from "../../proto/api/discovery_v1.proto" with { type: "text" };
import eventsV1 from "../../proto/api/events_v1.proto" with { type: "text" };
import flowcontrolV1beta1 from "../../proto/api/flowcontrol_v1beta1.proto" with { type: "text" };
import networkingV1 from "../../proto/api/networking_v1.proto" with { type: "text" };
import nodeV1 from "../../proto/api/node_v1.proto" with { type: "text" };
import policyV1 from "../../proto/api/policy_v1.proto" with { type: "text" };
import policyV1beta1 from "../../proto/api/policy_v1beta1.proto" with { type: "text" };
import apiregistrationV1 from "../../proto/api/apiregistration_v1.proto" with { type: "text" };
import metricsV1beta1 from "../../proto/api/metrics_v1beta1.proto" with { type: "text" };
import rbacV1 from "../../proto/api/rbac_v1.proto" with { type: "text" };
import schedulingV1 from "../../proto/api/scheduling_v1.proto" with { type: "text" };
import storageV1 from "../../proto/api/storage_v1.proto" with { type: "text" };
import apiextensionsV1 from "../../proto/apiextensions/apiextensions_v1.proto" with { type: "text" };
import admissionregistrationV1beta1 from "../../proto/api/admissionregistration_v1beta1.proto" with { type: "text" };
import authorizationV1beta1 from "../../proto/api/authorization_v1beta1.proto" with { type: "text" };
import certificatesV1beta1 from "../../proto/api/certificates_v1beta1.proto" with { type: "text" };
import discoveryV1beta1 from "../../proto/api/discovery_v1beta1.proto" with { type: "text" };
import eventsV1beta1 from "../../proto/api/events_v1beta1.proto" with { type: "text" };
import extensionsV1beta1 from "../../proto/api/extensions_v1beta1.proto" with { type: "text" };
import networkingV1beta1 from "../../proto/api/networking_v1beta1.proto" with { type: "text" };
import apiextensionsV1beta1 from "../../proto/apiextensions/apiextensions_v1beta1.proto" with { type: "text" };
import intstr from "../../proto/apimachinery/intstr.proto" with { type: "text" };
import metaV1 from "../../proto/apimachinery/meta_v1.proto" with { type: "text" };
import metaV1beta1 from "../../proto/apimachinery/meta_v1beta1.proto" with { type: "text" };
import resource from "../../proto/apimachinery/resource.proto" with { type: "text" };
import runtime from "../../proto/apimachinery/runtime.proto" with { type: "text" };
import { ProtobufError } from "./errors.ts";

/** The embedded .proto sources, by path under `proto/`. */
export const PROTO_FILES: Readonly<Record<string, string>> = {
  "apimachinery/runtime.proto": runtime,
  "apimachinery/resource.proto": resource,
  "apimachinery/intstr.proto": intstr,
  "apimachinery/meta_v1.proto": metaV1,
  "apimachinery/meta_v1beta1.proto": metaV1beta1,
  "api/core_v1.proto": coreV1,
  "api/apps_v1.proto": appsV1,
  "api/batch_v1.proto": batchV1,
  "api/autoscaling_v1.proto": autoscalingV1,
  "api/autoscaling_v2beta1.proto": autoscalingV2beta1,
  "api/autoscaling_v2beta2.proto": autoscalingV2beta2,
  "api/coordination_v1.proto": coordinationV1,
  "api/rbac_v1.proto": rbacV1,
  "api/networking_v1.proto": networkingV1,
  "api/policy_v1.proto": policyV1,
  "api/policy_v1beta1.proto": policyV1beta1,
  "api/apiregistration_v1.proto": apiregistrationV1,
  "api/metrics_v1beta1.proto": metricsV1beta1,
  "api/scheduling_v1.proto": schedulingV1,
  "api/storage_v1.proto": storageV1,
  "api/events_v1.proto": eventsV1,
  "api/flowcontrol_v1beta1.proto": flowcontrolV1beta1,
  "api/discovery_v1.proto": discoveryV1,
  "api/node_v1.proto": nodeV1,
  "api/certificates_v1.proto": certificatesV1,
  "api/admissionregistration_v1.proto": admissionregistrationV1,
  "api/authentication_v1.proto": authenticationV1,
  "api/authentication_v1beta1.proto": authenticationV1beta1,
  "api/authorization_v1.proto": authorizationV1,
  "apiextensions/apiextensions_v1.proto": apiextensionsV1,
  "api/admissionregistration_v1beta1.proto": admissionregistrationV1beta1,
  "api/authorization_v1beta1.proto": authorizationV1beta1,
  "api/certificates_v1beta1.proto": certificatesV1beta1,
  "api/discovery_v1beta1.proto": discoveryV1beta1,
  "api/events_v1beta1.proto": eventsV1beta1,
  "api/extensions_v1beta1.proto": extensionsV1beta1,
  "api/networking_v1beta1.proto": networkingV1beta1,
  "apiextensions/apiextensions_v1beta1.proto": apiextensionsV1beta1,
};

// ---- parsing (the subset Kite's files use: proto2 messages, optional/repeated/map fields, field options)

export type OptionValue = string | number | boolean;
export interface ProtoField {
  name: string;
  number: number;
  label: "optional" | "required" | "repeated" | "map";
  type: string;
  keyType?: string;
  options: Record<string, OptionValue>;
}
export interface ProtoMessage {
  fullName: string;
  fields: ProtoField[];
}
export interface ProtoFile {
  package: string;
  imports: string[];
  messages: ProtoMessage[];
}

const FIELD = /^(optional|required|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*(?:\[(.*)\])?\s*;$/;
const MAP_FIELD = /^map\s*<\s*(\w+)\s*,\s*([\w.]+)\s*>\s*(\w+)\s*=\s*(\d+)\s*(?:\[(.*)\])?\s*;$/;
const OPTION = /\s*(\(?[\w.]+\)?)\s*=\s*("(?:[^"\\]|\\.)*"|[\w.+-]+)\s*(?:,|$)/y;

function parseOptions(text: string | undefined, where: string): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = {};
  if (!text || !text.trim()) return out;
  OPTION.lastIndex = 0;
  while (OPTION.lastIndex < text.length) {
    const m = OPTION.exec(text);
    if (!m) throw new ProtobufError(`${where}: cannot parse field options "${text}"`);
    const raw = m[2];
    out[m[1]] = raw.startsWith('"') ? JSON.parse(raw) : raw === "true" ? true : raw === "false" ? false : Number.isNaN(Number(raw)) ? raw : Number(raw);
  }
  return out;
}

/** Parses one .proto file of the subset Kite writes: one statement per line (`syntax`, `package`, `import`,
 * `option`, `message X {`, `}`, optional/required/repeated/map fields with options, `extend ... {}` blocks
 * skipped), `//` comments. Anything else is an error, not silently skipped. */
export function parseProto(text: string, file = "<proto>"): ProtoFile {
  const out: ProtoFile = { package: "", imports: [], messages: [] };
  const stack: ProtoMessage[] = [];
  let skipping = 0; // depth inside an `extend` block
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n];
    const comment = line.indexOf("//");
    if (comment >= 0) line = line.slice(0, comment);
    line = line.trim();
    if (!line) continue;
    const fail = (why: string) => new ProtobufError(`${file}:${n + 1}: ${why}: ${line}`);
    if (skipping) {
      if (line.endsWith("{")) skipping++;
      if (line === "}") skipping--;
      continue;
    }
    const current = stack[stack.length - 1];
    const c = line.charCodeAt(0);
    let m: RegExpExecArray | null;
    if (line === "}") {
      if (!stack.pop()) throw fail("unbalanced }");
    } else if (c === 111 /* o */ && line.startsWith("optional ")) {
      if (!current || !(m = FIELD.exec(line))) throw fail("unsupported field");
      current.fields.push({ name: m[3], number: Number(m[4]), label: "optional", type: m[2], options: parseOptions(m[5], `${file}:${n + 1}`) });
    } else if (c === 114 /* r */ && (line.startsWith("repeated ") || line.startsWith("required "))) {
      if (!current || !(m = FIELD.exec(line))) throw fail("unsupported field");
      current.fields.push({ name: m[3], number: Number(m[4]), label: m[1] as ProtoField["label"], type: m[2], options: parseOptions(m[5], `${file}:${n + 1}`) });
    } else if (line.startsWith("map")) {
      if (!current || !(m = MAP_FIELD.exec(line))) throw fail("unsupported map field");
      current.fields.push({ name: m[3], number: Number(m[4]), label: "map", type: m[2], keyType: m[1], options: parseOptions(m[5], `${file}:${n + 1}`) });
    } else if ((m = /^message\s+(\w+)\s*\{\s*(\})?$/.exec(line))) {
      const parent = current ? current.fullName : out.package;
      const msg: ProtoMessage = { fullName: parent ? `${parent}.${m[1]}` : m[1], fields: [] };
      out.messages.push(msg);
      if (!m[2]) stack.push(msg);
    } else if ((m = /^package\s+([\w.]+)\s*;$/.exec(line))) {
      out.package = m[1];
    } else if ((m = /^import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;$/.exec(line))) {
      out.imports.push(m[1]);
    } else if (/^(syntax\s*=\s*"proto2"|option\s.*)\s*;$/.test(line) || line === ";") {
      // nothing to keep
    } else if (/^extend\s+[\w.]+\s*\{$/.test(line)) {
      skipping = 1;
    } else throw fail("unsupported .proto syntax");
  }
  if (stack.length) throw new ProtobufError(`${file}: unterminated message ${stack[stack.length - 1].fullName}`);
  return out;
}

// ---- plans

export const Scalar = {
  String: 1,
  Bool: 2,
  Int32: 3,
  Int64: 4,
  Uint32: 5,
  Uint64: 6,
  Double: 7,
  Float: 8,
  Bytes: 9,
} as const;
export type Scalar = (typeof Scalar)[keyof typeof Scalar];
const SCALARS: Record<string, Scalar> = {
  string: Scalar.String,
  bool: Scalar.Bool,
  int32: Scalar.Int32,
  int64: Scalar.Int64,
  uint32: Scalar.Uint32,
  uint64: Scalar.Uint64,
  double: Scalar.Double,
  float: Scalar.Float,
  bytes: Scalar.Bytes,
};
export const WIRE_OF_SCALAR: Record<Scalar, number> = {
  [Scalar.String]: 2,
  [Scalar.Bool]: 0,
  [Scalar.Int32]: 0,
  [Scalar.Int64]: 0,
  [Scalar.Uint32]: 0,
  [Scalar.Uint64]: 0,
  [Scalar.Double]: 1,
  [Scalar.Float]: 5,
  [Scalar.Bytes]: 2,
};

/** Messages whose JSON form is not an object of their fields (Go types with their own JSON marshalling). */
export type Special =
  | "time" // meta/v1 Time: RFC 3339 string, seconds precision; empty message = zero time
  | "microtime" // meta/v1 MicroTime: RFC 3339 with microseconds
  | "duration" // meta/v1 Duration: Go duration string
  | "quantity" // resource.Quantity: string
  | "intorstr" // intstr.IntOrString: number or string
  | "rawext" // runtime.RawExtension: any JSON (or an embedded protobuf object)
  | "rawjson" // meta/v1 FieldsV1, apiextensions JSON: any JSON held as bytes
  | "strlist" // meta/v1 Verbs, certificates and authentication ExtraValue: array of strings
  | "orbool" // JSONSchemaPropsOrBool: boolean or schema
  | "orarray" // JSONSchemaPropsOrArray: schema or array of schemas
  | "orstrings"; // JSONSchemaPropsOrStringArray: schema or array of strings

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";
const APIEXT = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1";
const SPECIALS: Record<string, Special> = {
  [`${META}.Time`]: "time",
  [`${META}.MicroTime`]: "microtime",
  [`${META}.Duration`]: "duration",
  [`${META}.FieldsV1`]: "rawjson",
  [`${META}.Verbs`]: "strlist",
  "k8s.io.apimachinery.pkg.api.resource.Quantity": "quantity",
  "k8s.io.apimachinery.pkg.api.resource.QuantityValue": "quantity",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "intorstr",
  "k8s.io.apimachinery.pkg.runtime.RawExtension": "rawext",
  "k8s.io.api.certificates.v1.ExtraValue": "strlist",
  "k8s.io.api.authentication.v1.ExtraValue": "strlist",
  "k8s.io.api.authentication.v1beta1.ExtraValue": "strlist",
  "k8s.io.api.authorization.v1.ExtraValue": "strlist",
  [`${APIEXT}.JSON`]: "rawjson",
  [`${APIEXT}.JSONSchemaPropsOrBool`]: "orbool",
  [`${APIEXT}.JSONSchemaPropsOrArray`]: "orarray",
  [`${APIEXT}.JSONSchemaPropsOrStringArray`]: "orstrings",
};

export interface FieldPlan {
  num: number;
  /** The JSON key (json_name option, else the proto field name). */
  json: string;
  /** Scalar kind; 0 when the field (or the map value) is a message. */
  scalar: Scalar | 0;
  msg: MessagePlan | null;
  repeated: boolean;
  map: boolean;
  /** Merge the message's JSON fields into the parent object (Go `json:",inline"`). */
  inline: boolean;
  /** Keep a zero scalar read from the wire (Go pointer, or no omitempty). */
  keepZero: boolean;
  /** The field key as written before each value: number << 3 | wire type. */
  key: number;
}
export interface MessagePlan {
  name: string;
  special: Special | null;
  /** Fields in field-number order (the order upstream writes them). */
  fields: FieldPlan[];
  /** Fields indexed by number. */
  byNum: (FieldPlan | undefined)[];
}

export interface Catalogue {
  messages: Map<string, MessagePlan>;
  /** Milliseconds spent parsing and planning. */
  loadMs: number;
}

function resolveType(ref: string, scope: string, known: Map<string, unknown>): string | null {
  if (ref.startsWith(".")) return known.has(ref.slice(1)) ? ref.slice(1) : null;
  for (let s = scope; ; ) {
    const cand = s ? `${s}.${ref}` : ref;
    if (known.has(cand)) return cand;
    if (!s) return null;
    const dot = s.lastIndexOf(".");
    s = dot < 0 ? "" : s.slice(0, dot);
  }
}

/** Builds the plans for a set of parsed files. */
export function buildCatalogue(files: ProtoFile[]): Map<string, MessagePlan> {
  const protos = new Map<string, ProtoMessage>();
  for (const f of files) for (const m of f.messages) protos.set(m.fullName, m);
  const plans = new Map<string, MessagePlan>();
  for (const name of protos.keys()) plans.set(name, { name, special: SPECIALS[name] ?? null, fields: [], byNum: [] });
  for (const [name, pm] of protos) {
    const plan = plans.get(name)!;
    for (const f of [...pm.fields].sort((a, b) => a.number - b.number)) {
      const scalar = SCALARS[f.type] ?? 0;
      let msg: MessagePlan | null = null;
      if (!scalar) {
        const full = resolveType(f.type, name, protos);
        if (!full) throw new ProtobufError(`${name}.${f.name}: unknown type ${f.type}`);
        msg = plans.get(full)!;
      }
      const map = f.label === "map";
      if (map && f.keyType !== "string") throw new ProtobufError(`${name}.${f.name}: only string map keys are supported`);
      const repeated = f.label === "repeated";
      const fp: FieldPlan = {
        num: f.number,
        json: typeof f.options.json_name === "string" ? f.options.json_name : f.name,
        scalar,
        msg,
        repeated,
        map,
        inline: f.options["(kite.inline)"] === true,
        keepZero: f.options["(kite.keep_zero)"] === true,
        key: (f.number << 3) | (map || !scalar ? 2 : WIRE_OF_SCALAR[scalar as Scalar]),
      };
      if (fp.inline && (!msg || repeated || map)) throw new ProtobufError(`${name}.${f.name}: only a singular message can be inline`);
      if (plan.byNum[f.number]) throw new ProtobufError(`${name}: field number ${f.number} used twice`);
      if (!fp.inline && plan.fields.some((o) => !o.inline && o.json === fp.json)) throw new ProtobufError(`${name}: JSON name ${fp.json} used twice`);
      plan.fields.push(fp);
      plan.byNum[f.number] = fp;
    }
  }
  return plans;
}

let catalogue: Catalogue | null = null;

/** The parsed catalogue of every embedded file; built on first call. */
export function getCatalogue(): Catalogue {
  if (catalogue) return catalogue;
  const t0 = performance.now();
  const files = Object.entries(PROTO_FILES).map(([path, text]) => parseProto(text, path));
  const messages = buildCatalogue(files);
  catalogue = { messages, loadMs: performance.now() - t0 };
  return catalogue;
}
