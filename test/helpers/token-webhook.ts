// A token webhook (--authentication-token-webhook-config-file) on loopback for the tests: HTTPS with a CA of
// its own that demands the API server's client certificate, counts its calls and answers by token.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { ensureServingCerts } from "../../pkg/pki/certs.ts";
import { tempDir } from "./processes.ts";

/**
 * A webhook on loopback with its own CA; it requires a client certificate from that CA. "good-token" is
 * webhook-user; `users` names more tokens' users.
 */
export class TokenWebhook {
  calls: { token: string; apiVersion: string; kind: string; audiences?: string[] }[] = [];
  server: Server<undefined>;
  dir = tempDir("kite-webhook-");
  certs = ensureServingCerts(this.dir);

  constructor(private users: Record<string, string> = {}) {
    this.server = this.serve(0);
  }

  restart(port: number) {
    this.server = this.serve(port);
  }

  private serve(port: number): Server<undefined> {
    const { cert, key, ca } = this.certs;
    return Bun.serve({
      hostname: "127.0.0.1", port, tls: { cert, key, ca, requestCert: true, rejectUnauthorized: true },
      fetch: async (req) => {
        const review = await req.json() as any;
        const token = review.spec?.token;
        this.calls.push({ token, apiVersion: review.apiVersion, kind: review.kind, audiences: review.spec?.audiences });
        // "flaky-token" fails its first review with a 500 (retried), "broken-token" every one
        if (token === "broken-token" || (token === "flaky-token" && this.count(token) === 1)) return new Response("busy", { status: 500 });
        const status = token === "good-token" || token === "flaky-token"
          ? { authenticated: true, user: { username: "webhook-user", uid: "w-1", groups: ["webhook-group"], extra: { scopes: ["read", "write"] } } }
          : this.users[token] ? { authenticated: true, user: { username: this.users[token] } }
          : token === "revoked-token" ? { authenticated: false, error: "token revoked" } : { authenticated: false };
        return Response.json({ apiVersion: review.apiVersion, kind: "TokenReview", status });
      },
    });
  }

  /** A kubeconfig naming the webhook, its CA, and a client certificate it signed. */
  kubeconfig(): string {
    const d = this.dir;
    execFileSync("openssl", ["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", join(d, "client.key"), "-out", join(d, "client.csr"), "-subj", "/CN=kite-apiserver"], { stdio: "ignore" });
    writeFileSync(join(d, "ext.cnf"), "extendedKeyUsage=clientAuth\n");
    execFileSync("openssl", ["x509", "-req", "-in", join(d, "client.csr"), "-CA", this.certs.caFile, "-CAkey", join(d, "ca.key"), "-CAcreateserial", "-days", "1", "-out", join(d, "client.crt"), "-extfile", join(d, "ext.cnf")], { stdio: "ignore" });
    const file = join(d, "webhook.kubeconfig");
    writeFileSync(file, `apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster:
    server: https://127.0.0.1:${this.server.port}/authenticate
    certificate-authority: ${this.certs.caFile}
users:
- name: apiserver
  user:
    client-certificate: client.crt
    client-key-data: ${Buffer.from(readFileSync(join(d, "client.key"))).toString("base64")}
contexts:
- name: webhook
  context: {cluster: webhook, user: apiserver}
current-context: webhook
`);
    return file;
  }

  count = (token: string) => this.calls.filter((c) => c.token === token).length;
}
