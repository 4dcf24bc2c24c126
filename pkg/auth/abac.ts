// --authorization-mode=ABAC: the policy file of --authorization-policy-file, one JSON policy a line, in
// abac.authorization.kubernetes.io/v1beta1 or the legacy unversioned (v0) form, matched as upstream's ABAC
// authorizer matches: the first policy that matches allows; none matching is no opinion.
import { readFileSync } from "node:fs";
import { type Attributes, type Authorizer, ALLOW, type Decision } from "./authorize.ts";
import { AUTHENTICATED } from "./user.ts";
import { goJSONSyntaxError } from "../util/gojson.ts";

/** A policy's spec after conversion: empty strings are "not said", `*` matches anything. */
export interface PolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

const GROUP = "abac.authorization.kubernetes.io";
const READ_VERBS = new Set(["get", "list", "watch"]);

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** v1beta1: a user or group of `*` means every authenticated subject. */
function fromV1beta1(spec: Record<string, unknown>): PolicySpec {
  const p: PolicySpec = {
    user: str(spec.user), group: str(spec.group), readonly: spec.readonly === true, apiGroup: str(spec.apiGroup),
    resource: str(spec.resource), namespace: str(spec.namespace), nonResourcePath: str(spec.nonResourcePath),
  };
  if (p.user === "*" || p.group === "*") Object.assign(p, { user: "", group: AUTHENTICATED });
  return p;
}

/** The unversioned form: what it leaves out matches everything, and every rule spans all API groups. */
function fromV0(o: Record<string, unknown>): PolicySpec {
  const p: PolicySpec = {
    user: str(o.user), group: str(o.group), readonly: o.readonly === true, apiGroup: "*",
    resource: str(o.resource) || "*", namespace: str(o.namespace) || "*", nonResourcePath: str(o.namespace) ? "" : "*",
  };
  if ((!p.user && !p.group) || p.user === "*" || p.group === "*") Object.assign(p, { user: "", group: AUTHENTICATED });
  return p;
}

/** Field types as Go's decoder checks them: a string field given a number is an error. */
function checkTypes(o: Record<string, unknown>, where: string) {
  for (const [k, v] of Object.entries(o)) {
    const want = k === "readonly" ? "boolean" : "string";
    if (["user", "group", "readonly", "apiGroup", "resource", "namespace", "nonResourcePath"].includes(k) && v !== null && typeof v !== want) {
      throw new Error(`json: cannot unmarshal ${Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v} into Go struct field ${where}.${k} of type ${want === "boolean" ? "bool" : "string"}`);
    }
  }
}

/** One line of the file as a policy; throws the decoder's reason. */
export function parsePolicyLine(line: string): PolicySpec {
  const syntax = goJSONSyntaxError(Buffer.from(line));
  if (syntax) throw new Error(syntax);
  const o = JSON.parse(line);
  if (typeof o !== "object" || o === null || Array.isArray(o)) throw new Error(`json: cannot unmarshal ${Array.isArray(o) ? "array" : typeof o} into Go value of type struct`);
  const apiVersion = str(o.apiVersion), kind = str(o.kind);
  if (apiVersion === `${GROUP}/v1beta1` && kind === "Policy") {
    const spec = o.spec ?? {};
    checkTypes(spec, "PolicySpec");
    return fromV1beta1(spec);
  }
  if ((!apiVersion && !kind) || (apiVersion === `${GROUP}/v0` && kind === "Policy")) {
    checkTypes(o, "Policy");
    return fromV0(o);
  }
  throw new Error(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/apis/abac/latest/latest.go:47"`);
}

/** Reads the policy file; blank lines and `#` comments are skipped. Errors name the file and line. */
export function loadPolicyFile(path: string): PolicySpec[] {
  const text = readFileSync(path, "utf8");
  const out: PolicySpec[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    const t = line.trim();
    if (!t || t.startsWith("#")) return;
    try {
      out.push(parsePolicyLine(line));
    } catch (e) {
      throw new Error(`error reading policy file ${path}, line ${i + 1}: ${line}: ${(e as Error).message}`);
    }
  });
  return out;
}

function subjectMatches(p: PolicySpec, a: Attributes): boolean {
  let matched = false;
  if (p.user) {
    if (p.user !== "*" && p.user !== a.user.name) return false;
    matched = true;
  }
  if (p.group) {
    if (p.group !== "*" && !a.user.groups.includes(p.group)) return false;
    matched = true;
  }
  return matched;
}

const wild = (want: string, got: string) => want === "*" || want === got;

function resourceMatches(p: PolicySpec, a: Attributes): boolean {
  return a.isResourceRequest && wild(p.namespace, a.namespace) && wild(p.resource, a.resource) && wild(p.apiGroup, a.apiGroup);
}

function nonResourceMatches(p: PolicySpec, a: Attributes): boolean {
  if (a.isResourceRequest) return false;
  const want = p.nonResourcePath;
  return want === "*" || want === a.path || (want.endsWith("*") && a.path.startsWith(want.replace(/\*+$/, "")));
}

export function policyMatches(p: PolicySpec, a: Attributes): boolean {
  if (!subjectMatches(p, a)) return false;
  // read-only policies still allow every read
  if (p.readonly && !READ_VERBS.has(a.verb)) return false;
  return resourceMatches(p, a) || nonResourceMatches(p, a);
}

export class AbacAuthorizer implements Authorizer {
  constructor(private policies: PolicySpec[]) {}

  static fromFile(path: string): AbacAuthorizer {
    return new AbacAuthorizer(loadPolicyFile(path));
  }

  authorize(a: Attributes): Decision {
    return this.policies.some((p) => policyMatches(p, a)) ? ALLOW : { decision: "noOpinion", reason: "No policy matched." };
  }
}
