// The CSR signing controller (upstream's csrsigning): for an approved CertificateSigningRequest of a
// kubernetes.io signer that has no certificate and has not failed, writes status.certificate issued by
// the cluster CA — or a Failed condition (SignerValidationFailure) when the request breaks its signer's
// rules. It runs where the signing CA is: inside `kite apiserver` (whose --cluster-signing-* flags name
// it), as a client of the API like every controller.
import type { Obj } from "../client/client.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import type { SignerSource } from "../pki/csr-signer.ts";
import { KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";

/** The signers this controller issues for (upstream's kubernetes.io signers but the legacy one). */
export const SIGNERS = ["kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving"];

const hasTrue = (o: Obj, type: string) => (o.status?.conditions ?? []).some((c: Obj) => c?.type === type && c?.status === "True");

/** Whether the signer has anything to do for this request. */
const wantsSigning = (o: Obj) =>
  SIGNERS.includes(o.spec?.signerName) && hasTrue(o, "Approved") && !hasTrue(o, "Failed") && !o.status?.certificate;

class CsrSigningController extends KeyedController {
  private readonly csrs: SharedInformer;

  constructor(private readonly ctx: ControllerContext, private readonly signer: SignerSource) {
    super("csrsigning");
    this.csrs = ctx.factory.informerFor(RESOURCES.certificatesigningrequests);
    const consider = (o: Obj) => { if (wantsSigning(o)) this.enqueue(o); };
    this.csrs.addEventHandler({ add: consider, update: (_, cur) => consider(cur) });
  }

  protected async sync(key: string): Promise<void> {
    const o = this.csrs.store.get(key);
    if (!o || !wantsSigning(o)) return;
    const { parseRequest, requestFacts, signerRefusal } = await import("../pki/csr-signer.ts");
    let req;
    try {
      req = parseRequest(o.spec.request);
    } catch (e) {
      throw new Error(`unable to parse csr ${JSON.stringify(o.metadata.name)}: ${(e as Error).message}`);
    }
    const refusal = !(await req.verify()) ? "the request's signature does not verify" : signerRefusal(o.spec.signerName, requestFacts(req), o.spec.usages ?? []);
    const next = structuredClone(o);
    next.status ??= {};
    if (refusal) (next.status.conditions ??= []).push({ type: "Failed", status: "True", reason: "SignerValidationFailure", message: refusal, lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, "Z") });
    else next.status.certificate = Buffer.from(await (await this.signer()).sign(req, o.spec.usages ?? [])).toString("base64");
    // resourceVersion kept: a request changed meanwhile conflicts, and the retry sees the new one
    await this.ctx.client.update(RESOURCES.certificatesigningrequests, next, { subresource: "status", fieldManager: "kube-controller-manager" });
  }
}

/** Runs only with a signing CA (`options.signer`): without one, approved requests stay unsigned, as upstream's. */
export const initCsrSigningController: ControllerInit = (ctx) => (ctx.options.signer ? new CsrSigningController(ctx, ctx.options.signer) : null);
