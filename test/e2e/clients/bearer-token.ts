// Calls the server with the bearer token of a kubeconfig through @kubernetes/client-node (run as its own Bun
// process, the CA from NODE_EXTRA_CA_CERTS): lists namespaces, then asks TokenReview about TOKEN. Prints one
// JSON line: {"namespaces": [...], "review": {...status}}, or {"error": message, "status": code} when refused.
//
// usage: bun bearer-token.ts KUBECONFIG TOKEN
import * as k8s from "@kubernetes/client-node";

const [kubeconfig, token] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
try {
  const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
  const review = await kc.makeApiClient(k8s.AuthenticationV1Api).createTokenReview({ body: { spec: { token } } });
  process.stdout.write(`${JSON.stringify({ namespaces: list.items.map((n) => n.metadata?.name), review: review.status })}\n`);
} catch (e) {
  const err = e as { code?: number; message?: string };
  process.stdout.write(`${JSON.stringify({ error: err.message?.split("\n")[0], status: err.code })}\n`);
}
