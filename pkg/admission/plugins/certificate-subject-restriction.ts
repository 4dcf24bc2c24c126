// CertificateSubjectRestriction: a client certificate for system:masters is never requested through the
// API (it would bypass every authorizer).
import { forbidden } from "../../api/status.ts";
import { requestSubject } from "../../pki/csr-subject.ts";
import { isCsr } from "./signers.ts";
import { type Plugin, qualified } from "../types.ts";

const CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client";

export function certificateSubjectRestriction(): Plugin {
  return {
    handles: (a) => isCsr(a) && a.operation === "CREATE" && !a.subresource,
    validate(a) {
      const o = a.object!;
      if (o.spec?.signerName !== CLIENT_SIGNER) return;
      let organizations: string[];
      try {
        organizations = requestSubject(Buffer.from(String(o.spec.request ?? ""), "base64").toString("latin1")).filter(([k]) => k === "O").map(([, v]) => v);
      } catch (e) {
        throw forbidden(qualified(a), a.name, `failed to parse CSR: ${(e as Error).message}`);
      }
      if (organizations.includes("system:masters")) throw forbidden(qualified(a), a.name, `use of ${CLIENT_SIGNER} signer with system:masters group is not allowed`);
    },
  };
}
