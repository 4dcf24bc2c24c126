// The node agent inside `kite up`: the same agent with its defaults, talking to the API server through the
// API as the node it runs (a client certificate for system:node:NAME in system:nodes, which the Node
// authorizer and RBAC grant what a kubelet needs), stopping its pods when the cluster stops.
import { embeddedClient, type EmbeddedTarget } from "../client/embedded.ts";
import { runNodeAgent } from "./agent.ts";
import { NODE_AGENT_ARGS } from "./flags.ts";
import { API_MAX_IN_FLIGHT, nodeAgentOptions } from "./options.ts";

export interface EmbeddedAgentExtras {
  /** The service proxy's own identity (system:kube-proxy); the node's when absent. */
  proxy?: EmbeddedTarget;
  /** Told once pods' networks are up: the bridge's address, or undefined for the host's network. */
  onPodNetwork?: (gateway: string | undefined) => void;
}

/** Runs until `signal` aborts; `flags` are node-agent flags (`--root-dir`, `--hostname-override`, ...). */
export function runEmbeddedNodeAgent(target: EmbeddedTarget, flags: Record<string, string>, signal: AbortSignal, extras: EmbeddedAgentExtras = {}): Promise<void> {
  const defaults: Record<string, unknown> = Object.fromEntries(Object.entries(NODE_AGENT_ARGS).map(([k, v]) => [k, (v as { default?: unknown }).default]));
  const o = { ...nodeAgentOptions({ ...defaults, ...flags }, []), stopPodsOnExit: true, onPodNetwork: extras.onPodNetwork };
  const client = embeddedClient(target, { maxInFlight: API_MAX_IN_FLIGHT });
  return runNodeAgent(o, client, signal, extras.proxy ? embeddedClient(extras.proxy) : client);
}
