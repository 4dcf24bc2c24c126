// CertificateApproval: approving or denying a CSR (the approval subresource) needs `approve` on its signer.
import { isCsr, requireSigner } from "./signers.ts";
import type { Plugin, PluginContext } from "../types.ts";

export function certificateApproval(ctx: PluginContext): Plugin {
  return {
    handles: (a) => isCsr(a) && a.operation === "UPDATE" && a.subresource === "approval",
    validate: (a) => requireSigner(ctx.authz, a, "approve"),
  };
}
