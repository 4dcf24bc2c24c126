// Issue 14/16: certificate rotation in the node agent. The cluster signs for 10 s (--cluster-signing-duration),
// so the client certificate from the bootstrap is renewed a few seconds in (70–90 % of its validity) with a
// CSR made under the node's own certificate and auto-approved as selfnodeclient; the agent goes on working
// past the first certificate's expiry. Its serving certificate is asked for from kubernetes.io/kubelet-serving,
// which nothing approves by itself: the port keeps its self-signed certificate until kubectl approves.
import "reflect-metadata";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { ADMIN, bootstrapCluster, type BootstrapCluster } from "./bootstrap-fixtures.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir } from "../helpers/processes.ts";
import { kubectl, type TestServer } from "../helpers/server.ts";
import { until } from "../api/fixtures.ts";

const CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

/** The certificate the agent's port presents to a new connection. */
function presented(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const c = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      resolve(c.getPeerX509Certificate()!);
      c.end();
    });
    c.on("error", reject);
  });
}

describe("kite node-agent --rotate-certificates --rotate-server-certificates", () => {
  const dir = tempDir("kite-rotate-");
  const certDir = join(dir, "pki");
  const clientPem = join(certDir, "kubelet-client-current.pem");
  let s: TestServer, ca: BootstrapCluster["ca"], agent: TestNodeAgent;
  let first: { file: string; cert: X509Certificate };
  const csrs = async () => (await s.call("GET", CSRS, undefined, ADMIN)).body.items as any[];

  beforeAll(async () => {
    let bootstrap: string;
    ({ s, ca, bootstrapKubeconfig: bootstrap } = await bootstrapCluster(dir, ["--cluster-signing-duration=10s"]));
    // the Lease renewed every second (a quarter of its duration): the heartbeat to watch
    const config = join(dir, "config.yaml");
    writeFileSync(config, "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nnodeLeaseDurationSeconds: 4\n");
    agent = await startNodeAgent(s, [`--kubeconfig=${join(dir, "kubelet.conf")}`, `--bootstrap-kubeconfig=${bootstrap}`, `--cert-dir=${certDir}`,
      "--rotate-certificates", "--rotate-server-certificates", `--config=${config}`, "--authorization-mode=AlwaysAllow", `--client-ca-file=${ca.certFile}`]);
    first = { file: realpathSync(clientPem), cert: new X509Certificate(readFileSync(clientPem)) };
  }, 60_000);
  afterAll(async () => { await agent?.stop(); await s?.stop(); }, 30_000);

  test("the client certificate is renewed before it expires, by the node itself, and the agent switches to it", async () => {
    await until(async () => realpathSync(clientPem) !== first.file, "a renewed client certificate", 30_000, 200);
    const cert = new X509Certificate(readFileSync(clientPem));
    expect(cert.subject.split("\n").sort()).toEqual([`CN=system:node:${agent.name}`, "O=system:nodes"]);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(Date.parse(cert.validFrom)).toBeLessThan(Date.parse(first.cert.validTo));
    const renewal = (await csrs()).find((c) => c.spec.username === `system:node:${agent.name}` && c.spec.signerName === "kubernetes.io/kube-apiserver-client-kubelet");
    expect(renewal.status.conditions.map((c: any) => [c.type, c.reason, c.message]))
      .toEqual([["Approved", "AutoApproved", "Auto approving self kubelet client certificate after SubjectAccessReview."]]);

    // past the first certificate's expiry the Node still heartbeats: the agent uses the new one
    const expired = Date.parse(first.cert.validTo);
    await until(async () => Date.now() > expired + 1000, "the first certificate expired", 30_000, 200);
    const heartbeat = await until(async () => {
      const lease = await s.call("GET", `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${agent.name}`, undefined, ADMIN);
      const at = Date.parse(lease.body.spec?.renewTime ?? "");
      return at > expired + 1000 && at;
    }, "a Lease renewal after the first certificate expired", 20_000, 200);
    expect(heartbeat).toBeGreaterThan(expired);
  }, 60_000);

  test("the serving certificate: self-signed until an admin approves the kubelet-serving request, then the issued one", async () => {
    const pending = await until(async () => (await csrs()).find((c) => c.spec.signerName === "kubernetes.io/kubelet-serving"), "a kubelet-serving CSR", 20_000, 200);
    expect(pending.spec).toMatchObject({ username: `system:node:${agent.name}`, usages: ["digital signature", "key encipherment", "server auth"] });
    expect(pending.status?.conditions ?? []).toEqual([]);
    const caKey = new X509Certificate(ca.cert).publicKey;
    expect((await presented(agent.port)).verify(caKey)).toBe(false);

    const r = await kubectl(s, ["certificate", "approve", pending.metadata.name]);
    expect(r).toMatchObject({ code: 0, out: `certificatesigningrequest.certificates.k8s.io/${pending.metadata.name} approved\n` });
    const served = await until(async () => {
      const c = await presented(agent.port);
      return c.verify(caKey) ? c : undefined;
    }, "the issued serving certificate on the agent's port", 20_000, 200);
    expect(served!.subject.split("\n").sort()).toEqual([`CN=system:node:${agent.name}`, "O=system:nodes"]);
    expect(served!.subjectAltName).toContain("IP Address:127.0.0.1");
  }, 60_000);
});
