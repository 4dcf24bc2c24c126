// The controllers inside `kite up`: every controller on by default, as clients of the API with the
// manager's identity (a client certificate for system:kube-controller-manager) and each controller writing
// as its own ServiceAccount (--use-service-account-credentials), no leader election (the data dir's lock
// already makes this process the only one). The legacy token controller is left out: the API server of
// `kite up` fills service-account token Secrets itself.
import { embeddedClient, type EmbeddedTarget } from "../client/embedded.ts";
import { runControllers, selectControllers } from "./manager.ts";
import { DEFAULT_CONTROLLER_OPTIONS } from "./options.ts";

/** Runs until `signal` aborts. */
export function runEmbeddedControllers(target: EmbeddedTarget, signal: AbortSignal): Promise<void> {
  return runControllers(embeddedClient(target), selectControllers(["*", "-serviceaccount-token"]), 5, signal, { ...DEFAULT_CONTROLLER_OPTIONS, rootCA: target.ca }, true);
}
