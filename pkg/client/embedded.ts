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

/** A client for `target`, not rate-limited (the API server it talks to is in the same process). */
export function embeddedClient(target: EmbeddedTarget, settings: Pick<ClientConfig, "maxInFlight"> = {}): Client {
  return new Client(new Transport({ ...target, ...settings, insecure: false, namespace: "default", explicitNamespace: false, source: "kite up", cacheDir: "" }));
}
