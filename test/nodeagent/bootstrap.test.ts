// Issue 14 item 3: a node agent started with only a bootstrap token (--bootstrap-kubeconfig) gets its own
// client certificate. The API server (--enable-bootstrap-token-auth, Node,RBAC) holds the bindings kubeadm
// makes: system:bootstrappers may create CSRs and have kubelet client certificates auto-approved (the
// csrapproving controller asks a SubjectAccessReview for certificatesigningrequests/nodeclient); csrsigning
// issues from the cluster CA, which is also --client-ca-file. The agent then registers as system:node:NAME.
import "reflect-metadata";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { loadClientConfig } from "../../pkg/client/kubeconfig.ts";
import { ADMIN, bootstrapCluster, type BootstrapCluster } from "./bootstrap-fixtures.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, until } from "../api/fixtures.ts";

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
const b64 = (v: string) => Buffer.from(v).toString("base64");
const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

describe("kite node-agent --bootstrap-kubeconfig", () => {
  let ca: BootstrapCluster["ca"];
  const dir = tempDir("kite-bootstrap-");
  const kubeconfig = join(dir, "kubelet.conf");
  const certDir = join(dir, "pki");
  let s: TestServer, agent: TestNodeAgent;

  beforeAll(async () => {
    let bootstrap: string;
    ({ s, ca, bootstrapKubeconfig: bootstrap } = await bootstrapCluster(dir));
    agent = await startNodeAgent(s, [`--kubeconfig=${kubeconfig}`, `--bootstrap-kubeconfig=${bootstrap}`, `--cert-dir=${certDir}`]);
  }, 60_000);
  afterAll(async () => { await agent?.stop(); await s?.stop(); }, 30_000);

  test("the agent's request was auto-approved for the bootstrap token's user and issued", async () => {
    const csrs = (await s.call("GET", CSRS, undefined, ADMIN)).body.items;
    expect(csrs.length).toBe(1);
    const [csr] = csrs;
    expect(csr.spec).toMatchObject({ signerName: "kubernetes.io/kube-apiserver-client-kubelet", username: "system:bootstrap:abcdef", usages: ["digital signature", "key encipherment", "client auth"] });
    expect(csr.spec.groups).toContain("system:bootstrappers");
    expect(csr.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]))
      .toEqual([["Approved", "True", "AutoApproved", "Auto approving kubelet client certificate after SubjectAccessReview."]]);
    expect(csr.status.certificate).toBeTruthy();
  });

  test("--kubeconfig is written, naming the certificate kept in --cert-dir, and it is the node's", async () => {
    expect(existsSync(kubeconfig)).toBe(true);
    expect(lstatSync(join(certDir, "kubelet-client-current.pem")).isSymbolicLink()).toBe(true);
    const cfg = await loadClientConfig({ kubeconfig }, {});
    expect(cfg.server).toBe(s.url);
    const cert = new X509Certificate(cfg.cert!);
    expect(cert.subject.split("\n").sort()).toEqual([`CN=system:node:${agent.name}`, "O=system:nodes"]);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    // who the server takes the certificate for
    const r = await fetch(`${s.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: "POST", body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
      headers: { "content-type": "application/json" }, tls: { ca: s.ca, cert: cfg.cert, key: cfg.key },
    } as RequestInit);
    expect(r.status).toBe(201);
    const { userInfo } = ((await r.json()) as any).status;
    expect([userInfo.username, userInfo.groups]).toEqual([`system:node:${agent.name}`, ["system:nodes", "system:authenticated"]]);
  });

  test("the agent runs as the node (the bootstrap token may not): its Node is Ready and its Lease held", async () => {
    const ready = await until(async () => {
      const node = await s.call("GET", `/api/v1/nodes/${agent.name}`, undefined, ADMIN);
      return node.body.status?.conditions?.find((c: any) => c.type === "Ready")?.status === "True";
    }, "the Node Ready", 20_000);
    expect(ready).toBe(true);
    const lease = await until(async () => {
      const r = await s.call("GET", `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${agent.name}`, undefined, ADMIN);
      return r.status === 200 && r.body;
    }, "the node's Lease", 20_000);
    expect(lease.spec.holderIdentity).toBe(agent.name);
    const asBootstrap = await s.call("GET", `/api/v1/nodes/${agent.name}`, undefined, { Authorization: "Bearer abcdef.0123456789abcdef" });
    expect(asBootstrap.status).toBe(403);
  });

  test("only kubelet client requests are auto-approved: another subject from the same token waits for a person", async () => {
    const request = async (subject: string) => {
      const keys = await crypto.subtle.generateKey(EC, true, ["sign", "verify"]);
      return b64((await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: EC })).toString("pem"));
    };
    const asToken = { Authorization: "Bearer abcdef.0123456789abcdef" };
    const create = async (name: string, subjectName: string) => expectCode(await s.call("POST", CSRS, {
      metadata: { name }, spec: { request: await request(subjectName), signerName: "kubernetes.io/kube-apiserver-client-kubelet", usages: ["digital signature", "client auth"] },
    }, asToken), 201, `create ${name}`);
    await create("not-a-node", "CN=system:node:n9, O=admins");
    await create("a-node", "CN=system:node:n9, O=system:nodes");
    const conditions = async (name: string) => (await s.call("GET", `${CSRS}/${name}`, undefined, ADMIN)).body.status?.conditions ?? [];
    await until(async () => (await conditions("a-node")).some((c: any) => c.type === "Approved"), "a-node approved");
    expect(await conditions("not-a-node")).toEqual([]);
  });
});

describe("kite node-agent --bootstrap-kubeconfig without --kubeconfig", () => {
  test("exits 2 with one line", async () => {
    const r = await runKite(["node-agent", `--bootstrap-kubeconfig=${join(tempDir("kite-bootstrap-"), "b.conf")}`, `--root-dir=${tempDir("kite-agent-")}`]);
    expect([r.code, r.err.trim().split("\n").at(-1)]).toEqual([2, "Error: --bootstrap-kubeconfig requires --kubeconfig: the file the agent writes with its client certificate"]);
  });
});
