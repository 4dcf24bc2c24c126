// The CSR approving controller (upstream's csrapproving): a kubelet client-certificate request — signer
// kubernetes.io/kube-apiserver-client-kubelet, subject system:node:NAME in system:nodes, client usages
// only — is approved when its requester may create certificatesigningrequests/selfnodeclient (renewing
// the node's own certificate) or /nodeclient (any node's, as a bootstrap token's group may), asked with a
// SubjectAccessReview as upstream asks. It runs beside csrsigning, where the signing CA is: approving what
// nothing would sign is of no use, and `kite up` would otherwise run it in two processes.
import type { Obj } from "../client/client.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";

const KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";

/** Upstream's recognizers in order: the subresource the requester must be allowed to create, and the condition's message. */
const RECOGNIZERS = [
  { subresource: "selfnodeclient", self: true, message: "Auto approving self kubelet client certificate after SubjectAccessReview." },
  { subresource: "nodeclient", self: false, message: "Auto approving kubelet client certificate after SubjectAccessReview." },
];

const decided = (o: Obj) => (o.status?.conditions ?? []).some((c: Obj) => (c?.type === "Approved" || c?.type === "Denied") && c?.status !== "False");
const pending = (o: Obj) => o.spec?.signerName === KUBELET_CLIENT_SIGNER && !decided(o) && !o.status?.certificate;

class CsrApprovingController extends KeyedController {
  private readonly csrs: SharedInformer;

  constructor(private readonly ctx: ControllerContext) {
    super("csrapproving");
    this.csrs = ctx.factory.informerFor(RESOURCES.certificatesigningrequests);
    const consider = (o: Obj) => { if (pending(o)) this.enqueue(o); };
    this.csrs.addEventHandler({ add: consider, update: (_, cur) => consider(cur) });
  }

  protected async sync(key: string): Promise<void> {
    const o = this.csrs.store.get(key);
    if (!o || !pending(o)) return;
    const { parseRequest, requestFacts, signerRefusal } = await import("../pki/csr-signer.ts");
    let facts;
    try {
      facts = requestFacts(parseRequest(o.spec.request));
    } catch (e) {
      throw new Error(`unable to parse csr ${JSON.stringify(o.metadata.name)}: ${(e as Error).message}`);
    }
    // a kubelet client certificate by the signer's own rules; anything else is left to a person
    if (signerRefusal(KUBELET_CLIENT_SIGNER, facts, o.spec.usages ?? [])) return;
    for (const r of RECOGNIZERS) {
      if (r.self && o.spec.username !== facts.commonName) continue;
      if (!(await this.mayCreate(o, r.subresource))) continue;
      const next = structuredClone(o);
      next.status ??= {};
      (next.status.conditions ??= []).push({ type: "Approved", status: "True", reason: "AutoApproved", message: r.message, lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, "Z") });
      await this.ctx.client.update(RESOURCES.certificatesigningrequests, next, { subresource: "approval", fieldManager: "kube-controller-manager" });
      return;
    }
  }

  /** Whether the requester recorded in the CSR may create certificatesigningrequests/SUBRESOURCE. */
  private async mayCreate(csr: Obj, subresource: string): Promise<boolean> {
    const { username: user, uid, groups, extra } = csr.spec;
    const review = await this.ctx.client.create(RESOURCES.subjectaccessreviews, {
      apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview",
      spec: { user, uid, groups, extra, resourceAttributes: { group: "certificates.k8s.io", resource: "certificatesigningrequests", verb: "create", subresource } },
    });
    return review.status?.allowed === true;
  }
}

/** Runs only with a signing CA (`options.signer`), as csrsigning does. */
export const initCsrApprovingController: ControllerInit = (ctx) => (ctx.options.signer ? new CsrApprovingController(ctx) : null);
