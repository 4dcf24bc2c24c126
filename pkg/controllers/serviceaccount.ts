// The serviceaccount controller (upstream's "serviceaccount"): every active namespace has a `default`
// ServiceAccount — made when the namespace appears, made again when it is deleted. (The API server makes
// it too, so that `kite apiserver` alone is usable; whichever comes second finds it there.)
import { isAlreadyExists, type Client, type Obj } from "../client/client.ts";
import { RESOURCES } from "../client/resources.ts";
import { objectOf, type DeletedFinalStateUnknown, type Store } from "../client/store.ts";
import { isNamespaceTerminating } from "./endpointutil.ts";
import { KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";

/** The ServiceAccounts every namespace gets. */
const SERVICE_ACCOUNTS = ["default"];

class ServiceAccountsController extends KeyedController {
  private readonly client: Client;
  private readonly namespaces: Store;
  private readonly accounts: Store;

  constructor(ctx: ControllerContext) {
    super("serviceaccount");
    this.client = ctx.client;
    const namespaces = ctx.factory.informerFor(RESOURCES.namespaces);
    const accounts = ctx.factory.informerFor(RESOURCES.serviceaccounts);
    this.namespaces = namespaces.store;
    this.accounts = accounts.store;
    namespaces.addEventHandler({ add: this.enqueue, update: (_, ns) => this.enqueue(ns) });
    accounts.addEventHandler({ delete: (sa: Obj | DeletedFinalStateUnknown) => this.queue.add(objectOf(sa).metadata.namespace) });
  }

  protected async sync(name: string): Promise<void> {
    const ns = this.namespaces.get(name);
    // A namespace being deleted gets nothing new.
    if (!ns || (ns.status?.phase ?? "Active") !== "Active") return;
    for (const sa of SERVICE_ACCOUNTS) {
      if (this.accounts.get(`${name}/${sa}`)) continue;
      await this.client.create(RESOURCES.serviceaccounts, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: sa, namespace: name } }).catch((e) => {
        if (!isAlreadyExists(e) && !isNamespaceTerminating(e)) throw e;
      });
    }
  }
}

export const startServiceAccountController: ControllerInit = (ctx) => new ServiceAccountsController(ctx);
