// Writes a Secret with stringData through @kubernetes/client-node, run as its own Bun process (see
// informer.ts for why: the CA comes from NODE_EXTRA_CA_CERTS), and prints what the server answered at
// each step as one JSON line: {"step": {"data": ..., "stringData": ...}}.
//
// usage: bun secret.ts KUBECONFIG NAMESPACE NAME
// Steps: create (stringData a=1 over data b), read, replace (adds stringData c=3), merge patch
// (stringData d=4), server-side apply (stringData f=6), list. A failure prints {"error": "..."}, exits 1.
import * as k8s from "@kubernetes/client-node";

const [kubeconfig, namespace, name] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const api = kc.makeApiClient(k8s.CoreV1Api);
const seen: Record<string, unknown> = {};
const show = (step: string, s: k8s.V1Secret) => { seen[step] = { data: s.data, stringData: s.stringData }; };
const as = (type: string) => k8s.setHeaderOptions("Content-Type", type);

try {
  show("create", await api.createNamespacedSecret({
    namespace, body: { metadata: { name }, stringData: { a: "1" }, data: { b: Buffer.from("2").toString("base64") } },
  }));
  const cur = await api.readNamespacedSecret({ name, namespace });
  show("read", cur);
  show("replace", await api.replaceNamespacedSecret({ name, namespace, body: { ...cur, stringData: { c: "3" } } }));
  show("patch", await api.patchNamespacedSecret({ name, namespace, body: { stringData: { d: "4" } } }, as(k8s.PatchStrategy.MergePatch)));
  const config = { apiVersion: "v1", kind: "Secret", metadata: { name, namespace }, stringData: { f: "6" } };
  show("apply", await api.patchNamespacedSecret({ name, namespace, body: config, fieldManager: "e2e", force: true }, as(k8s.PatchStrategy.ServerSideApply)));
  const list = await api.listNamespacedSecret({ namespace });
  show("list", list.items.find((s) => s.metadata?.name === name)!);
  process.stdout.write(`${JSON.stringify(seen)}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: String((e as Error)?.message ?? e) })}\n`);
  process.exit(1);
}
