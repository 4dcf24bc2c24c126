// ResourceQuota: a create that would take a namespace past one of its quotas' hard limits is refused, in
// upstream's words. Usage is counted here from the watch cache (objects of the namespace, pods' requests
// and limits) with the resourcequota controller's rules (pkg/quota/usage.ts), and each admitted create
// writes the quota's status.used at once; the controller recounts it as objects change and go.
import { forbidden } from "../../api/status.ts";
import type { Obj } from "../../registry/types.ts";
import { cachedList } from "../lookup.ts";
import { COMPUTE, type Usage, inScope, podCounts, usageOf } from "../../quota/usage.ts";
import { formatQuantity, value } from "../../quota/resources.ts";
import { type Attributes, type Plugin, type PluginContext, qualified } from "../types.ts";

const pretty = (u: Usage, keys: string[]) => keys.map((k) => `${k}=${formatQuantity(u[k] ?? 0)}`).join(",");

/** The namespace's current usage of the resources `hard` names, for objects of a's type in the quota's scope. */
async function currentUsage(ctx: PluginContext, a: Attributes, quota: Obj): Promise<Usage> {
  const rs = ctx.registry.all.find((s) => s.def === a.def)!;
  const used: Usage = {};
  for (const o of await cachedList(rs, a.namespace)) {
    if (a.def.kind === "Pod" && !podCounts(o)) continue;
    if (!inScope(quota, a.def, o)) continue;
    for (const [r, n] of Object.entries(usageOf(a.def, o))) used[r] = (used[r] ?? 0) + n;
  }
  return used;
}

export function resourceQuota(ctx: PluginContext): Plugin {
  const quotas = ctx.registry.lookup("", "v1", "resourcequotas")!;
  return {
    handles: (a) => a.operation === "CREATE" && !a.subresource && a.def.namespaced && !!a.namespace,
    async validate(a) {
      const list = await cachedList(quotas, a.namespace);
      if (!list.length) return;
      const requested = usageOf(a.def, a.object!);
      for (const q of list) {
        const hard: Record<string, string> = q.spec?.hard ?? {};
        if (!inScope(q, a.def, a.object!)) continue;
        const isPod = a.def.group === "" && a.def.kind === "Pod";
        const missing = isPod ? COMPUTE.filter((r) => r in hard && !(r in requested)).sort() : [];
        if (missing.length) throw forbidden(qualified(a), a.name, `failed quota: ${q.metadata.name}: must specify ${missing.join(",")}`);
        const touched = Object.keys(requested).filter((r) => r in hard);
        if (!touched.length) continue;
        const used = await currentUsage(ctx, a, q);
        const exceeded = touched.filter((r) => (used[r] ?? 0) + requested[r] > value(hard[r])).sort();
        if (exceeded.length) {
          const limited = Object.fromEntries(exceeded.map((r) => [r, value(hard[r])]));
          throw forbidden(qualified(a), a.name, `exceeded quota: ${q.metadata.name}, requested: ${pretty(requested, exceeded)}, used: ${pretty(used, exceeded)}, limited: ${pretty(limited, exceeded)}`);
        }
        if (!a.dryRun) await recordUsage(ctx, q, Object.fromEntries(touched.map((r) => [r, (used[r] ?? 0) + requested[r]])));
      }
    },
  };
}

/** status.hard and status.used of a quota after this create (best effort: a lost race is left to the next create). */
async function recordUsage(ctx: PluginContext, q: Obj, usedAfter: Usage) {
  const hard: Record<string, string> = q.spec?.hard ?? {};
  const after = Object.fromEntries(Object.entries(usedAfter).map(([r, n]) => [r, formatQuantity(n)]));
  const quotas = ctx.registry.lookup("", "v1", "resourcequotas")!;
  await quotas.guaranteedUpdate(q.metadata.namespace, q.metadata.name, (cur) => ({ ...cur, status: { hard: { ...hard }, used: { ...(cur.status?.used ?? {}), ...after } } }), { sub: "status" }).catch(() => undefined);
}
