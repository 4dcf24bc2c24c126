// Lists a namespace's pods through @kubernetes/client-node with a bearer token, run as its own Bun process
// (the CA comes from NODE_EXTRA_CA_CERTS), and prints one JSON line: {"items": N} on success,
// {"status": HTTP status} when the server refused.
//
// usage: bun token-pods.ts SERVER TOKEN NAMESPACE
import * as k8s from "@kubernetes/client-node";

const [server, token, namespace] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: "c", server }],
  users: [{ name: "u", token }],
  contexts: [{ name: "x", cluster: "c", user: "u" }],
  currentContext: "x",
});
const api = kc.makeApiClient(k8s.CoreV1Api);
try {
  const pods = await api.listNamespacedPod({ namespace });
  process.stdout.write(`${JSON.stringify({ items: pods.items.length })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ status: (e as { code?: number }).code })}\n`);
}
