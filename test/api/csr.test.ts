// Issue 14 item 3: CertificateSigningRequests — the approval and status subresources (`kubectl certificate
// approve|deny`), upstream's condition and certificate rules, the requester recorded by the server, and the
// kubernetes.io signers issuing from the cluster CA (--cluster-signing-*), with their per-signer checks.
import "reflect-metadata";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { ensureServingCerts } from "../../pkg/pki/certs.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import { expectStatus, until } from "./fixtures.ts";

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
const KUBECTLS = ["/opt/kubernetes-client-1.20/usr/bin/kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"].filter(existsSync);

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** A PEM PKCS#10 request with a fresh P-256 key. */
async function request(subject: string, san?: { type: "dns" | "ip"; value: string }[]): Promise<string> {
  const keys = await crypto.subtle.generateKey(EC, true, ["sign", "verify"]);
  const extensions = san ? [new x509.SubjectAlternativeNameExtension(san)] : [];
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: EC, extensions })).toString("pem");
}

const csr = (name: string, pem: string, signerName: string, usages: string[]) => ({
  apiVersion: "certificates.k8s.io/v1", kind: "CertificateSigningRequest", metadata: { name },
  spec: { request: Buffer.from(pem).toString("base64"), signerName, usages },
});

async function kubectl(bin: string, s: TestServer, args: string[]) {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

const issued = (o: any) => new X509Certificate(Buffer.from(o.status.certificate, "base64"));

describe("CertificateSigningRequests with the generated cluster CA", () => {
  let s: TestServer;
  let ca: X509Certificate;
  beforeAll(async () => {
    s = await startServer();
    ca = new X509Certificate(readFileSync(join(s.dataDir, "pki", "ca.crt")));
  }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("discovery serves the approval and status subresources", async () => {
    const r = await s.call("GET", "/apis/certificates.k8s.io/v1");
    const sub = (n: string) => r.body.resources.find((x: any) => x.name === n)?.verbs;
    expect(sub("certificatesigningrequests/approval")).toEqual(["get", "patch", "update"]);
    expect(sub("certificatesigningrequests/status")).toEqual(["get", "patch", "update"]);
  });

  test("the server records the requester and starts with no status, whatever the body says", async () => {
    const body: any = csr("recorded", await request("CN=jane"), "kubernetes.io/kube-apiserver-client", ["client auth"]);
    body.spec.username = "someone-else";
    body.spec.groups = ["system:masters"];
    body.status = { conditions: [{ type: "Approved", status: "True" }] };
    const r = await s.call("POST", CSRS, body);
    expect(r.status).toBe(201);
    expect(r.body.spec.username).toBe("system:anonymous");
    expect(r.body.spec.groups).toEqual(["system:unauthenticated"]);
    expect(r.body.status ?? {}).toEqual({});
  });

  test("no client certificate for system:masters through the API client signer", async () => {
    const r = await s.call("POST", CSRS, csr("masters", await request("CN=eve, O=system:masters"), "kubernetes.io/kube-apiserver-client", ["client auth"]));
    expect(expectStatus(r, 403, "Forbidden", "system:masters CSR").message)
      .toBe(`certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`);
    const other = await s.call("POST", CSRS, csr("masters-custom", await request("CN=eve, O=system:masters"), "example.com/custom", ["client auth"]));
    expect(other.status).toBe(201);
  });

  for (const bin of KUBECTLS) {
    const v = bin.includes("1.20") ? "1.20" : bin.split("kubectl.")[1];
    test(`kubectl ${v} certificate approve: Approved via /approval, then the certificate is issued with the CSR's CN and O`, async () => {
      const name = `jane-${v}`;
      expect((await s.call("POST", CSRS, csr(name, await request("CN=jane, O=dev, O=qa"), "kubernetes.io/kube-apiserver-client", ["digital signature", "client auth"]))).status).toBe(201);
      const k = await kubectl(bin, s, ["certificate", "approve", name]);
      expect(k).toMatchObject({ code: 0, out: `certificatesigningrequest.certificates.k8s.io/${name} approved\n` });
      const o = await until(async () => { const r = await s.call("GET", `${CSRS}/${name}`); return r.body.status?.certificate ? r.body : undefined; }, "certificate issued");
      const approved = o.status.conditions.find((c: any) => c.type === "Approved");
      expect(approved).toMatchObject({ type: "Approved", status: "True", reason: "KubectlApprove", message: "This CSR was approved by kubectl certificate approve." });
      expect(Date.parse(approved.lastUpdateTime)).toBeGreaterThan(0);
      expect(Date.parse(approved.lastTransitionTime)).toBeGreaterThan(0);
      const cert = issued(o);
      expect(cert.subject.split("\n").sort()).toEqual(["CN=jane", "O=dev", "O=qa"]);
      expect(cert.checkIssued(ca)).toBe(true);
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(cert.ca).toBe(false);
      expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]);
      // --cluster-signing-duration 8760h from 5 minutes ago
      const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
      expect(days).toBeCloseTo(365, 0);
      expect(Date.parse(cert.validFrom)).toBeLessThan(Date.now() - 4 * 60_000);
    });
  }

  test("kubectl certificate deny: Denied, and nothing is issued", async () => {
    expect((await s.call("POST", CSRS, csr("denied", await request("CN=bob"), "kubernetes.io/kube-apiserver-client", ["client auth"]))).status).toBe(201);
    const k = await kubectl(KUBECTLS[0], s, ["certificate", "deny", "denied"]);
    expect(k).toMatchObject({ code: 0, out: "certificatesigningrequest.certificates.k8s.io/denied denied\n" });
    await Bun.sleep(500);
    const o = (await s.call("GET", `${CSRS}/denied`)).body;
    expect(o.status.conditions).toHaveLength(1);
    expect(o.status.conditions[0]).toMatchObject({ type: "Denied", status: "True", reason: "KubectlDeny" });
    expect(o.status.certificate).toBeUndefined();
  });

  test("kubelet signers: a serving certificate with its SANs; a client request breaking the rules fails", async () => {
    const serving: any = csr("serving", await request("CN=system:node:n1, O=system:nodes", [{ type: "dns", value: "n1.example" }, { type: "ip", value: "10.0.0.7" }]),
      "kubernetes.io/kubelet-serving", ["digital signature", "server auth"]);
    const badClient: any = csr("bad-client", await request("CN=n1, O=system:nodes"), "kubernetes.io/kube-apiserver-client-kubelet", ["digital signature", "client auth"]);
    for (const body of [serving, badClient]) {
      body.status = { conditions: [{ type: "Approved", status: "True", reason: "test" }] };
      expect((await s.call("POST", CSRS, body)).status).toBe(201);
      expect((await s.call("PUT", `${CSRS}/${body.metadata.name}/approval`, body)).status).toBe(200);
    }
    const o = await until(async () => { const r = await s.call("GET", `${CSRS}/serving`); return r.body.status?.certificate ? r.body : undefined; }, "serving certificate");
    const cert = issued(o);
    expect(cert.subjectAltName).toBe("DNS:n1.example, IP Address:10.0.0.7");
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    const failed = await until(async () => {
      const r = await s.call("GET", `${CSRS}/bad-client`);
      return r.body.status?.conditions?.find((c: any) => c.type === "Failed");
    }, "failed condition");
    expect(failed).toMatchObject({ type: "Failed", status: "True", reason: "SignerValidationFailure", message: "subject common name does not begin with system:node:" });
    expect((await s.call("GET", `${CSRS}/bad-client`)).body.status.certificate).toBeUndefined();
  });

  test("upstream's rules: conditions only through their subresource, certificates only through status, never replaced", async () => {
    const name = "rules";
    const created = await s.call("POST", CSRS, csr(name, await request("CN=rules"), "example.com/custom", ["client auth"]));
    expect(created.status).toBe(201);
    const base = created.body;
    const withConditions = (conditions: any[], extra: any = {}) => ({ ...base, metadata: { ...base.metadata, resourceVersion: undefined }, status: { conditions, ...extra } });

    const viaStatus = await s.call("PUT", `${CSRS}/${name}/status`, withConditions([{ type: "Approved", status: "True" }]));
    expect(expectStatus(viaStatus, 422, "Invalid", "approve via status").message).toContain(`status.conditions: Forbidden: updates may not add a condition of type "Approved"`);

    const both = await s.call("PUT", `${CSRS}/${name}/approval`, withConditions([{ type: "Approved", status: "True" }, { type: "Denied", status: "True" }]));
    expect(expectStatus(both, 422, "Invalid", "approve and deny").message).toContain(`status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive`);

    const falseApproval = await s.call("PUT", `${CSRS}/${name}/approval`, withConditions([{ type: "Approved", status: "False" }]));
    expect(expectStatus(falseApproval, 422, "Invalid", "Approved False").message).toContain(`status.conditions[0].status: Unsupported value: "False": supported values: "True"`);

    const certViaApproval = await s.call("PUT", `${CSRS}/${name}/approval`, withConditions([{ type: "Approved", status: "True" }], { certificate: Buffer.from(readFileSync(join(s.dataDir, "pki", "ca.crt"))).toString("base64") }));
    expect(certViaApproval.status).toBe(200);
    expect(certViaApproval.body.status.certificate).toBeUndefined();

    const junk = await s.call("PUT", `${CSRS}/${name}/status`, { ...certViaApproval.body, status: { ...certViaApproval.body.status, certificate: Buffer.from("not a certificate").toString("base64") } });
    expect(expectStatus(junk, 422, "Invalid", "junk certificate").message).toContain(`status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`);

    const pem = readFileSync(join(s.dataDir, "pki", "apiserver.crt"), "utf8");
    const set = await s.call("PUT", `${CSRS}/${name}/status`, { ...certViaApproval.body, status: { ...certViaApproval.body.status, certificate: Buffer.from(pem).toString("base64") } });
    expect(set.status).toBe(200);
    expect(set.body.status.conditions.map((c: any) => c.type)).toEqual(["Approved"]);
    const again = await s.call("PUT", `${CSRS}/${name}/status`, { ...set.body, status: { ...set.body.status, certificate: base.spec.request } });
    expect(expectStatus(again, 422, "Invalid", "replace certificate").message).toContain("status.certificate: Forbidden: updates may not modify existing certificate content");

    const removeApproval = await s.call("PUT", `${CSRS}/${name}/approval`, { ...set.body, status: { ...set.body.status, conditions: [] } });
    expect(expectStatus(removeApproval, 422, "Invalid", "remove Approved").message).toContain(`status.conditions: Forbidden: updates may not remove a condition of type "Approved"`);

    // the spec never changes after create; a PUT of the object keeps it (and its status)
    const put = await s.call("PUT", `${CSRS}/${name}`, { ...set.body, spec: { ...set.body.spec, usages: ["server auth"] }, metadata: { ...set.body.metadata, labels: { a: "b" } } });
    expect(put.status).toBe(200);
    expect(put.body.spec.usages).toEqual(["client auth"]);
    expect(put.body.metadata.labels).toEqual({ a: "b" });
    expect(put.body.status.certificate).toBe(set.body.status.certificate);
  });

  test("a merge patch of /approval", async () => {
    expect((await s.call("POST", CSRS, csr("patched", await request("CN=p"), "example.com/custom", ["client auth"]))).status).toBe(201);
    const r = await s.call("PATCH", `${CSRS}/patched/approval`, { status: { conditions: [{ type: "Denied", status: "True", reason: "no" }] } }, { "content-type": "application/merge-patch+json" });
    expect(r.status).toBe(200);
    expect(r.body.status.conditions[0]).toMatchObject({ type: "Denied", status: "True", reason: "no" });
  });
});

describe("--cluster-signing-cert-file, --cluster-signing-key-file, --cluster-signing-duration", () => {
  let s: TestServer;
  let own: X509Certificate;
  beforeAll(async () => {
    const c = ensureServingCerts(tempDir("kite-signing-ca-"));
    own = new X509Certificate(c.ca);
    s = await startServer([`--cluster-signing-cert-file=${c.caFile}`, `--cluster-signing-key-file=${join(c.caFile, "..", "ca.key")}`, "--cluster-signing-duration=2h"]);
  }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("certificates come from the named CA, valid for the named duration", async () => {
    const body: any = csr("named-ca", await request("CN=system:node:n2, O=system:nodes"), "kubernetes.io/kube-apiserver-client-kubelet", ["digital signature", "key encipherment", "client auth"]);
    body.status = { conditions: [{ type: "Approved", status: "True" }] };
    expect((await s.call("POST", CSRS, body)).status).toBe(201);
    expect((await s.call("PUT", `${CSRS}/named-ca/approval`, body)).status).toBe(200);
    const o = await until(async () => { const r = await s.call("GET", `${CSRS}/named-ca`); return r.body.status?.certificate ? r.body : undefined; }, "certificate issued");
    const cert = issued(o);
    expect(cert.checkIssued(own)).toBe(true);
    expect(cert.subject.split("\n").sort()).toEqual(["CN=system:node:n2", "O=system:nodes"]);
    expect((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 3_600_000).toBeCloseTo(2, 1);
  });
});

test("a signing CA that cannot be used refuses the start in one line", async () => {
  const a = ensureServingCerts(tempDir("kite-signing-a-")), b = ensureServingCerts(tempDir("kite-signing-b-"));
  const start = async (...args: string[]) => {
    const r = await runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${await freePort()}`, `--data-dir=${tempDir("kite-signing-dir-")}`, ...args]);
    return { code: r.code, lines: r.err.split("\n").filter(Boolean) };
  };
  expect(await start(`--cluster-signing-cert-file=${a.caFile}`, `--cluster-signing-key-file=${join(b.caFile, "..", "ca.key")}`)).toEqual({
    code: 1, lines: [`Error: cluster signing CA: --cluster-signing-key-file ${join(b.caFile, "..", "ca.key")} does not match --cluster-signing-cert-file ${a.caFile}`],
  });
  expect(await start(`--cluster-signing-cert-file=${a.caFile}`)).toEqual({ code: 2, lines: ["Error: --cluster-signing-cert-file and --cluster-signing-key-file must be given together"] });
}, 60_000);

describe("approving and signing need the approve and sign verbs on the signer (ABAC)", () => {
  let s: TestServer;
  beforeAll(async () => {
    const file = join(tempDir("kite-csr-abac-"), "policy.jsonl");
    const policy = (spec: object) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec: { user: "system:anonymous", namespace: "*", ...spec } });
    writeFileSync(file, [policy({ resource: "certificatesigningrequests", apiGroup: "certificates.k8s.io" }), policy({ resource: "signers", apiGroup: "certificates.k8s.io", readonly: true })].join("\n"));
    s = await startServer(["--authorization-mode=ABAC", `--authorization-policy-file=${file}`]);
  }, 60_000);
  afterAll(async () => { await s?.stop(); }, 30_000);

  test("/approval without approve on signers is 403; /status may change conditions, not the certificate, without sign", async () => {
    const created = await s.call("POST", CSRS, csr("needs-rights", await request("CN=x"), "example.com/custom", ["client auth"]));
    expect(created.status).toBe(201);
    const approve = await s.call("PUT", `${CSRS}/needs-rights/approval`, { ...created.body, status: { conditions: [{ type: "Approved", status: "True" }] } });
    expect(expectStatus(approve, 403, "Forbidden", "approve").message)
      .toBe(`certificatesigningrequests.certificates.k8s.io "needs-rights" is forbidden: user not permitted to approve requests with signerName "example.com/custom"`);
    const noted = await s.call("PUT", `${CSRS}/needs-rights/status`, { ...created.body, status: { conditions: [{ type: "Pending", status: "True" }] } });
    expect(noted.status).toBe(200);
    const pem = readFileSync(join(s.dataDir, "pki", "apiserver.crt"), "utf8");
    const sign = await s.call("PUT", `${CSRS}/needs-rights/status`, { ...noted.body, status: { ...noted.body.status, certificate: Buffer.from(pem).toString("base64") } });
    expect(expectStatus(sign, 403, "Forbidden", "sign").message)
      .toBe(`certificatesigningrequests.certificates.k8s.io "needs-rights" is forbidden: user not permitted to sign requests with signerName "example.com/custom"`);
    const still = await s.call("GET", `${CSRS}/needs-rights`);
    expect(still.body.status.certificate).toBeUndefined();
    expect(still.body.status.conditions.map((c: any) => c.type)).toEqual(["Pending"]);
  });
});
