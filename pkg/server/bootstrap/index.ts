// The objects every cluster has, made and kept by the API server itself (upstream splits this between
// the apiserver's bootstrap controller and the controller-manager's serviceaccounts and
// root-ca-cert-publisher controllers; Kite does it all here, driven by the registry's watches, until the
// controllers run as API clients): the `kubernetes` Service and Endpoints, the system PriorityClasses,
// the priority and fairness objects (flowcontrol.ts), and in every namespace a `default` ServiceAccount
// and the `kube-root-ca.crt` ConfigMap. The system namespaces come from Registry.bootstrap. Of several
// servers on one store, the lease holder does it (leader.ts).
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { consola } from "consola";
import { Runner, inform } from "./informer.ts";
import { RENEW_MS, holdLease, releaseLease } from "./leader.ts";
import { type Endpoint, ensureEndpoints, ensureService, watchKubernetes } from "./kubernetes-service.ts";
import { dropEndpointLease, isEndpointLease, liveServers, renewEndpointLease } from "./endpoint-leases.ts";
import { ensureSystemPriorityClasses } from "./priorityclasses.ts";
import { ensureFlowControlObject, keepFlowControl, markDangling } from "./flowcontrol.ts";
import { ensureRootCA, watchRootCA } from "./rootca.ts";
import { ensureServiceAccount, watchServiceAccount } from "./serviceaccounts.ts";

export interface BootstrapOptions extends Endpoint {
  /** The cluster CA (PEM) published as kube-root-ca.crt. */
  ca: string;
  /** This server's identity in the lease (leader.ts). */
  identity: string;
  /** Keep the priority and fairness objects (--enable-priority-and-fairness). */
  flowControl?: boolean;
  /** --endpoint-reconciler-type and --apiserver-count: which servers the `kubernetes` Endpoints list. */
  endpointReconciler?: "lease" | "master-count" | "none";
  apiserverCount?: number;
}

const active = (ns: Obj) => !ns.metadata.deletionTimestamp && ns.status?.phase !== "Terminating";

export class Bootstrap {
  private stops: (() => void)[] = [];
  private runners: Runner[] = [];
  private leading = false;
  private timer?: Timer;
  private ticking = false;
  private kubernetes?: Runner;
  private stopped = false;

  constructor(private registry: Registry, private o: BootstrapOptions) {}

  private get leases() { return this.registry.lookup("coordination.k8s.io", "v1", "leases")!; }

  /**
   * Resolves once every object exists when this server leads (the server is then ready); watches keep
   * them afterwards. The lease is renewed (or taken over) every few seconds.
   */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), RENEW_MS);
  }

  private async tick() {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      if (this.listsServers) {
        await renewEndpointLease(this.leases, this.o.identity, this.o.advertiseAddress, this.o.port)
          .catch((e) => consola.warn(`apiserver endpoint lease: ${e.message}`));
      }
      const leading = await holdLease(this.leases, this.o.identity)
        .catch((e) => { consola.warn(`bootstrap lease: ${e.message}`); return this.leading; });
      if (leading && !this.leading) await this.keep();
      else if (leading && this.listsServers) this.kubernetes?.run("endpoints"); // a silent server's lease runs out unannounced
      if (!leading && this.leading) this.release();
      this.leading = leading;
    } finally {
      this.ticking = false;
    }
  }

  private get listsServers() { return (this.o.endpointReconciler ?? "lease") !== "none"; }

  private async keep(): Promise<void> {
    const r = this.registry, o = this.o;
    const max = o.endpointReconciler === "master-count" ? (o.apiserverCount ?? 1) : Infinity;
    const kubernetes = (this.kubernetes = new Runner(async (key) => (key === "service" ? ensureService(r, o) : ensureEndpoints(r, await liveServers(this.leases, max)))));
    const accounts = new Runner((ns) => ensureServiceAccount(r, ns));
    // PEM as upstream writes it, LF line ends (a CRLF file reads the same, but would show as an escaped string).
    const ca = o.ca.replace(/\r\n/g, "\n");
    const rootCA = new Runner((ns) => ensureRootCA(r, ns, ca));
    const priorityClasses = new Runner(() => ensureSystemPriorityClasses(r));
    this.runners.push(kubernetes, accounts, rootCA, priorityClasses);
    kubernetes.run("service");
    if (this.listsServers) kubernetes.run("endpoints");
    priorityClasses.run("system");
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
    if (this.listsServers) {
      await watch("endpoints", "default", watchKubernetes(kubernetes, "endpoints"));
      this.stops.push(await inform(this.leases, "kube-system", (_type, lease) => { if (isEndpointLease(lease)) kubernetes.run("endpoints"); }));
    }
    if (o.flowControl) {
      const flowControl = new Runner((key) => ensureFlowControlObject(r, key));
      const dangling = new Runner((name) => markDangling(r, name));
      this.runners.push(flowControl, dangling);
      this.stops.push(...(await keepFlowControl(r, flowControl, dangling)));
    }
    await Promise.all(this.runners.map((x) => x.idle()));
  }

  /** Another server leads now: stop keeping. */
  private release() {
    for (const s of this.stops) s();
    for (const x of this.runners) x.stop();
    this.stops = [];
    this.runners = [];
  }

  async stop() {
    this.stopped = true;
    clearInterval(this.timer);
    this.release();
    if (this.listsServers) await dropEndpointLease(this.leases, this.o.identity);
    if (this.leading) await releaseLease(this.leases, this.o.identity);
    this.leading = false;
  }
}
