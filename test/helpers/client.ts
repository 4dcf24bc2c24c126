// A pkg/client Client for a test server, as a component would build one from its kubeconfig.
import { Client } from "../../pkg/client/client.ts";
import { loadClientConfig, type ClientConfig } from "../../pkg/client/kubeconfig.ts";
import { Transport } from "../../pkg/client/transport.ts";
import type { TestServer } from "./server.ts";
import { tempDir } from "./processes.ts";

export async function clientFor(s: TestServer, settings: Partial<ClientConfig> = {}): Promise<Client> {
  const config = await loadClientConfig({ kubeconfig: s.kubeconfig, cacheDir: tempDir("kite-client-cache-") });
  return new Client(new Transport({ ...config, ...settings }));
}
