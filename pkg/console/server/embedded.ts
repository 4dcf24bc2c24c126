// The console inside `kite up`: served with the admin kubeconfig `kite up` wrote; a port already taken
// leaves the cluster running without it (a warning says so).
import { consola } from "consola";
import { loadClientConfig } from "../../client/kubeconfig.ts";
import { Transport } from "../../client/transport.ts";
import type { RunningConsole } from "./serve.ts";

export async function startEmbeddedConsole(kubeconfig: string, address: string, port: number): Promise<RunningConsole | undefined> {
  // loaded here, not with kite up's own code: a cluster started with --disable=console never reads it
  const [{ startConsole }, config] = await Promise.all([import("./serve.ts"), loadClientConfig({ kubeconfig })]);
  try {
    return startConsole({ transport: new Transport(config), address, port, namespace: config.namespace });
  } catch (e) {
    consola.warn(`console not started: ${address}:${port}: ${(e as Error).message} (choose another --console-port, or run 'kite console --port N' later)`);
    return undefined;
  }
}
