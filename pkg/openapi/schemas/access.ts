// The review kinds of authorization.k8s.io/v1 and authentication.k8s.io (SelfSubjectReview, v1 and v1beta1).
import { ATOMIC, type Table, arr, bool, kind, map, obj, pkg, ref, str, strs } from "./dsl.ts";

const EXTRA_VALUE = { type: "array", items: { type: "string", default: "" } };
const AUTHN_V1 = "io.k8s.api.authentication.v1.";
const AUTHN_V1BETA1 = "io.k8s.api.authentication.v1beta1.";

const resourceAttributes = obj("A resource request, as an authorizer sees it.", {
  namespace: str("Namespace of the request; \"\" for cluster-scoped resources, or all namespaces."),
  verb: str("A resource verb (get, list, watch, create, update, delete, ...); * for all."),
  group: str("API group of the resource; * for all."),
  version: str("API version of the resource; * for all."),
  resource: str("The resource; * for all."),
  subresource: str("The subresource; \"\" for none."),
  name: str("Name of the object; \"\" for all."),
});

const spec = (self: boolean) => obj(self ? "What the caller asks to do: exactly one of the attributes." : "Who asks to do what: exactly one of the attributes.", {
  resourceAttributes: ref("authorization.ResourceAttributes", "A resource request."),
  nonResourceAttributes: ref("authorization.NonResourceAttributes", "A non-resource request."),
  ...(self ? {} : {
    user: str("The user asked about."),
    groups: strs("The groups asked about.", ATOMIC),
    extra: map(EXTRA_VALUE, "Extra attributes of the user."),
    uid: str("The UID of the user."),
  }),
});

const review = (d: string, specName: string, statusName: string, required = ["spec"]) =>
  kind(d, { spec: ref(specName, "The request evaluated."), status: ref(statusName, "Filled in by the server.") }, required);

const authorization: Table = {
  ResourceAttributes: resourceAttributes,
  NonResourceAttributes: obj("A non-resource request.", { path: str("URL path of the request."), verb: str("HTTP verb, lower case.") }),
  SubjectAccessReviewSpec: spec(false),
  SelfSubjectAccessReviewSpec: spec(true),
  SubjectAccessReviewStatus: obj("The decision.", {
    allowed: bool("True when the request would be allowed."),
    denied: bool("True when an authorizer denied it explicitly."),
    reason: str("Why it was allowed or denied."),
    evaluationError: str("What went wrong while deciding, if anything."),
  }, ["allowed"]),
  SubjectAccessReview: review("Asks whether a user may do something.", "authorization.SubjectAccessReviewSpec", "authorization.SubjectAccessReviewStatus"),
  LocalSubjectAccessReview: review("Asks whether a user may do something in one namespace.", "authorization.SubjectAccessReviewSpec", "authorization.SubjectAccessReviewStatus"),
  SelfSubjectAccessReview: review("Asks whether the caller may do something.", "authorization.SelfSubjectAccessReviewSpec", "authorization.SubjectAccessReviewStatus"),
  SelfSubjectRulesReviewSpec: obj("The namespace asked about.", { namespace: str("Namespace to list the rules of.") }),
  ResourceRule: obj("What the caller may do to resources.", {
    verbs: strs("Verbs; * for all.", ATOMIC), apiGroups: strs("Groups; * for all.", ATOMIC),
    resources: strs("Resources; * for all, */sub for a subresource of all.", ATOMIC), resourceNames: strs("Names; empty for all.", ATOMIC),
  }, ["verbs"]),
  NonResourceRule: obj("What the caller may do to non-resource URLs.", {
    verbs: strs("Verbs; * for all.", ATOMIC), nonResourceURLs: strs("URL paths; a trailing * is a prefix.", ATOMIC),
  }, ["verbs"]),
  SubjectRulesReviewStatus: obj("The rules the caller holds.", {
    resourceRules: arr("authorization.ResourceRule", "Rules on resources.", ATOMIC),
    nonResourceRules: arr("authorization.NonResourceRule", "Rules on non-resource URLs.", ATOMIC),
    incomplete: bool("True when an authorizer could not list its rules."),
    evaluationError: str("What went wrong while listing, if anything."),
  }, ["resourceRules", "nonResourceRules", "incomplete"]),
  SelfSubjectRulesReview: review("Lists what the caller may do in a namespace.", "authorization.SelfSubjectRulesReviewSpec", "authorization.SubjectRulesReviewStatus"),
};

const userInfo = obj("A user as authentication found it.", {
  username: str("The name of the user."), uid: str("A unique value for the user."),
  groups: strs("The groups of the user.", ATOMIC),
  extra: map(EXTRA_VALUE, "Extra attributes the authenticator gave."),
});

const selfSubjectReview = (version: string) => kind("Who the server takes the caller to be.", {
  status: ref(`${version}SelfSubjectReviewStatus`, "Filled in by the server."),
});
const selfStatus = obj("The caller's user information.", { userInfo: ref(`${AUTHN_V1}UserInfo`, "The caller.") });

export const ACCESS_SCHEMAS: Table = {
  ...pkg("authorization", authorization),
  [`${AUTHN_V1}UserInfo`]: userInfo,
  [`${AUTHN_V1}SelfSubjectReview`]: selfSubjectReview(AUTHN_V1),
  [`${AUTHN_V1}SelfSubjectReviewStatus`]: selfStatus,
  [`${AUTHN_V1BETA1}SelfSubjectReview`]: selfSubjectReview(AUTHN_V1BETA1),
  [`${AUTHN_V1BETA1}SelfSubjectReviewStatus`]: selfStatus,
};
