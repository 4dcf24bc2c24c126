// `kite controller-manager` after its flags: the controllers --controllers selects, built on one set of
// shared informers (started and synced before any controller runs, as upstream), each running its workers
// until the signal aborts.
import { consola } from "consola";
import type { Client } from "../client/client.ts";
import { EventBroadcaster } from "../client/events.ts";
import { dropManagedFields, InformerFactory } from "../client/informer.ts";
import { DEFAULT_CONTROLLER_OPTIONS, type ControllerContext, type ControllerOptions } from "./framework.ts";
import { CONTROLLERS } from "./table.ts";

/** Upstream's --controllers: `*` is every controller on by default, `name` adds one, `-name` removes one. */
export function selectControllers(spec: string[]): string[] {
  const on = new Set<string>();
  const star = spec.includes("*");
  for (const [name, c] of Object.entries(CONTROLLERS)) {
    if (spec.includes(`-${name}`)) continue;
    if (spec.includes(name) || (star && c.enabledByDefault)) on.add(name);
  }
  return [...on];
}

export async function runControllers(client: Client, names: string[], workers: number, signal: AbortSignal, options: ControllerOptions = DEFAULT_CONTROLLER_OPTIONS): Promise<void> {
  const ctx: ControllerContext = { client, options, factory: new InformerFactory(client, { transform: dropManagedFields }), events: new EventBroadcaster(client) };
  const controllers = names.map((name) => CONTROLLERS[name].init(ctx));
  ctx.factory.start();
  if (!(await ctx.factory.waitForCacheSync(signal))) return;
  consola.info(`started ${controllers.map((c) => c.name).join(", ") || "no controllers"}`);
  await Promise.all(controllers.map((c) => c.run(workers, signal)));
  ctx.factory.stop();
  await ctx.events.flush();
}
