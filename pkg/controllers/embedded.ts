// The controllers inside `kite up`: every controller on by default, as clients of the API with the
// manager's identity (a client certificate for system:kube-controller-manager) and each controller writing
// as its own ServiceAccount (--use-service-account-credentials), no leader election (the data dir's lock
// already makes this process the only one). The legacy token controller is left out: the API server of
// `kite up` fills service-account token Secrets itself.
import { Client } from "../client/client.ts";
import { Transport } from "../client/transport.ts";
import type { EmbeddedTarget } from "../scheduler/embedded.ts";
import { runControllers, selectControllers } from "./manager.ts";
import { DEFAULT_CONTROLLER_OPTIONS } from "./options.ts";

/** Runs until `signal` aborts. */
export function runEmbeddedControllers(target: EmbeddedTarget, signal: AbortSignal): Promise<void> {
  const client = new Client(new Transport({ ...target, insecure: false, namespace: "default", explicitNamespace: false, source: "kite up", cacheDir: "" }));
  return runControllers(client, selectControllers(["*", "-serviceaccount-token"]), 5, signal, { ...DEFAULT_CONTROLLER_OPTIONS, rootCA: target.ca }, true);
}
