// CertificateSigning: setting a CSR's certificate (the status subresource) needs `sign` on its signer.
import { isCsr, requireSigner } from "./signers.ts";
import type { Plugin, PluginContext } from "../types.ts";

export function certificateSigning(ctx: PluginContext): Plugin {
  return {
    handles: (a) => isCsr(a) && a.operation === "UPDATE" && a.subresource === "status",
    async validate(a) {
      if ((a.object?.status?.certificate ?? "") !== (a.oldObject?.status?.certificate ?? "")) await requireSigner(ctx.authz, a, "sign");
    },
  };
}
