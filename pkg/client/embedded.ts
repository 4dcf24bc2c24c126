// The client of a component running inside `kite up`: the API server's URL and CA, and the component's own
// client certificate (each part acts under its own identity, as it would as a separate process).
import { Client } from "./client.ts";
import type { ClientConfig } from "./kubeconfig.ts";
import { Transport } from "./transport.ts";

export interface EmbeddedTarget {
  server: string;
  ca: string;
  cert: string;
  key: string;
}

/** A client for `target`; `limits` sets a client-side rate limit (the scheduler's qps and burst). */
export function embeddedClient(target: EmbeddedTarget, limits: Pick<ClientConfig, "qps" | "burst"> = {}): Client {
  return new Client(new Transport({ ...target, ...limits, insecure: false, namespace: "default", explicitNamespace: false, source: "kite up", cacheDir: "" }));
}
