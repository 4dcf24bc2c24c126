// Cluster extension points: CertificateSigningRequests, admission webhook configurations, CustomResourceDefinitions.
import type { Obj } from "../registry/types.ts";
import { goStrings, Printed, type Errs } from "./field.ts";
import { validateCsrStatus } from "./csr-status.ts";
import { certificateRequestProblem } from "./csr-request.ts";
import { empty, has, immutable, isMap, list, oneOf, run } from "./rules.ts";
import { dns1035Label, dns1123Label, dns1123Subdomain } from "./names.ts";
import { labelSelector } from "./labels.ts";
import { REVIEW_VERSIONS, reviewVersions, webhookClientConfig } from "./webhook-client.ts";
import { structuralSchemas } from "./crd-schema.ts";
import { crdConversion } from "./crd-conversion.ts";
import { printerColumns } from "./crd-columns.ts";
import { defaultPlaces, defaultValues } from "./crd-defaults.ts";

const USAGES = [
  "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only",
  "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement",
  "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping",
];

/** %#v of the request bytes, as upstream prints a request it cannot read. */
const showBytes = (b: Buffer) => `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(", ")}}`;

/** ValidateSignerName: `example.com/signer-name`, each part made of DNS labels. */
function signerName(e: Errs, field: string, v: string) {
  if (!v) return e.required(field);
  const parts = v.split("/");
  if (parts.length !== 2) return e.invalid(field, v, "must be a fully qualified domain and path of the form 'example.com/signer-name'");
  const [domain, path] = parts;
  if (domain.length > 253) e.tooLong(field, 253);
  const labelsOk = (s: string) => {
    for (const l of s.split(".")) {
      const errs = dns1123Label(l);
      if (errs.length) {
        for (const m of errs) e.invalid(field, s, `validating label ${JSON.stringify(l)}: ${m}`);
        return;
      }
    }
  };
  labelsOk(domain);
  if (domain.split(".").length < 2) e.invalid(field, domain, "should be a domain with at least two segments separated by dots");
  labelsOk(path);
  if (path.length > 63) e.tooLong(field, 63);
}

export const certificateSigningRequest = (o: Obj, old?: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const req = Buffer.from(String(sp.request ?? ""), "base64");
  const problem = certificateRequestProblem(req);
  if (problem) e.invalid("spec.request", new Printed(showBytes(req)), problem);
  if (empty(sp.usages)) e.required("spec.usages", "usages must be provided");
  const seen = new Set<string>();
  list(sp.usages).forEach((u, i) => {
    if (!USAGES.includes(u)) e.notSupported(`spec.usages[${i}]`, u, USAGES);
    if (seen.has(u)) e.duplicate(`spec.usages[${i}]`, u);
    seen.add(u);
  });
  const signer = String(sp.signerName ?? "");
  if (signer === "kubernetes.io/legacy-unknown") e.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version");
  else signerName(e, "spec.signerName", signer);
  validateCsrStatus(e, o, old);
});

const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];

function webhookRule(e: Errs, r: Obj, path: string) {
  const ops = list(r?.operations);
  if (!ops.length) e.required(`${path}.operations`);
  if (ops.length > 1 && ops.includes("*")) e.invalid(`${path}.operations`, new Printed(goStrings(ops, "admissionregistration.OperationType")), "if '*' is present, must not specify other operations");
  ops.forEach((op, i) => { if (!OPERATIONS.includes(op)) e.notSupported(`${path}.operations[${i}]`, op, OPERATIONS); });
  for (const [f, what] of [["apiGroups", "API groups"], ["apiVersions", "API versions"]]) {
    const v = list(r?.[f]);
    if (!v.length) e.required(`${path}.${f}`);
    if (v.length > 1 && v.includes("*")) e.invalid(`${path}.${f}`, new Printed(goStrings(v)), `if '*' is present, must not specify other ${what}`);
  }
  list(r?.apiVersions).forEach((v, i) => { if (!v) e.required(`${path}.apiVersions[${i}]`); });
  if (empty(r?.resources)) e.required(`${path}.resources`);
  oneOf(e, `${path}.scope`, r?.scope, ["*", "Cluster", "Namespaced"]);
}


const webhookConfiguration = (mutating: boolean) => (o: Obj) => run((e) => {
  const names = new Set<string>();
  e.each<Obj>("webhooks", o.webhooks, (h, path) => {
    const name = String(h?.name ?? "");
    if (!name) e.required(`${path}.name`);
    else if (dns1123Subdomain(name).length) e.invalid(`${path}.name`, name, dns1123Subdomain(name).join(","));
    else if (name.split(".").length < 3) e.invalid(`${path}.name`, name, "should be a domain with at least three segments separated by dots");
    e.each<Obj>(`${path}.rules`, h?.rules, (r, p) => webhookRule(e, r, p));
    oneOf(e, `${path}.failurePolicy`, h?.failurePolicy, ["Fail", "Ignore"]);
    oneOf(e, `${path}.matchPolicy`, h?.matchPolicy, ["Equivalent", "Exact"]);
    if (!has(h?.sideEffects)) e.required(`${path}.sideEffects`, "must specify one of None, NoneOnDryRun");
    else oneOf(e, `${path}.sideEffects`, h.sideEffects, ["None", "NoneOnDryRun"]);
    const t = h?.timeoutSeconds;
    if (typeof t === "number" && (t > 30 || t < 1)) e.invalid(`${path}.timeoutSeconds`, t, "the timeout value must be between 1 and 30 seconds");
    labelSelector(e, `${path}.namespaceSelector`, h?.namespaceSelector);
    labelSelector(e, `${path}.objectSelector`, h?.objectSelector);
    if (mutating) oneOf(e, `${path}.reinvocationPolicy`, h?.reinvocationPolicy, ["IfNeeded", "Never"]);
    webhookClientConfig(e, `${path}.clientConfig`, h?.clientConfig);
    reviewVersions(e, `${path}.admissionReviewVersions`, h?.admissionReviewVersions, `must specify one of ${REVIEW_VERSIONS.join(", ")}`);
    if (name) {
      if (names.has(name)) e.duplicate(`${path}.name`, name);
      names.add(name);
    }
  });
});


export const mutatingWebhookConfiguration = webhookConfiguration(true);
export const validatingWebhookConfiguration = webhookConfiguration(false);

/** A name that must be a DNS-1035 label; Kind and ListKind may have capitals. */
function crdName(e: Errs, field: string, v: unknown, mixedCase = false) {
  if (empty(v)) return;
  const errs = dns1035Label(mixedCase ? String(v).toLowerCase() : String(v));
  if (errs.length) e.invalid(field, v, `${mixedCase ? "may have mixed case, but should otherwise match: " : ""}${errs.join(",")}`);
}

function crdNames(e: Errs, n: Obj) {
  crdName(e, "spec.names.plural", n.plural);
  crdName(e, "spec.names.singular", n.singular);
  crdName(e, "spec.names.kind", n.kind, true);
  crdName(e, "spec.names.listKind", n.listKind, true);
  list(n.shortNames).forEach((s, i) => crdName(e, `spec.names.shortNames[${i}]`, s));
  if (!empty(n.kind) && n.kind === n.listKind) e.invalid("spec.names.listKind", n.listKind, "kind and listKind may not be the same");
  list(n.categories).forEach((s, i) => crdName(e, `spec.names.categories[${i}]`, s));
}

/** `version` is the request's: at v1beta1 upstream keeps v1beta1's looser rules on schemas and pruning. */
export const customResourceDefinition = (o: Obj, old?: Obj, version?: string) => run((e) => {
  const beta = version === "v1beta1";
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const names: Obj = isMap(sp.names) ? sp.names : {};
  const name = String(o.metadata?.name ?? "");
  if (name && name !== `${names.plural ?? ""}.${sp.group ?? ""}`) e.invalid("metadata.name", name, `must be spec.names.plural+"."+spec.group`);
  const group = String(sp.group ?? "");
  if (!group) e.required("spec.group");
  else if (dns1123Subdomain(group).length) e.invalid("spec.group", group, dns1123Subdomain(group).join(","));
  else if (!group.includes(".")) e.invalid("spec.group", group, "should be a domain with at least one dot");
  oneOf(e, "spec.scope", sp.scope, ["Cluster", "Namespaced"], { required: true });
  const versions = list(sp.versions);
  const seen = new Set<string>();
  let storage = 0, unique = true;
  versions.forEach((v, i) => {
    if (v?.storage === true) storage++;
    if (seen.has(v?.name)) unique = false;
    seen.add(v?.name);
    const errs = dns1035Label(String(v?.name ?? ""));
    if (errs.length) e.invalid(`spec.versions[${i}].name`, v?.name ?? "", errs.join(","));
    if (!beta && !isMap(v?.schema?.openAPIV3Schema)) e.required(`spec.versions[${i}].schema.openAPIV3Schema`, "schemas are required");
  });
  const shown = versions.length ? JSON.stringify(versions) : "[]apiextensions.CustomResourceDefinitionVersion(nil)";
  if (!unique) e.invalid("spec.versions", new Printed(shown), "must contain unique version names");
  if (storage !== 1) e.invalid("spec.versions", new Printed(shown), "must have exactly one version marked as storage version");
  defaultPlaces(e, sp);
  const before = e.causes.length;
  structuralSchemas(e, sp, { beta, old });
  if (e.causes.length === before) defaultValues(e, sp, old);
  printerColumns(e, sp);
  crdConversion(e, sp, old);
  // the Kubernetes groups take only definitions approved by its API review
  if (/(^|\.)(k8s|kubernetes)\.io$/.test(group) && !o.metadata?.annotations?.["api-approved.kubernetes.io"]) {
    e.required("metadata.annotations[api-approved.kubernetes.io]", 'protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111');
  }
  for (const f of ["plural", "kind"]) if (empty(names[f])) e.required(`spec.names.${f}`);
  crdNames(e, names);
  if (!old) return;
  // the resource's name and its storage are fixed once served (Kite serves a definition as soon as it is stored)
  immutable(e, "spec.scope", sp.scope, old.spec?.scope);
  immutable(e, "spec.names.kind", names.kind, old.spec?.names?.kind);
  immutable(e, "spec.group", sp.group, old.spec?.group);
  immutable(e, "spec.names.plural", names.plural, old.spec?.names?.plural);
});
