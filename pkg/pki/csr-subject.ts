// The subject of a PKCS#10 request, read without verifying it (what an admission check needs), with
// node-forge's ASN.1 reader, which the server has loaded anyway; the signer's X.509 library costs
// a third of a second to load and waits until a CSR is to be signed.
import forge from "node-forge";

/** The subject's attributes as [short name, value] pairs (`["O", "system:nodes"]`); throws when unreadable. */
export function requestSubject(pem: string): [string, string][] {
  const block = forge.pem.decode(pem).find((b) => b.type === "CERTIFICATE REQUEST");
  if (!block) throw new Error("PEM block type must be CERTIFICATE REQUEST");
  const info = (forge.asn1.fromDer(block.body).value as forge.asn1.Asn1[])[0];
  const subject = (info.value as forge.asn1.Asn1[])[1];
  // exported by node-forge's x509 module, absent from its type declarations
  const attributes = (forge.pki as unknown as { RDNAttributesAsArray(rdn: forge.asn1.Asn1): { shortName?: string; type: string; value: string }[] }).RDNAttributesAsArray(subject);
  return attributes.map((a) => [a.shortName ?? a.type, String(a.value)]);
}
