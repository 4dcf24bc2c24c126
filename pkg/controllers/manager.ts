// `kite controller-manager` after its flags: the controllers --controllers selects, built on one set of
// shared informers (started and synced before any controller runs, as upstream), each running its workers
// until the signal aborts.
import { consola } from "consola";
import type { Client } from "../client/client.ts";
import { EventBroadcaster } from "../client/events.ts";
import { dropManagedFields, InformerFactory } from "../client/informer.ts";
import { controllerClient } from "./credentials.ts";
import type { Controller } from "./framework.ts";
import { DEFAULT_CONTROLLER_OPTIONS, type ControllerOptions } from "./options.ts";
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

/**
 * Runs the named controllers until `signal` aborts. With `serviceAccountCredentials` each controller writes
 * as its own ServiceAccount (--use-service-account-credentials); informers use the manager's client.
 */
export async function runControllers(client: Client, names: string[], workers: number, signal: AbortSignal, options: ControllerOptions = DEFAULT_CONTROLLER_OPTIONS, serviceAccountCredentials = false): Promise<void> {
  const factory = new InformerFactory(client, { transform: dropManagedFields });
  const broadcasters: EventBroadcaster[] = [];
  const controllers: Controller[] = [];
  for (const name of names) {
    const own = serviceAccountCredentials ? await controllerClient(client, name, signal) : client;
    const events = new EventBroadcaster(own);
    broadcasters.push(events);
    const c = CONTROLLERS[name].init({ client: own, factory, events, options });
    if (c) controllers.push(c);
  }
  factory.start();
  if (!(await factory.waitForCacheSync(signal))) return;
  consola.info(`started ${controllers.map((c) => c.name).join(", ") || "no controllers"}`);
  await Promise.all(controllers.map((c) => c.run(workers, signal)));
  factory.stop();
  await Promise.all(broadcasters.map((b) => b.flush()));
}
