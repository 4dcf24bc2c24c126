// The service controller (upstream's name; upstream's needs a cloud provider to make load balancers):
// Kite's node agents route a LoadBalancer Service's node ports themselves, so the balancer is the nodes
// — as k3s's service load balancer does it, `status.loadBalancer.ingress` lists the InternalIP of every
// Ready, schedulable node. A Service that stops being a LoadBalancer loses that status.
import type { Obj } from "../client/client.ts";
import type { SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";

const ready = (node: Obj) => !node.spec?.unschedulable && (node.status?.conditions ?? []).some((c: Obj) => c.type === "Ready" && c.status === "True");
const internalIP = (node: Obj): string | undefined => (node.status?.addresses ?? []).find((a: Obj) => a.type === "InternalIP")?.address;

class ServiceController extends KeyedController {
  private readonly services: SharedInformer;
  private readonly nodes: SharedInformer;

  constructor(private readonly ctx: ControllerContext) {
    super("service");
    this.services = ctx.factory.informerFor(RESOURCES.services);
    this.nodes = ctx.factory.informerFor(RESOURCES.nodes);
    this.services.addEventHandler({ add: this.enqueue, update: (_, cur) => this.enqueue(cur) });
    // a node that comes, goes or changes readiness changes every balancer's addresses
    const all = () => { for (const s of this.services.store.list()) if (s.spec?.type === "LoadBalancer") this.enqueue(s); };
    this.nodes.addEventHandler({ add: all, update: (old, cur) => { if (ready(old) !== ready(cur) || internalIP(old) !== internalIP(cur)) all(); }, delete: all });
  }

  protected async sync(key: string): Promise<void> {
    const svc = this.services.store.get(key);
    if (!svc || svc.metadata.deletionTimestamp) return;
    const ips = svc.spec?.type === "LoadBalancer" ? [...new Set(this.nodes.store.list().filter(ready).map(internalIP).filter((ip): ip is string => !!ip))].sort() : [];
    const ingress = ips.map((ip) => ({ ip }));
    if (JSON.stringify(svc.status?.loadBalancer?.ingress ?? []) === JSON.stringify(ingress)) return;
    // resourceVersion kept: a Service changed meanwhile conflicts, and the retry reads it again
    await this.ctx.client.update(RESOURCES.services, { ...svc, status: { ...svc.status, loadBalancer: ingress.length ? { ingress } : {} } }, { subresource: "status" });
  }
}

export const initServiceController: ControllerInit = (ctx) => new ServiceController(ctx);
