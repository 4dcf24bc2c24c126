// CertificateSigningRequests as upstream's strategies keep them: the requester's identity is the
// server's to record, the spec never changes after create, /approval writes only the conditions,
// /status cannot touch the Approved and Denied conditions, and condition times are filled in. Upstream's
// CertificateSubjectRestriction admission is here too: no system:masters through the API client signer.
import type { UserInfo } from "../auth/user.ts";
import { validateCsrUpdate } from "../validation/csr-status.ts";
import { run } from "../validation/rules.ts";
import { now } from "./metadata-values.ts";
import type { Obj, Strategy } from "./types.ts";

const conditions = (o: Obj): Obj[] => (Array.isArray(o.status?.conditions) ? o.status.conditions : []);

/** A /status write keeps the Approved and Denied conditions as they were (their place in the list may change). */
function keepApprovalConditions(next: Obj, old: Obj) {
  for (const type of ["Approved", "Denied"]) {
    const was = conditions(old).filter((c) => c?.type === type);
    const at = conditions(next).flatMap((c, i) => (c?.type === type ? [i] : []));
    // added or removed ones are left for validation to refuse
    if (was.length === at.length) at.forEach((i, k) => { next.status.conditions[i] = was[k]; });
  }
}

/** lastUpdateTime defaults to now; lastTransitionTime to the old one of that type and status, else now. */
function stampConditions(next: Obj, old: Obj) {
  const t = now();
  for (const c of conditions(next)) {
    if (!c || typeof c !== "object") continue;
    c.lastUpdateTime ||= t;
    c.lastTransitionTime ||= conditions(old).find((o) => o?.type === c.type && o?.status === c.status && o?.lastTransitionTime)?.lastTransitionTime ?? t;
  }
}

function recordRequester(o: Obj, user?: UserInfo) {
  const spec = (o.spec ??= {});
  for (const f of ["username", "uid", "groups", "extra"]) delete spec[f];
  if (!user) return;
  spec.username = user.name;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) spec.extra = structuredClone(user.extra);
}

export const certificateSigningRequest: Strategy = {
  fieldLabels: { values: (o) => ({ "spec.signerName": o.spec?.signerName ?? "" }), metadata: ["metadata.name"] },
  prepareForCreate(o, user) {
    recordRequester(o, user);
    // a request cannot come pre-approved
    o.status = {};
  },
  prepareForUpdate(o, old) {
    o.spec = structuredClone(old.spec);
  },
  prepareForSubresourceUpdate(sub, o, old) {
    if (sub === "approval") o.status = { ...structuredClone(old.status ?? {}), conditions: o.status?.conditions };
    else keepApprovalConditions(o, old);
    if (o.status?.conditions === undefined) delete o.status.conditions;
    stampConditions(o, old);
  },
  validate(o, old, sub) {
    return old ? run((e) => validateCsrUpdate(e, o, old, sub ?? "")) : [];
  },
};
