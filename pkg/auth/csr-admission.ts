// Upstream's CertificateApproval and CertificateSigning admission: approving (or denying) a CSR through
// /approval needs the `approve` verb, and setting its certificate through /status the `sign` verb, on the
// `signers` resource (certificates.k8s.io) named by its signerName — or by `DOMAIN/*`.
import { forbidden } from "../api/status.ts";
import type { Obj, UpdateTarget } from "../registry/types.ts";
import type { AuthorizerChain } from "./authorize.ts";
import type { UserInfo } from "./user.ts";

/** A check of a write by the caller's rights, run after validation, before the write. */
export type WriteAdmission = (next: Obj, old: Obj, sub: UpdateTarget) => Promise<void>;

async function mayUseSigner(authz: AuthorizerChain, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  const ask = (name: string) => authz.authorize({
    user, verb, isResourceRequest: true, path: "", apiGroup: "certificates.k8s.io", apiVersion: "*", namespace: "", resource: "signers", subresource: "", name,
  });
  if ((await ask(signerName)).decision === "allow") return true;
  const parts = signerName.split("/");
  return parts.length === 2 && (await ask(`${parts[0]}/*`)).decision === "allow";
}

export function csrAdmission(authz: AuthorizerChain, user: UserInfo): WriteAdmission {
  return async (next, old, sub) => {
    const signerName = String(old.spec?.signerName ?? "");
    let verb: string;
    if (sub === "approval") verb = "approve";
    else if (sub === "status" && (next.status?.certificate ?? "") !== (old.status?.certificate ?? "")) verb = "sign";
    else return;
    if (await mayUseSigner(authz, user, verb, signerName)) return;
    throw forbidden({ group: "certificates.k8s.io", resource: "certificatesigningrequests" }, old.metadata.name, `user not permitted to ${verb} requests with signerName ${JSON.stringify(signerName)}`);
  };
}
