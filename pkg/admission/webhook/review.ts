// AdmissionReview v1 and v1beta1: the request a webhook gets, and what its answer means.
import { randomUUID } from "node:crypto";
import { StatusError } from "../../api/status.ts";
import type { Obj, ResourceDef } from "../../registry/types.ts";
import type { Attributes } from "../types.ts";

export const REVIEW_VERSIONS = ["v1", "v1beta1"];

const OPTIONS_KIND: Record<string, string> = { CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions" };

const kindOf = (d: ResourceDef) => ({ group: d.group, version: d.version, kind: d.kind });
const resourceOf = (d: ResourceDef) => ({ group: d.group, version: d.version, resource: d.plural });

/** The review of `a` (as the webhook's version sees it); `requested` is the def the client asked for when that differs. */
export function reviewRequest(a: Attributes, version: string, requested: ResourceDef = a.def): Obj {
  const u = a.user;
  const request: Obj = {
    uid: randomUUID(), kind: kindOf(a.def), resource: resourceOf(a.def), requestKind: kindOf(requested), requestResource: resourceOf(requested),
    ...(a.subresource ? { subResource: a.subresource, requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}), ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo: u ? { username: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra ? { extra: u.extra } : {}) } : {},
    object: a.object ?? null, oldObject: a.oldObject ?? null, dryRun: a.dryRun,
    options: { kind: OPTIONS_KIND[a.operation], apiVersion: "meta.k8s.io/v1", ...(a.dryRun ? { dryRun: ["All"] } : {}) },
  };
  return { kind: "AdmissionReview", apiVersion: `admission.k8s.io/${version}`, request };
}

export interface ReviewResponse { allowed: boolean; status?: Obj; patch?: unknown[]; warnings: string[] }

/** Reads a webhook's answer; a malformed one throws (a call failure, subject to the failure policy). */
export function readResponse(body: unknown, request: Obj): ReviewResponse {
  const review = body as Obj;
  const version = String(request.apiVersion);
  if (version === "admission.k8s.io/v1" && (review?.apiVersion !== version || review?.kind !== "AdmissionReview")) {
    throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${review?.apiVersion ?? ""}, Kind=${review?.kind ?? ""}`);
  }
  const r = review?.response;
  if (!r || typeof r !== "object") throw new Error("webhook response was absent");
  if (version === "admission.k8s.io/v1" && r.uid !== request.request.uid) throw new Error(`expected response.uid=${JSON.stringify(request.request.uid)}, got ${JSON.stringify(r.uid ?? "")}`);
  let patch: unknown[] | undefined;
  if (r.patch) {
    if (version === "admission.k8s.io/v1" && !r.patchType) throw new Error("webhook returned response.patch but not response.patchType");
    if (r.patchType && r.patchType !== "JSONPatch") throw new Error(`unsupported patch type "${r.patchType}"`);
    patch = JSON.parse(Buffer.from(String(r.patch), "base64").toString("utf8"));
    if (!Array.isArray(patch)) throw new Error("the webhook's patch is not a JSON patch");
  }
  return { allowed: r.allowed === true, status: r.status, patch, warnings: (r.warnings ?? []).map(String) };
}

/** A webhook's refusal, as upstream turns its Status into the client's error. */
export function denied(name: string, status: Obj | undefined): StatusError {
  const by = `admission webhook ${JSON.stringify(name)} denied the request`;
  const code = typeof status?.code === "number" && status.code >= 400 ? status.code : 403;
  const message = status?.message ? `${by}: ${status.message}` : status?.reason ? `${by}: ${status.reason}` : `${by} without explanation`;
  return new StatusError(code, String(status?.reason ?? ""), message, status?.details);
}
