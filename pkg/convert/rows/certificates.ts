// certificates.k8s.io/v1beta1 CertificateSigningRequest, to and from v1. v1 requires signerName and usages;
// v1beta1 defaulted them: usages to [digital signature, key encipherment], and signerName from the request
// itself (a node's client or serving certificate request goes to the kubelet signers, anything else to
// kubernetes.io/legacy-unknown, which v1 does not accept in new requests).
import type { Obj } from "../../registry/types.ts";
import type { Notes, VersionRow } from "../table.ts";
import { parseRequest, requestFacts, signerRefusal } from "../../pki/csr-signer.ts";
import { type Convert, fill, row } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const LEGACY = "kubernetes.io/legacy-unknown";
const KUBELET_SIGNERS = ["kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving"];

/** The signer v1beta1 chose for a request that named none. */
function defaultSigner(request: unknown, usages: string[]): string {
  if (typeof request !== "string") return LEGACY;
  let facts;
  try { facts = requestFacts(parseRequest(request)); } catch { return LEGACY; }
  return KUBELET_SIGNERS.find((s) => signerRefusal(s, facts, usages) === undefined) ?? LEGACY;
}

function defaults(spec: Obj, notes: Notes) {
  fill(spec, "usages", ["digital signature", "key encipherment"]);
  if (fill(spec, "signerName", defaultSigner(spec.request, Array.isArray(spec.usages) ? spec.usages : [])) && spec.signerName === LEGACY && notes.strict) {
    notes.error("spec.signerName", `Invalid value: "${LEGACY}": the legacy signerName is not allowed via this API version`);
  }
}

const toHub: Convert = (obj, notes) => {
  if (isMap(obj.spec)) defaults(obj.spec, notes);
  return obj;
};

export const CERTIFICATES_ROWS: VersionRow[] = [
  row({
    group: "certificates.k8s.io", version: "v1beta1", kind: "CertificateSigningRequest", hub: { group: "certificates.k8s.io", version: "v1" }, served: true,
    deprecated: { in: "1.19", removedIn: "1.22", replacement: "certificates.k8s.io/v1 CertificateSigningRequest" }, toHub,
  }),
];
