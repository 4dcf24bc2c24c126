// Shared by CertificateApproval and CertificateSigning: may the caller use a CSR's signer for a verb
// (`approve`, `sign`) on the `signers` resource, by the signer's name or its `DOMAIN/*`?
import { forbidden } from "../../api/status.ts";
import type { AuthorizerChain } from "../../auth/authorize.ts";
import type { UserInfo } from "../../auth/user.ts";
import { type Attributes, isKind, qualified } from "../types.ts";

async function mayUseSigner(authz: AuthorizerChain, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  const ask = (name: string) => authz.authorize({
    user, verb, isResourceRequest: true, path: "", apiGroup: "certificates.k8s.io", apiVersion: "*", namespace: "", resource: "signers", subresource: "", name,
  });
  if ((await ask(signerName)).decision === "allow") return true;
  const parts = signerName.split("/");
  return parts.length === 2 && (await ask(`${parts[0]}/*`)).decision === "allow";
}

export const isCsr = (a: Attributes) => isKind(a, "certificates.k8s.io", "CertificateSigningRequest");

/** Refuses (403) a caller who may not `verb` requests of the CSR's signer. */
export async function requireSigner(authz: AuthorizerChain | undefined, a: Attributes, verb: string): Promise<void> {
  if (!authz || !a.user) return;
  const signerName = String(a.oldObject?.spec?.signerName ?? "");
  if (await mayUseSigner(authz, a.user, verb, signerName)) return;
  throw forbidden(qualified(a), a.name, `user not permitted to ${verb} requests with signerName ${JSON.stringify(signerName)}`);
}
