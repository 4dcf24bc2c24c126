// An informer from @kubernetes/client-node on one namespace's configmaps, run as its own Bun process.
// It runs in a process of its own because under Bun the client's undici dispatcher (which carries the
// kubeconfig's CA) is ignored; the CA is given the way a Bun program trusts a private CA:
// NODE_EXTRA_CA_CERTS=<ca.crt>.
//
// usage: bun informer.ts KUBECONFIG NAMESPACE [LABEL_SELECTOR]
// Prints one JSON line per happening: {"listed": [names], "resourceVersion"} after each list,
// {"event": "add"|"update"|"delete", "name", "labels", "data", "resourceVersion"}, {"error": "..."},
// {"started": true} once informer.start() resolves. Reads commands on stdin: "dump" prints
// {"cache": [{name, labels, data}]} (the informer's store); end of input stops the informer, prints
// {"stopped": true} and exits 0.
import * as k8s from "@kubernetes/client-node";

const [kubeconfig, namespace, labelSelector] = process.argv.slice(2);
const emit = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const api = kc.makeApiClient(k8s.CoreV1Api);
const list = async () => {
  const l = await api.listNamespacedConfigMap({ namespace, labelSelector });
  emit({ listed: l.items.map((o) => o.metadata?.name), resourceVersion: l.metadata?.resourceVersion });
  return l;
};
const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, list, labelSelector);
const show = (o: k8s.V1ConfigMap) => ({ name: o.metadata?.name, labels: o.metadata?.labels ?? {}, data: o.data ?? {}, resourceVersion: o.metadata?.resourceVersion });
for (const verb of ["add", "update", "delete"] as const) informer.on(verb, (o) => emit({ event: verb, ...show(o) }));
informer.on("error", (e) => emit({ error: String((e as Error)?.message ?? e) }));

informer.start().then(() => emit({ started: true }), (e) => emit({ error: `start: ${String((e as Error)?.message ?? e)}` }));

const dec = new TextDecoder();
let buf = "";
for await (const chunk of Bun.stdin.stream()) {
  buf += dec.decode(chunk, { stream: true });
  let i: number;
  while ((i = buf.indexOf("\n")) >= 0) {
    const cmd = buf.slice(0, i).trim();
    buf = buf.slice(i + 1);
    if (cmd === "dump") emit({ cache: informer.list(namespace).map(show).map(({ resourceVersion: _, ...rest }) => rest).sort((a, b) => String(a.name).localeCompare(String(b.name))) });
  }
}
await informer.stop();
emit({ stopped: true });
process.exit(0);
