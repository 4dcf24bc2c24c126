// RBAC inside the API server: the index of roles and bindings (fed by the registry's watches), the
// authorizer over it, the aggregation controller, the escalation checks on RBAC writes, and the
// bootstrap policy reconciled after every start. All run whatever --authorization-mode says, as
// upstream's RBAC API group runs them.
import { consola } from "consola";
import type { Registry } from "../../registry/registry.ts";
import type { AuthorizerChain } from "../authorize.ts";
import { AggregationController } from "./aggregation.ts";
import { RbacAuthorizer } from "./authorizer.ts";
import { reconcileBootstrapPolicy } from "./bootstrap/reconcile.ts";
import { CLUSTER_ROLES } from "./bootstrap/cluster-roles.ts";
import { EscalationChecks } from "./escalation.ts";
import { RBAC_GROUP, RbacIndex } from "./index.ts";

export class Rbac {
  readonly index: RbacIndex;
  readonly authorizer: RbacAuthorizer;
  private aggregation: AggregationController;
  /** The bootstrap policy is in the store and in the index (the rbac/bootstrap-roles health check). */
  bootstrapped = false;
  private stopped = false;

  constructor(private registry: Registry) {
    this.index = new RbacIndex(registry);
    this.authorizer = new RbacAuthorizer(this.index);
    this.aggregation = new AggregationController(this.index, this.store("clusterroles"));
  }

  private store(plural: string) { return this.registry.lookup(RBAC_GROUP, "v1", plural)!; }

  /** Resolves once every stored RBAC object is indexed. */
  async start() {
    this.index.clusterRoleWatchers.push(() => this.aggregation.changed());
    await this.index.start();
  }

  /** Clients' writes of roles and bindings go through the escalation checks, which ask `authz`. */
  guardWrites(authz: AuthorizerChain) {
    const checks = new EscalationChecks(authz, this.authorizer);
    this.store("roles").callerCheck = checks.roles("roles");
    this.store("clusterroles").callerCheck = checks.roles("clusterroles");
    this.store("rolebindings").callerCheck = checks.bindings("rolebindings");
    this.store("clusterrolebindings").callerCheck = checks.bindings("clusterrolebindings");
  }

  /** The post-start reconciliation, retried until it succeeds (the store may be briefly unreachable). */
  async bootstrap() {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        await reconcileBootstrapPolicy(this.registry);
        while (!this.stopped && CLUSTER_ROLES.some((r) => !this.index.clusterRole(r.metadata.name))) await Bun.sleep(10);
        this.bootstrapped = true;
        return;
      } catch (e) {
        consola.warn(`rbac/bootstrap-roles: ${(e as Error).message}; retrying`);
        await Bun.sleep(Math.min(1000, 100 * 2 ** attempt));
      }
    }
  }

  stop() {
    this.stopped = true;
    this.aggregation.stop();
    this.index.stop();
  }
}
