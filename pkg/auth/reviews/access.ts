// authorization.k8s.io/v1: SubjectAccessReview (may this user...?), LocalSubjectAccessReview (the same
// within one namespace), SelfSubjectAccessReview (may I...?) asked of the whole authorizer chain, and
// SelfSubjectRulesReview (what may I do in this namespace?).
import { badRequest, invalid } from "../../api/status.ts";
import type { Review } from "../../api/handlers/review.ts";
import type { Obj } from "../../registry/types.ts";
import { Errs, Printed } from "../../validation/field.ts";
import type { Attributes, AuthorizerChain } from "../authorize.ts";
import { aggregate } from "../rbac/authorizer.ts";
import type { UserInfo } from "../user.ts";
import type { ResolvedRules } from "./rules.ts";

const GROUP = "authorization.k8s.io";

/** Go's %#v of the attributes a spec names (what upstream prints for an invalid one). */
function printed(kind: string, attrs: Obj | undefined): Printed {
  if (!attrs) return new Printed(`"null"`);
  return new Printed(`authorization.${kind}{${Object.entries(attrs).map(([k, v]) => `${k[0].toUpperCase()}${k.slice(1)}:${JSON.stringify(v)}`).join(", ")}}`);
}

/** Exactly one of resourceAttributes and nonResourceAttributes, as upstream validates every access review. */
function validateAttributes(e: Errs, spec: Obj) {
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    e.invalid("spec.nonResourceAttributes", printed("NonResourceAttributes", spec.nonResourceAttributes), "cannot be specified in combination with resourceAttributes");
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    e.invalid("spec.resourceAttributes", printed("NonResourceAttributes", spec.nonResourceAttributes), "exactly one of nonResourceAttributes or resourceAttributes must be specified");
  }
}

/** Metadata given beyond what is allowed (nothing, or the namespace of a local review). */
function extraMetadata(meta: Obj, allowed: string[]): boolean {
  return Object.entries(meta).some(([k, v]) => !allowed.includes(k) && v !== null && v !== undefined && v !== "" && !(typeof v === "object" && Object.keys(v).length === 0));
}

function check(kind: string, obj: Obj, fill: (e: Errs) => void) {
  const e = new Errs();
  fill(e);
  if (e.causes.length) throw invalid({ group: GROUP, resource: "", kind }, "", e.causes);
}

function attributesOf(user: UserInfo, spec: Obj): Attributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user, isResourceRequest: true, path: "", verb: r.verb ?? "", namespace: r.namespace ?? "", apiGroup: r.group ?? "",
      apiVersion: r.version ?? "", resource: r.resource ?? "", subresource: r.subresource ?? "", name: r.name ?? "",
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, isResourceRequest: false, path: n.path ?? "", verb: n.verb ?? "", namespace: "", apiGroup: "", apiVersion: "", resource: "", subresource: "", name: "" };
}

/** The spec's user, as upstream builds it: no group is added (not even system:authenticated). */
function specUser(spec: Obj): UserInfo {
  const u: UserInfo = { name: spec.user ?? "", groups: spec.groups ?? [] };
  if (spec.uid) u.uid = spec.uid;
  if (spec.extra) u.extra = spec.extra;
  return u;
}

export function accessReviews(authz: AuthorizerChain, rulesFor: (u: UserInfo, ns: string) => ResolvedRules): Record<string, Review> {
  const decide = async (obj: Obj, user: UserInfo): Promise<Obj> => {
    const d = await authz.authorize(attributesOf(user, obj.spec));
    const status: Obj = { allowed: d.decision === "allow" };
    if (d.decision === "deny") status.denied = true;
    if (d.reason) status.reason = d.reason;
    if (d.error) status.evaluationError = d.error;
    return { ...obj, status };
  };
  const subjectSpec = (e: Errs, spec: Obj) => {
    validateAttributes(e, spec);
    if (!spec.user && !spec.groups?.length) e.invalid("spec.user", spec.user ?? "", "at least one of user or group must be specified");
  };
  return {
    subjectaccessreviews: (obj) => {
      obj.spec ??= {};
      check("SubjectAccessReview", obj, (e) => {
        if (extraMetadata(obj.metadata, [])) e.invalid("metadata", new Printed(JSON.stringify(obj.metadata)), "must be empty");
        subjectSpec(e, obj.spec);
      });
      return decide(obj, specUser(obj.spec));
    },
    localsubjectaccessreviews: (obj, { namespace }) => {
      obj.spec ??= {};
      if (!namespace) throw badRequest(`namespace is required on this type: ${namespace}`);
      check("LocalSubjectAccessReview", obj, (e) => {
        if (extraMetadata(obj.metadata, ["namespace"])) e.invalid("metadata", new Printed(JSON.stringify(obj.metadata)), "must be empty except for namespace");
        const r = obj.spec.resourceAttributes;
        if (r && (r.namespace ?? "") !== namespace) e.invalid("spec.resourceAttributes.namespace", r.namespace ?? "", "must match metadata.namespace");
        if (obj.spec.nonResourceAttributes) e.invalid("spec.nonResourceAttributes", printed("NonResourceAttributes", obj.spec.nonResourceAttributes), "disallowed on this kind of request");
        subjectSpec(e, obj.spec);
      });
      return decide(obj, specUser(obj.spec));
    },
    selfsubjectaccessreviews: (obj, { user }) => {
      obj.spec ??= {};
      check("SelfSubjectAccessReview", obj, (e) => validateAttributes(e, obj.spec));
      return decide(obj, user);
    },
    selfsubjectrulesreviews: (obj, { user }) => {
      const ns = obj.spec?.namespace;
      if (!ns) throw badRequest("no namespace on request");
      const got = rulesFor(user, ns);
      const status: Obj = {
        resourceRules: got.rules.filter((r) => r.resources?.length).map((r) => ({
          verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
        })),
        nonResourceRules: got.rules.filter((r) => r.nonResourceURLs?.length).map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
        incomplete: got.incomplete,
      };
      if (got.errors.length) status.evaluationError = aggregate(got.errors);
      return { ...obj, status };
    },
  };
}
