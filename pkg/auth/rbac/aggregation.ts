// The ClusterRole aggregation controller (upstream's clusterrole-aggregation-controller): the rules of a
// ClusterRole with an aggregationRule are the rules of every other ClusterRole its selectors match, in
// name order without repeats, and are rewritten whenever a ClusterRole changes.
import { consola } from "consola";
import type { ResourceStore } from "../../registry/generic.ts";
import { parseLabelSelector } from "../../registry/selector.ts";
import type { Obj } from "../../registry/types.ts";
import { selectorString } from "../../table/columns.ts";
import type { RbacIndex } from "./index.ts";

/** The rules an aggregated role should hold, from the roles known now. */
export function aggregatedRules(role: Obj, all: Obj[]): Obj[] {
  const rules: Obj[] = [];
  const sorted = [...all].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const sel of role.aggregationRule.clusterRoleSelectors ?? []) {
    const s = selectorString(sel);
    if (s === undefined) continue;
    const matches = parseLabelSelector(s);
    for (const other of sorted) {
      if (other.metadata.name === role.metadata.name || !matches(other.metadata.labels ?? {})) continue;
      for (const r of other.rules ?? []) if (!rules.some((x) => Bun.deepEquals(x, r))) rules.push(r);
    }
  }
  return rules;
}

export class AggregationController {
  private pending = false;
  private running = Promise.resolve();
  private stopped = false;

  constructor(private index: RbacIndex, private clusterRoles: ResourceStore) {}

  /** Called on every ClusterRole change: one pass runs after the current one, however many changes came. */
  changed() {
    if (this.pending || this.stopped) return;
    this.pending = true;
    this.running = this.running.then(() => {
      this.pending = false;
      return this.sync();
    }).catch((e) => consola.warn(`clusterrole aggregation: ${e.message}`));
  }

  stop() { this.stopped = true; }

  private async sync() {
    for (const role of this.index.allClusterRoles()) {
      if (!role.aggregationRule || this.stopped) continue;
      if (Bun.deepEquals(aggregatedRules(role, this.index.allClusterRoles()), role.rules ?? [])) continue;
      await this.clusterRoles.guaranteedUpdate("", role.metadata.name, (cur) => {
        if (!cur.aggregationRule) return cur;
        return { ...cur, rules: aggregatedRules(cur, this.index.allClusterRoles()) };
      }).catch((e) => { if (e.code !== 404) throw e; });
    }
  }
}
