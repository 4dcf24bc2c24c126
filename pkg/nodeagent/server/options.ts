// The agent's servers from its flags: the main port (HTTPS; authentication and authorization per the
// kubelet's §5.2 options), the read-only port and the healthz port (plain HTTP, no authentication).
import { opensslCiphers, tlsMinVersion } from "../../serving/tls-options.ts";
import { isIP } from "node:net";
import { join, resolve } from "node:path";
import { bool, duration, int, oneOf, UsageError } from "../../cli/args.ts";

export interface HostPort { host: string; port: number }

export interface AgentServingOptions {
  /** --address:--port; port 0 picks a free one. */
  main: HostPort;
  /** --address:--read-only-port; absent with 0. */
  readOnly?: HostPort;
  /** --healthz-bind-address:--healthz-port; absent with 0. */
  healthz?: HostPort;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** --tls-min-version (a protocol number) and --tls-cipher-suites (OpenSSL's list) of the HTTPS port. */
  tlsMinVersion?: number;
  ciphers?: string;
  /** --cert-dir: the generated kubelet.crt/.key live there. */
  certDir: string;
  authentication: {
    anonymous: boolean;
    clientCAFile?: string;
    /** --authentication-token-webhook: bearer tokens by TokenReview to the API server. */
    webhook: boolean;
    webhookCacheTtlMs: number;
  };
  authorization: {
    mode: "AlwaysAllow" | "Webhook";
    authorizedTtlMs: number;
    unauthorizedTtlMs: number;
  };
}

function address(flag: string, v: string): string {
  if (!isIP(v)) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: not a valid IP address`);
  return v;
}

export function servingOptions(a: Record<string, any>, rootDir: string): AgentServingOptions {
  const host = address("address", a.address);
  const readOnly = int("read-only-port", String(a["read-only-port"]), 0, 65535);
  const healthz = int("healthz-port", String(a["healthz-port"]), 0, 65535);
  if (!!a["tls-cert-file"] !== !!a["tls-private-key-file"]) throw new UsageError("--tls-cert-file and --tls-private-key-file must be given together");
  return {
    main: { host, port: int("port", String(a.port), 0, 65535) },
    readOnly: readOnly ? { host, port: readOnly } : undefined,
    healthz: healthz ? { host: address("healthz-bind-address", a["healthz-bind-address"]), port: healthz } : undefined,
    tlsCertFile: a["tls-cert-file"] || undefined,
    tlsPrivateKeyFile: a["tls-private-key-file"] || undefined,
    tlsMinVersion: tlsMinVersion(a["tls-min-version"]),
    ciphers: opensslCiphers(a["tls-cipher-suites"]),
    certDir: a["cert-dir"] ? resolve(a["cert-dir"]) : join(rootDir, "pki"),
    authentication: {
      anonymous: bool("anonymous-auth", a["anonymous-auth"]),
      clientCAFile: a["client-ca-file"] || undefined,
      webhook: bool("authentication-token-webhook", a["authentication-token-webhook"]),
      webhookCacheTtlMs: duration("authentication-token-webhook-cache-ttl", a["authentication-token-webhook-cache-ttl"]),
    },
    authorization: {
      mode: oneOf("authorization-mode", a["authorization-mode"], ["AlwaysAllow", "Webhook"]) as "AlwaysAllow" | "Webhook",
      authorizedTtlMs: duration("authorization-webhook-cache-authorized-ttl", a["authorization-webhook-cache-authorized-ttl"]),
      unauthorizedTtlMs: duration("authorization-webhook-cache-unauthorized-ttl", a["authorization-webhook-cache-unauthorized-ttl"]),
    },
  };
}
