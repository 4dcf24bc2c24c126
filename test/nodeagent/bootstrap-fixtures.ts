// A cluster a node agent can bootstrap into, as kubeadm sets it up: bootstrap-token authentication, Node and
// RBAC authorization, the cluster CA as --client-ca-file and signing CA, a bootstrap token, and the bindings
// that let system:bootstrappers ask for (and have auto-approved) kubelet client certificates — and, for
// rotation, let system:nodes have their own renewals auto-approved.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeCA } from "../helpers/certs.ts";
import { TEST_TOKEN, startServer, type TestServer } from "../helpers/server.ts";
import { expectCode } from "../api/fixtures.ts";
import { RBAC, bindingBody, roleRef, subject } from "../api/rbac-fixtures.ts";

export const ADMIN = { Authorization: `Bearer ${TEST_TOKEN}` };
export const BOOTSTRAP_TOKEN = "abcdef.0123456789abcdef";
const b64 = (v: string) => Buffer.from(v).toString("base64");

export interface BootstrapCluster { s: TestServer; ca: ReturnType<typeof makeCA>; bootstrapKubeconfig: string }

export async function bootstrapCluster(dir: string, serverArgs: string[] = []): Promise<BootstrapCluster> {
  const ca = makeCA("cluster-ca");
  const s = await startServer([
    "--enable-bootstrap-token-auth", "--authorization-mode=Node,RBAC", `--client-ca-file=${ca.certFile}`,
    `--cluster-signing-cert-file=${ca.certFile}`, `--cluster-signing-key-file=${ca.keyFile}`, ...serverArgs,
  ]);
  const [id, secret] = BOOTSTRAP_TOKEN.split(".");
  const writes: [string, unknown][] = [
    ["/api/v1/namespaces/kube-system/secrets", {
      metadata: { name: `bootstrap-token-${id}`, namespace: "kube-system" }, type: "bootstrap.kubernetes.io/token",
      data: { "token-id": b64(id), "token-secret": b64(secret), "usage-bootstrap-authentication": b64("true") },
    }],
    [`${RBAC}/clusterrolebindings`, bindingBody("kubeadm:kubelet-bootstrap", roleRef("ClusterRole", "system:node-bootstrapper"), [subject("Group", "system:bootstrappers")])],
    [`${RBAC}/clusterrolebindings`, bindingBody("kubeadm:node-autoapprove-bootstrap", roleRef("ClusterRole", "system:certificates.k8s.io:certificatesigningrequests:nodeclient"), [subject("Group", "system:bootstrappers")])],
    [`${RBAC}/clusterrolebindings`, bindingBody("kubeadm:node-autoapprove-certificate-rotation", roleRef("ClusterRole", "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient"), [subject("Group", "system:nodes")])],
  ];
  for (const [path, body] of writes) expectCode(await s.call("POST", path, body, ADMIN), 201, `create ${path}`);
  const bootstrapKubeconfig = join(dir, "bootstrap.conf");
  writeFileSync(bootstrapKubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${s.url}", certificate-authority-data: ${b64(s.ca)}}}]
users: [{name: u, user: {token: ${BOOTSTRAP_TOKEN}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`);
  return { s, ca, bootstrapKubeconfig };
}
