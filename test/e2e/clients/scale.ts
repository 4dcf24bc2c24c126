// Reads and writes the scale subresource with @kubernetes/client-node, as its own Bun process (see
// informer.ts for why: the CA comes from NODE_EXTRA_CA_CERTS).
//
// usage: bun scale.ts KUBECONFIG NAMESPACE
// Expects a Deployment "web" and a ReplicaSet "rs" in NAMESPACE with 2 replicas each. Prints one JSON
// line: what each call returned, or {"error": ...} and exits 1.
import * as k8s from "@kubernetes/client-node";

const [kubeconfig, namespace] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const apps = kc.makeApiClient(k8s.AppsV1Api);

try {
  const read = await apps.readNamespacedDeploymentScale({ name: "web", namespace });
  const patched = await apps.patchNamespacedDeploymentScale({ name: "web", namespace, body: [{ op: "replace", path: "/spec/replicas", value: 6 }] });
  const rs = await apps.readNamespacedReplicaSetScale({ name: "rs", namespace });
  const replaced = await apps.replaceNamespacedReplicaSetScale({ name: "rs", namespace, body: { ...rs, spec: { replicas: 3 } } });
  console.log(JSON.stringify({
    read: { kind: read.kind, replicas: read.spec?.replicas, selector: read.status?.selector },
    patch: patched.spec?.replicas,
    replace: replaced.spec?.replicas,
  }));
} catch (e) {
  console.log(JSON.stringify({ error: String((e as Error)?.message ?? e) }));
  process.exit(1);
}
