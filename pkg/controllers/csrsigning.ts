// The CSR signing controller (upstream's csrsigning, run inside the server here): watches
// CertificateSigningRequests and, for an approved one of a kubernetes.io signer that has no certificate
// and has not failed, writes status.certificate issued by the cluster CA — or a Failed condition
// (SignerValidationFailure) when the request breaks its signer's rules.
import { consola } from "consola";
import type { Registry } from "../registry/registry.ts";
import type { Obj } from "../registry/types.ts";
import { now } from "../registry/generic.ts";
import type { SignerSource } from "../server/csr-signing.ts";

/** The signers this controller issues for (upstream's kubernetes.io signers but the legacy one). */
export const SIGNERS = ["kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving"];

const hasTrue = (o: Obj, type: string) => (o.status?.conditions ?? []).some((c: Obj) => c?.type === type && c?.status === "True");

/** Whether the signer has anything to do for this request. */
export const wantsSigning = (o: Obj) =>
  SIGNERS.includes(o.spec?.signerName) && hasTrue(o, "Approved") && !hasTrue(o, "Failed") && !o.status?.certificate;

export class CsrSigningController {
  private busy = new Set<string>();
  private closeWatch = () => {};

  constructor(private registry: Registry, private signer: SignerSource) {}

  private get csrs() { return this.registry.lookup("certificates.k8s.io", "v1", "certificatesigningrequests")!; }

  async start() {
    const rs = this.csrs;
    const list = await rs.list("");
    for (const o of list.items) this.enqueue(o);
    const w = await rs.store.watch(rs.collectionPrefix(""), Number(list.metadata.resourceVersion), (ev) => {
      if (ev.type === "PUT") this.enqueue(rs.decode(ev.kv));
    });
    this.closeWatch = () => w.close();
  }

  stop() {
    this.closeWatch();
  }

  private enqueue(o: Obj) {
    const name = o.metadata.name;
    if (!wantsSigning(o) || this.busy.has(name)) return;
    this.busy.add(name);
    this.handle(o).catch((e) => consola.warn(`csr ${name}: ${e.message}`)).finally(() => this.busy.delete(name));
  }

  private async handle(o: Obj) {
    const { parseRequest, requestFacts, signerRefusal } = await import("../pki/csr-signer.ts");
    const signer = await this.signer();
    let req;
    try {
      req = parseRequest(o.spec.request);
    } catch (e) {
      throw new Error(`unable to parse csr ${JSON.stringify(o.metadata.name)}: ${(e as Error).message}`);
    }
    const refusal = !(await req.verify()) ? "the request's signature does not verify" : signerRefusal(o.spec.signerName, requestFacts(req), o.spec.usages ?? []);
    const certificate = refusal ? undefined : Buffer.from(await signer.sign(req, o.spec.usages ?? [])).toString("base64");
    await this.csrs.guaranteedUpdate("", o.metadata.name, (cur) => {
      if (!wantsSigning(cur)) return cur;
      cur.status ??= {};
      if (certificate) cur.status.certificate = certificate;
      else (cur.status.conditions ??= []).push({ type: "Failed", status: "True", reason: "SignerValidationFailure", message: refusal, lastUpdateTime: now() });
      return cur;
    }, { sub: "status", fieldManager: "kube-controller-manager" });
  }
}
