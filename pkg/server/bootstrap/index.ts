// The objects every cluster has, made and kept by the API server itself (upstream splits this between
// the apiserver's bootstrap controller and the controller-manager's serviceaccounts and
// root-ca-cert-publisher controllers; Kite does it all here, driven by the registry's watches, until the
// controllers run as API clients): the `kubernetes` Service and Endpoints, and in every namespace a
// `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap. The system namespaces come from
// Registry.bootstrap.
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { Runner, inform } from "./informer.ts";
import { type Endpoint, ensureEndpoints, ensureService, watchKubernetes } from "./kubernetes-service.ts";
import { ensureRootCA, watchRootCA } from "./rootca.ts";
import { ensureServiceAccount, watchServiceAccount } from "./serviceaccounts.ts";

export interface BootstrapOptions extends Endpoint {
  /** The cluster CA (PEM) published as kube-root-ca.crt. */
  ca: string;
}

const active = (ns: Obj) => !ns.metadata.deletionTimestamp && ns.status?.phase !== "Terminating";

export class Bootstrap {
  private stops: (() => void)[] = [];
  private runners: Runner[] = [];

  constructor(private registry: Registry, private o: BootstrapOptions) {}

  /** Resolves once every object exists (the server is then ready); watches keep them afterwards. */
  async start(): Promise<void> {
    const r = this.registry, o = this.o;
    const kubernetes = new Runner((key) => (key === "service" ? ensureService(r, o) : ensureEndpoints(r, o)));
    const accounts = new Runner((ns) => ensureServiceAccount(r, ns));
    // PEM as upstream writes it, LF line ends (a CRLF file reads the same, but would show as an escaped string).
    const ca = o.ca.replace(/\r\n/g, "\n");
    const rootCA = new Runner((ns) => ensureRootCA(r, ns, ca));
    this.runners.push(kubernetes, accounts, rootCA);
    kubernetes.run("service");
    kubernetes.run("endpoints");
    const watch = async (resource: string, ns: string, handler: Parameters<typeof inform>[2]) =>
      this.stops.push(await inform(r.lookup("", "v1", resource)!, ns, handler));
    await watch("namespaces", "", (type, ns) => {
      if (type === "DELETED" || !active(ns)) return;
      accounts.run(ns.metadata.name);
      rootCA.run(ns.metadata.name);
    });
    await watch("serviceaccounts", "", watchServiceAccount(accounts));
    await watch("configmaps", "", watchRootCA(rootCA));
    await watch("services", "default", watchKubernetes(kubernetes, "service"));
    await watch("endpoints", "default", watchKubernetes(kubernetes, "endpoints"));
    await Promise.all(this.runners.map((x) => x.idle()));
  }

  stop() {
    for (const s of this.stops) s();
    for (const x of this.runners) x.stop();
  }
}
