// The serving flags of `kite apiserver` (§5.1, §8.1) that shape how it answers rather than what it stores:
// CORS, HSTS, profiling, TLS cipher suites and SNI certificates, privileged pods, the `kubernetes`
// Service's node port and Endpoints reconciler, and the flags Kite accepts without effect (each says why).
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { UsageError, bool, int, oneOf } from "../cli/args.ts";
import { TLS_ARGS, opensslCiphers } from "../serving/tls-options.ts";
import { commaList } from "../util/commalist.ts";

export const SERVING_ARGS = {
  "cors-allowed-origins": { type: "string", description: "Comma-separated regular expressions of allowed origins for CORS; a matching Origin gets the CORS headers and its preflight OPTIONS a 204. Empty disables CORS" },
  "strict-transport-security-directives": { type: "string", description: "Comma-separated HSTS directives (max-age=SECONDS, includeSubDomains, preload) sent in a Strict-Transport-Security header on every response. Empty sends none" },
  ...TLS_ARGS,
  "tls-sni-cert-key": { type: "string", description: "A certificate and key for the names it serves: certfile,keyfile[:name1,name2] (names default to the certificate's DNS names; *.domain is a wildcard). Repeatable; the most specific name wins over --tls-cert-file's default" },
  "profiling": { type: "boolean", default: true, description: "Serve profiles at /debug/pprof/ to authorized users: profile?seconds=N (a CPU sampling report of JavaScriptCore) and heap (a V8-format heap snapshot)" },
  "contention-profiling": { type: "boolean", default: false, description: "Accepted without effect: JavaScript has no lock contention to profile (upstream enables Go's block profiler; needs --profiling)" },
  "external-hostname": { type: "string", description: "The hostname clients outside the cluster reach the server by (with the secure port): the address discovery's serverAddressByClientCIDRs and the issuer discovery document name (default: --advertise-address)" },
  "allow-privileged": { type: "boolean", default: false, description: "If true, allow privileged containers (securityContext.privileged); else they are refused as upstream ('disallowed by cluster policy')" },
  "kubernetes-service-node-port": { type: "string", default: "0", description: "If non-zero, the `kubernetes` Service is a NodePort Service on this port (within --service-node-port-range); 0 keeps it a ClusterIP Service" },
  "endpoint-reconciler-type": { type: "string", default: "lease", description: "How the `kubernetes` Endpoints list the API servers: lease (every server whose lease in kube-system is live), master-count (up to --apiserver-count of them), none (the Endpoints are not kept)" },
  "apiserver-count": { type: "string", default: "1", description: "The number of API servers in the cluster (with --endpoint-reconciler-type=master-count)" },
  "enable-garbage-collector": { type: "boolean", default: true, description: "Run the garbage collector in this server (owner references, cascading deletion); must match the controller manager's" },
  "http2-max-streams-per-connection": { type: "string", default: "0", description: "Accepted without effect: Kite serves HTTP/1.1, where a connection carries one request at a time" },
  "identity-lease-duration-seconds": { type: "string", default: "3600", description: "Accepted without effect: the APIServerIdentity gate (alpha in v1.21, off) is not implemented, so no identity lease is kept" },
  "identity-lease-renew-interval-seconds": { type: "string", default: "10", description: "Accepted without effect: see --identity-lease-duration-seconds" },
  "lease-reuse-duration-seconds": { type: "string", default: "60", description: "Accepted without effect: Kite expires Events by its own sweep (--event-ttl), not by etcd leases to reuse" },
} as const;

export interface SniCert { certFile: string; keyFile: string; names: string[] }

export interface ServingOptions {
  corsAllowedOrigins: RegExp[];
  /** The Strict-Transport-Security header's value, if any. */
  hsts?: string;
  profiling: boolean;
  /** OpenSSL's cipher list for TLS 1.2, if restricted. */
  ciphers?: string;
  sniCerts: SniCert[];
  externalHostname?: string;
  allowPrivileged: boolean;
  kubernetesServiceNodePort: number;
  endpointReconciler: "lease" | "master-count" | "none";
  apiserverCount: number;
  enableGarbageCollector: boolean;
}

/** A server started without the flags (in-process servers, tests): the flags' defaults. */
export const DEFAULT_SERVING: ServingOptions = {
  corsAllowedOrigins: [], profiling: true, sniCerts: [], allowPrivileged: false, kubernetesServiceNodePort: 0,
  endpointReconciler: "lease", apiserverCount: 1, enableGarbageCollector: true,
};


export function servingOptions(a: Record<string, any>, nodePorts: { min: number; max: number }): ServingOptions {
  const corsAllowedOrigins = commaList(a["cors-allowed-origins"]).map((re) => {
    try { return new RegExp(re); } catch (e) { throw new UsageError(`invalid argument "${re}" for "--cors-allowed-origins" flag: ${(e as Error).message}`); }
  });
  const hstsDirectives = String(a["strict-transport-security-directives"] ?? "").split(",").map((x) => x.trim());
  const given = a["strict-transport-security-directives"] !== undefined && a["strict-transport-security-directives"] !== "";
  if (given) {
    for (const d of hstsDirectives) {
      if (d === "") throw new UsageError("empty value in strict-transport-security-directives");
      if (d !== "includeSubDomains" && d !== "preload" && !/^max-age=[^=]*$/.test(d)) {
        throw new UsageError("--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information");
      }
    }
  }
  const kubernetesServiceNodePort = int("kubernetes-service-node-port", a["kubernetes-service-node-port"], 0, 65535);
  if (kubernetesServiceNodePort > 0 && (kubernetesServiceNodePort < nodePorts.min || kubernetesServiceNodePort > nodePorts.max)) {
    throw new UsageError(`--kubernetes-service-node-port ${kubernetesServiceNodePort} must be within the service node port range ${nodePorts.min}-${nodePorts.max}`);
  }
  for (const f of ["http2-max-streams-per-connection", "identity-lease-duration-seconds", "identity-lease-renew-interval-seconds", "lease-reuse-duration-seconds"]) int(f, a[f], 0);
  bool("contention-profiling", a["contention-profiling"]);
  return {
    corsAllowedOrigins,
    hsts: given ? hstsDirectives.join("; ") : undefined,
    profiling: bool("profiling", a.profiling),
    ciphers: opensslCiphers(a["tls-cipher-suites"]),
    sniCerts: [a["tls-sni-cert-key"] ?? []].flat().filter(Boolean).map(parseSni),
    externalHostname: a["external-hostname"] || undefined,
    allowPrivileged: bool("allow-privileged", a["allow-privileged"]),
    kubernetesServiceNodePort,
    endpointReconciler: oneOf("endpoint-reconciler-type", a["endpoint-reconciler-type"], ["lease", "master-count", "none"]) as ServingOptions["endpointReconciler"],
    apiserverCount: int("apiserver-count", a["apiserver-count"], 1),
    enableGarbageCollector: bool("enable-garbage-collector", a["enable-garbage-collector"]),
  };
}

/** certfile,keyfile[:name1,name2] (upstream's NamedCertKey flag). */
function parseSni(v: string): SniCert {
  const colon = v.indexOf(":");
  const files = (colon < 0 ? v : v.slice(0, colon)).split(",").map((x) => x.trim());
  if (files.length !== 2 || !files[0] || !files[1]) throw new UsageError(`invalid argument "${v}" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths`);
  return { certFile: files[0], keyFile: files[1], names: colon < 0 ? [] : commaList(v.slice(colon + 1)) };
}

/**
 * The TLS settings of the HTTPS server: the default certificate, then one entry per name of each
 * --tls-sni-cert-key (names from the flag, else the certificate's DNS names and common name).
 */
export function sniTLS<T extends object>(base: T, certs: SniCert[]): T | (T & { serverName?: string; cert: string; key: string })[] {
  if (!certs.length) return base;
  const named = certs.flatMap((c) => {
    const cert = readFileSync(c.certFile, "utf8"), key = readFileSync(c.keyFile, "utf8");
    return (c.names.length ? c.names : certificateNames(cert)).map((serverName) => ({ ...base, serverName, cert, key }));
  });
  return [base as T & { cert: string; key: string }, ...named];
}

function certificateNames(pem: string): string[] {
  const x = new X509Certificate(pem);
  const dns = (x.subjectAltName ?? "").split(/,\s*/).filter((n) => n.startsWith("DNS:")).map((n) => n.slice(4));
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(x.subject)?.[1];
  return [...new Set([...(cn ? [cn] : []), ...dns])];
}
