// authorization.k8s.io/v1beta1 access reviews, to and from v1: a review's spec.group became spec.groups.
import type { VersionRow } from "../table.ts";
import { type Convert, renameKey, rows } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const rename = (from: string, to: string): Convert => (obj) => {
  if (isMap(obj.spec)) obj.spec = renameKey(obj.spec, from, to);
  return obj;
};
const groups = { toHub: rename("group", "groups"), fromHub: rename("groups", "group") };
const deprecated = (kind: string) => ({ in: "1.19", removedIn: "1.22", replacement: `authorization.k8s.io/v1 ${kind}` });

export const AUTHORIZATION_ROWS: VersionRow[] = rows(
  { group: "authorization.k8s.io", version: "v1beta1", hub: { group: "authorization.k8s.io", version: "v1" }, served: true },
  {
    SubjectAccessReview: { ...groups, deprecated: deprecated("SubjectAccessReview") },
    LocalSubjectAccessReview: { ...groups, deprecated: deprecated("LocalSubjectAccessReview") },
    SelfSubjectAccessReview: { deprecated: deprecated("SelfSubjectAccessReview") },
    SelfSubjectRulesReview: { deprecated: deprecated("SelfSubjectRulesReview") },
  },
);
