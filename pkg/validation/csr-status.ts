// A CertificateSigningRequest's status as upstream validates it: conditions (Approved, Denied and
// Failed only True, Approved and Denied exclusive, one of each type) and an issued certificate made of
// CERTIFICATE PEM blocks. What an existing object already breaks is tolerated on its updates.
import { X509Certificate } from "node:crypto";
import type { Obj } from "../registry/types.ts";
import { type Errs, Printed } from "./field.ts";

const TRUE_ONLY = new Set(["Approved", "Denied", "Failed"]);
const conditionsOf = (o?: Obj): Obj[] => (Array.isArray(o?.status?.conditions) ? o!.status.conditions : []);
const typesOf = (o?: Obj) => conditionsOf(o).map((c) => String(c?.type ?? ""));
const hasDuplicates = (xs: string[]) => new Set(xs).size !== xs.length;

/** Why `pem` is not a chain of certificates, or undefined when it is (or is empty). */
export function certificateProblem(pem: string): string | undefined {
  if (!pem) return undefined;
  const blocks = [...pem.matchAll(/-----BEGIN ([^-\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (!blocks.length) return "must contain at least one CERTIFICATE PEM block";
  for (const [whole, type, body] of blocks) {
    if (type !== "CERTIFICATE") return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(type)}`;
    if (/^[\w-]+:/m.test(body)) return "no PEM block headers are permitted";
    try { new X509Certificate(whole); } catch (e) { return `x509: ${(e as Error).message}`; }
  }
  return undefined;
}

const certificateText = (o?: Obj) => Buffer.from(String(o?.status?.certificate ?? ""), "base64").toString("latin1");

export function validateCsrStatus(e: Errs, o: Obj, old?: Obj) {
  const oldTypes = typesOf(old);
  const tolerate = {
    empty: oldTypes.includes(""),
    duplicates: hasDuplicates(oldTypes),
    both: oldTypes.includes("Approved") && oldTypes.includes("Denied"),
  };
  const seen = new Set<string>();
  let approved = false, denied = false;
  conditionsOf(o).forEach((c, i) => {
    const at = `status.conditions[${i}]`;
    const type = String(c?.type ?? "");
    if (!type && !tolerate.empty) e.required(`${at}.type`);
    const allowed = TRUE_ONLY.has(type) ? ["True"] : ["False", "True", "Unknown"];
    if (!c?.status) e.required(`${at}.status`);
    else if (!allowed.includes(c.status)) e.notSupported(`${at}.status`, c.status, allowed);
    if (!tolerate.both) {
      if (type === "Approved") { approved = true; if (denied) e.invalid(`${at}.type`, type, "Approved and Denied conditions are mutually exclusive"); }
      if (type === "Denied") { denied = true; if (approved) e.invalid(`${at}.type`, type, "Approved and Denied conditions are mutually exclusive"); }
    }
    if (!tolerate.duplicates && seen.has(type)) e.duplicate(`${at}.type`, type);
    seen.add(type);
  });
  // an update that leaves the certificate alone, or one already bad, is not checked again
  const cert = certificateText(o);
  if (old && (cert === certificateText(old) || certificateProblem(certificateText(old)))) return;
  const problem = certificateProblem(cert);
  if (problem) e.invalid("status.certificate", new Printed(`"<certificate data>"`), problem);
}

/** What only one write path may change: approval conditions through /approval, the certificate through /status. */
export function validateCsrUpdate(e: Errs, o: Obj, old: Obj, sub: string) {
  const count = (x: Obj, t: string) => conditionsOf(x).filter((c) => c?.type === t);
  for (const t of ["Approved", "Denied", "Failed"]) {
    if (count(o, t).length < count(old, t).length) e.forbidden("status.conditions", `updates may not remove a condition of type ${JSON.stringify(t)}`);
  }
  if (sub !== "approval") {
    for (const t of ["Approved", "Denied"]) {
      const now = count(o, t), before = count(old, t);
      if (now.length > before.length) e.forbidden("status.conditions", `updates may not add a condition of type ${JSON.stringify(t)}`);
      else if (now.length === before.length && !Bun.deepEquals(now, before)) e.forbidden("status.conditions", `updates may not modify a condition of type ${JSON.stringify(t)}`);
    }
  }
  const cert = String(o.status?.certificate ?? ""), oldCert = String(old.status?.certificate ?? "");
  if (cert !== oldCert) {
    if (sub !== "status") e.forbidden("status.certificate", "updates may not set certificate content");
    else if (oldCert) e.forbidden("status.certificate", "updates may not modify existing certificate content");
  }
}
