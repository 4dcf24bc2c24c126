// An HTTPS webhook server on loopback with its own CA (made by pkg/pki): admission, conversion and slow
// webhooks in the tests answer from it. `clientConfig(path)` is what a webhook configuration names it by.
import { generateServingCerts } from "../../pkg/pki/certs.ts";

export interface WebhookServer {
  /** https://127.0.0.1:PORT */
  base: string;
  /** The CA that signed the serving certificate, base64 as caBundle takes it. */
  caBundle: string;
  clientConfig(path: string): { url: string; caBundle: string };
  stop(): void;
}

export function startWebhookServer(name: string, fetch: (req: Request) => Response | Promise<Response>): WebhookServer {
  const certs = generateServingCerts(`${name}-ca`, name, ["127.0.0.1"]);
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: certs.cert, key: certs.key }, fetch });
  const base = `https://127.0.0.1:${server.port}`;
  const caBundle = Buffer.from(certs.ca).toString("base64");
  return { base, caBundle, clientConfig: (path) => ({ url: `${base}${path}`, caBundle }), stop: () => server.stop(true) };
}
