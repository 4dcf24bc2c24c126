// A value of the wrong JSON type, named as upstream's decoder (Go's encoding/json) names it:
// `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32` — the
// struct holding the field, the path of field names from the root (no list indexes or map keys), the Go type.
// Only asked after the protobuf encoder refused the object, so its cost is no write's.
import { Scalar, type FieldPlan, type MessagePlan } from "../protobuf/schema.ts";
import { isMap } from "../util/ismap.ts";

type Obj = Record<string, unknown>;

const GO_SCALARS: Record<number, string> = {
  [Scalar.String]: "string", [Scalar.Bool]: "bool", [Scalar.Int32]: "int32", [Scalar.Int64]: "int64",
  [Scalar.Uint32]: "uint32", [Scalar.Uint64]: "uint64", [Scalar.Double]: "float64", [Scalar.Float]: "float32", [Scalar.Bytes]: "[]uint8",
};
const RANGES: Record<number, [number, number]> = {
  [Scalar.Int32]: [-2147483648, 2147483647], [Scalar.Uint32]: [0, 4294967295], [Scalar.Uint64]: [0, Infinity],
  [Scalar.Int64]: [-Infinity, Infinity],
};

/** `v1.PodSpec` for k8s.io.api.core.v1.PodSpec. */
const goName = (m: MessagePlan) => m.name.split(".").slice(-2).join(".");
const elemType = (f: FieldPlan) => (f.scalar ? GO_SCALARS[f.scalar] : goName(f.msg!));
const fieldType = (f: FieldPlan) => (f.map ? `map[string]${elemType(f)}` : f.repeated ? `[]${elemType(f)}` : elemType(f));

/** The JSON type Go names, with the number itself when it is one that does not fit. */
function jsonKind(v: unknown, f?: FieldPlan): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return f?.scalar && RANGES[f.scalar] ? `number ${v}` : "number";
  return "object";
}

/** Whether v fits a scalar of field f. */
function fits(f: FieldPlan, v: unknown): boolean {
  switch (f.scalar) {
    case Scalar.String: case Scalar.Bytes: return typeof v === "string";
    case Scalar.Bool: return typeof v === "boolean";
    case Scalar.Double: case Scalar.Float: return typeof v === "number";
    default: {
      const [lo, hi] = RANGES[f.scalar];
      return typeof v === "number" && Number.isInteger(v) && v >= lo && v <= hi;
    }
  }
}

/** Upstream's error for the first value of a wrong type in obj (a whole object of plan), or null. */
export function goTypeError(plan: MessagePlan, obj: Obj): string | null {
  return message(plan, obj, "");
}

function message(plan: MessagePlan, obj: Obj, path: string): string | null {
  const fields = new Map<string, FieldPlan>();
  const add = (p: MessagePlan) => { for (const f of p.fields) f.inline && f.msg ? add(f.msg) : fields.set(f.json, f); };
  add(plan);
  const struct = plan.name.slice(plan.name.lastIndexOf(".") + 1);
  for (const k of Object.keys(obj)) {
    const f = fields.get(k);
    const v = obj[k];
    if (!f || v === null || v === undefined) continue;
    const at = path ? `${path}.${k}` : k;
    const bad = (what: unknown, type: string) => `json: cannot unmarshal ${jsonKind(what, f)} into Go struct field ${struct}.${at} of type ${type}`;
    const elem = (x: unknown): string | null => {
      if (x === null) return null;
      if (f.scalar) return fits(f, x) ? null : bad(x, elemType(f));
      if (f.msg!.special) return null; // their own decoders' errors: the encoder's words stand
      return isMap(x) ? message(f.msg!, x, at) : bad(x, goName(f.msg!));
    };
    let err: string | null = null;
    if (f.map) {
      if (!isMap(v)) return bad(v, fieldType(f));
      for (const x of Object.values(v)) if ((err = elem(x))) return err;
    } else if (f.repeated) {
      if (!Array.isArray(v)) return bad(v, fieldType(f));
      for (const x of v) if ((err = elem(x))) return err;
    } else if ((err = elem(v))) return err;
  }
  return null;
}
