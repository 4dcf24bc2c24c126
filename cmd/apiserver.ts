// kite apiserver: flags → ApiServerOptions; pkg/server does the work.
import { defineCommand } from "citty";
import { consola } from "consola";
import { homedir } from "node:os";
import { join } from "node:path";
import { UsageError, bool, duration, int, oneOf, repeated, strict } from "../pkg/cli/args.ts";
import { parsePortRange } from "../pkg/registry/allocators.ts";
import { parseIPv4Range } from "../pkg/util/ipv4.ts";
import { ApiServer } from "../pkg/server/apiserver.ts";
import { parseServersOverrides } from "../pkg/storage/factory.ts";
import { startOrExit } from "./component.ts";
import { COMPONENT_ARGS, componentFlags, parseGates } from "../pkg/cli/component-flags.ts";
import type { Features } from "../pkg/features/featuregate.ts";
import { parseRuntimeConfig } from "../pkg/server/runtime-config.ts";
import { SERVED } from "../pkg/registry/served.ts";
import { AUTHORIZATION_MODES, type AuthOptions } from "../pkg/auth/config.ts";
import { oidcFlags, oidcOptions } from "../pkg/auth/oidc-options.ts";
import { AUDIT_ARGS, auditOptions } from "../pkg/audit/options.ts";
import { ADMISSION_ARGS, admissionOptions } from "../pkg/admission/options.ts";
import { SERVING_ARGS, servingOptions } from "../pkg/server/serving-options.ts";
import { tlsMinVersion } from "../pkg/serving/tls-options.ts";
import { SERVICE_ACCOUNT_ARGS, repeatedServiceAccountFlags, serviceAccountOptions } from "../pkg/auth/serviceaccount-options.ts";
import { commaList } from "../pkg/util/commalist.ts";

export const args = {
  "secure-port": { type: "string", default: "6443", description: "The port on which to serve HTTPS (cannot be turned off with 0)" },
  "bind-address": { type: "string", default: "0.0.0.0", description: "The IP address on which to listen for the --secure-port port" },
  "data-dir": { type: "string", default: join(homedir(), ".kite", "server"), description: "Directory of the SQLite store (state.db) and generated certificates" },
  "storage-backend": { type: "string", default: "sqlite", description: "The storage backend: sqlite (embedded) or etcd3" },
  "cert-dir": { type: "string", description: "Directory of the generated TLS certificates (default DATA-DIR/pki); ignored with --tls-cert-file" },
  "tls-cert-file": { type: "string", description: "File containing the default x509 certificate for HTTPS" },
  "tls-private-key-file": { type: "string", description: "File containing the default x509 private key matching --tls-cert-file" },
  "advertise-address": { type: "string", description: "The IP address on which to advertise the apiserver to members of the cluster" },
  "request-timeout": { type: "string", default: "1m0s", description: "Default timeout of a request handler (watches excepted)" },
  "min-request-timeout": { type: "string", default: "1800", description: "Seconds a watch stays open at least (randomized up to twice that)" },
  "shutdown-delay-duration": { type: "string", default: "0s", description: "Time to keep serving after SIGTERM while /readyz fails" },
  "livez-grace-period": { type: "string", default: "0s", description: "Time after start during which unfinished start-up hooks count as live" },
  "etcd-prefix": { type: "string", default: "/registry", description: "The prefix of every key in the store" },
  "etcd-compaction-interval": { type: "string", default: "5m0s", description: "Interval of compaction; history older than one interval is dropped (0 disables)" },
  "etcd-servers": { type: "string", description: "Comma-separated etcd client URLs; selects the etcd3 backend" },
  "etcd-servers-overrides": { type: "string", description: "Per-resource etcd servers: group/resource#servers, comma-separated; servers separated by ';' (core group: /pods#...)" },
  "etcd-cafile": { type: "string", description: "SSL Certificate Authority file used to secure etcd communication" },
  "etcd-certfile": { type: "string", description: "SSL certification file used to secure etcd communication" },
  "etcd-keyfile": { type: "string", description: "SSL key file used to secure etcd communication" },
  "etcd-healthcheck-timeout": { type: "string", default: "2s", description: "The timeout to use when checking etcd health" },
  "etcd-count-metric-poll-period": { type: "string", default: "1m0s", description: "How often to count objects per resource for apiserver_storage_objects (0 disables)" },
  "etcd-db-metric-poll-interval": { type: "string", default: "30s", description: "How often to read the database size for apiserver_storage_db_total_size_in_bytes (0 disables; SQLite file only)" },
  "storage-media-type": { type: "string", default: "application/json", description: "Media type of stored values: application/json, or application/vnd.kubernetes.protobuf (also application/vnd.platform.protobuf) as upstream writes them; values of either type are always read" },
  "watch-cache": { type: "boolean", default: true, description: "Enable the watch cache for all resources (--no-watch-cache or --watch-cache=false disables it)" },
  "default-watch-cache-size": { type: "string", default: "100", description: "Events kept per resource in the watch cache; 0 disables caching for resources without their own size" },
  "watch-cache-sizes": { type: "string", description: "Per-resource cache sizes, comma-separated resource[.group]#size (e.g. pods#1000,deployments.apps#200)" },
  "runtime-config": { type: "string", description: "Group versions (and resources) to serve, key[=value] comma-separated, a missing value meaning true: api/all, api/ga, api/beta, api/alpha, group/version (api/v1: core), group/version/resource (e.g. batch/v1beta1=false, api/beta=false,batch/v1beta1). Alpha versions are off by default; a disabled version answers 404 and its objects stay reachable at the others" },
  "max-requests-inflight": { type: "string", default: "400", description: "Maximum non-mutating requests in flight (0: no limit); with priority and fairness, the two limits' sum is the concurrency its priority levels share" },
  "max-mutating-requests-inflight": { type: "string", default: "200", description: "Maximum mutating requests in flight (0: no limit); see --max-requests-inflight" },
  "enable-priority-and-fairness": { type: "boolean", default: true, description: "With the APIPriorityAndFairness gate (on by default), replace the two in-flight limits by API Priority and Fairness over their sum: FlowSchemas and PriorityLevelConfigurations (flowcontrol.apiserver.k8s.io/v1beta1) classify requests and queue them fairly" },
  "event-ttl": { type: "string", default: "1h0m0s", description: "Amount of time to retain events (after their last write)" },
  "delete-collection-workers": { type: "string", default: "1", description: "Number of workers spawned for DeleteCollection call. These are used to speed up namespace cleanup" },
  "goaway-chance": { type: "string", default: "0", description: "The probability (0 to 0.02) that a response closes its connection, so clients reconnect and spread over servers behind a load balancer. Upstream sends an HTTP/2 GOAWAY; Kite serves HTTP/1.1, where closing the connection after the response is the equivalent" },
  "max-connection-bytes-per-sec": { type: "string", default: "0", description: "Accepted without effect: upstream throttles each long-running connection (exec, attach, port-forward, proxy) to this many bytes/s; Bun's sockets give Kite no per-connection pacing of the relayed streams" },
  "service-cluster-ip-range": { type: "string", default: "10.96.0.0/12", description: "IPv4 CIDR that Services' cluster IPs are handed out from" },
  "service-node-port-range": { type: "string", default: "30000-32767", description: "Inclusive N1-N2 range of node ports for NodePort and LoadBalancer Services" },
  "anonymous-auth": { type: "boolean", default: true, description: "Requests no authenticator rejected are served as system:anonymous (group system:unauthenticated)" },
  "authorization-mode": { type: "string", default: "AlwaysAllow", description: `Ordered, comma-separated authorizers: ${AUTHORIZATION_MODES.join(", ")}` },
  "authorization-always-allow-paths": { type: "string", default: "/healthz,/readyz,/livez", description: "Non-resource paths (a trailing * is a prefix) served to any caller without authorization" },
  ...oidcFlags,
  ...SERVICE_ACCOUNT_ARGS,
  ...ADMISSION_ARGS,
  "authorization-policy-file": { type: "string", description: "File of ABAC policies, one JSON object a line (--authorization-mode=ABAC)" },
  "authorization-webhook-config-file": { type: "string", description: "Kubeconfig-format file of the authorization webhook (--authorization-mode=Webhook)" },
  "authorization-webhook-version": { type: "string", default: "v1beta1", description: "The authorization.k8s.io version of the SubjectAccessReview sent to the webhook: v1beta1 or v1" },
  "authorization-webhook-cache-authorized-ttl": { type: "string", default: "5m0s", description: "How long the webhook's 'authorized' answers are cached" },
  "authorization-webhook-cache-unauthorized-ttl": { type: "string", default: "30s", description: "How long the webhook's 'unauthorized' answers are cached" },
  "cluster-signing-cert-file": { type: "string", description: "PEM CA certificate that signs approved CSRs of the kubernetes.io signers (default: the generated CA in the cert dir)" },
  "cluster-signing-key-file": { type: "string", description: "PEM private key of --cluster-signing-cert-file" },
  "cluster-signing-duration": { type: "string", default: "8760h0m0s", description: "The validity of certificates the kubernetes.io signers issue" },
  "token-auth-file": { type: "string", description: "CSV file of static bearer tokens: token,user,uid[,\"group1,group2\"]" },
  "enable-bootstrap-token-auth": { type: "boolean", default: false, description: "Accept bootstrap tokens (Secrets of type bootstrap.kubernetes.io/token in kube-system)" },
  "authentication-token-webhook-config-file": { type: "string", description: "Kubeconfig of a webhook that authenticates bearer tokens by TokenReview" },
  "authentication-token-webhook-cache-ttl": { type: "string", default: "2m0s", description: "How long the token webhook's answers are cached" },
  "authentication-token-webhook-version": { type: "string", default: "v1beta1", description: "The authentication.k8s.io version of the TokenReview sent to the webhook: v1beta1 or v1" },
  "client-ca-file": { type: "string", description: "A client certificate signed by an authority in this PEM file authenticates as its CommonName, with its Organizations as groups" },
  "requestheader-client-ca-file": { type: "string", description: "Front-proxy CA: the --requestheader-username-headers are believed only from client certificates signed by it" },
  "requestheader-allowed-names": { type: "string", description: "Comma-separated CommonNames a front-proxy certificate may have; empty allows any signed by --requestheader-client-ca-file" },
  "requestheader-username-headers": { type: "string", description: "Comma-separated headers to read the user name from, first with a value wins (X-Remote-User is common)" },
  "requestheader-group-headers": { type: "string", description: "Comma-separated headers to read groups from (X-Remote-Group is common)" },
  "kubelet-client-certificate": { type: "string", description: "Path to a client cert file for TLS (the API server's identity to node agents: pods/log)" },
  "kubelet-client-key": { type: "string", description: "Path to a client key file for TLS" },
  "kubelet-certificate-authority": { type: "string", description: "Path to a cert file for the certificate authority of the node agents' serving certificates (without it they are not verified)" },
  "kubelet-timeout": { type: "string", default: "5s", description: "Timeout for kubelet operations (how long a node agent may take to answer)" },
  "kubelet-preferred-address-types": { type: "string", default: "Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP", description: "List of the preferred NodeAddressTypes to use for kubelet connections" },
  "requestheader-extra-headers-prefix": { type: "string", description: "Comma-separated header prefixes to read extra user information from (X-Remote-Extra- is common)" },
  "encryption-provider-config": { type: "string", description: "The file of an EncryptionConfiguration (apiserver.config.k8s.io/v1): which resources are encrypted at rest, by which providers (aescbc, aesgcm, secretbox, kms, identity); the first provider writes, all read" },
  ...SERVING_ARGS,
  ...AUDIT_ARGS,
  ...COMPONENT_ARGS,
} as const;

export function toOptions(a: Record<string, any>, features: Features = parseGates([String(a["feature-gates"] ?? "")]).features) {
  const backend = oneOf("storage-backend", a["etcd-servers"] ? "etcd3" : a["storage-backend"], ["sqlite", "etcd3"]) as "sqlite" | "etcd3";
  const etcdServers = commaList(a["etcd-servers"]);
  if (backend === "etcd3" && etcdServers.length === 0) throw new UsageError("--storage-backend=etcd3 needs --etcd-servers");
  for (const u of etcdServers) if (!/^https?:\/\/[^/]+/.test(u)) throw new UsageError(`invalid argument "${u}" for "--etcd-servers" flag: expected http(s)://host:port`);
  oneOf("storage-media-type", a["storage-media-type"], ["application/json", "application/vnd.kubernetes.protobuf", "application/vnd.platform.protobuf"]);
  let overrides: Record<string, string[]>;
  try { overrides = parseServersOverrides(a["etcd-servers-overrides"] ?? ""); } catch (e) { throw new UsageError(`invalid argument for "--etcd-servers-overrides" flag: ${(e as Error).message}`); }
  if (!!a["tls-cert-file"] !== !!a["tls-private-key-file"]) throw new UsageError("--tls-cert-file and --tls-private-key-file must be given together");
  const flagValue = <T>(name: string, parse: (v: string) => T): T => {
    try { return parse(String(a[name])); } catch (e) { throw new UsageError(`invalid argument "${a[name]}" for "--${name}" flag: ${(e as Error).message}`); }
  };
  const serviceRanges = {
    clusterIPRange: flagValue("service-cluster-ip-range", (v) => (parseIPv4Range(v), v)),
    nodePorts: flagValue("service-node-port-range", parsePortRange),
  };
  return {
    securePort: int("secure-port", a["secure-port"], 1, 65535),
    bindAddress: a["bind-address"],
    dataDir: a["data-dir"],
    certDir: a["cert-dir"],
    tlsCertFile: a["tls-cert-file"],
    tlsPrivateKeyFile: a["tls-private-key-file"],
    tlsMinVersion: tlsMinVersion(a["tls-min-version"]),
    advertiseAddress: a["advertise-address"],
    requestTimeoutMs: duration("request-timeout", a["request-timeout"]),
    minRequestTimeoutSeconds: int("min-request-timeout", a["min-request-timeout"], 0),
    shutdownDelayMs: duration("shutdown-delay-duration", a["shutdown-delay-duration"]),
    livezGraceMs: duration("livez-grace-period", a["livez-grace-period"]),
    etcdPrefix: a["etcd-prefix"],
    serviceRanges,
    compactionIntervalMs: duration("etcd-compaction-interval", a["etcd-compaction-interval"]),
    maxRequestsInflight: int("max-requests-inflight", a["max-requests-inflight"], 0),
    maxMutatingRequestsInflight: int("max-mutating-requests-inflight", a["max-mutating-requests-inflight"], 0),
    ...requestLimits(a),
    storage: {
      backend, etcdServers, etcdServersOverrides: overrides,
      etcdCAFile: a["etcd-cafile"], etcdCertFile: a["etcd-certfile"], etcdKeyFile: a["etcd-keyfile"],
      check: true,
    },
    etcdHealthcheckTimeoutMs: duration("etcd-healthcheck-timeout", a["etcd-healthcheck-timeout"]),
    features,
    runtimeConfig: runtimeConfig(a["runtime-config"] ?? ""),
    storageMediaType: a["storage-media-type"],
    countPollMs: duration("etcd-count-metric-poll-period", a["etcd-count-metric-poll-period"]),
    dbPollMs: duration("etcd-db-metric-poll-interval", a["etcd-db-metric-poll-interval"]),
    auth: authOptions(a),
    csrSigning: csrSigning(a),
    kubelet: kubeletClient(a),
    encryptionProviderConfig: a["encryption-provider-config"] || undefined,
    audit: auditOptions(a),
    admission: admissionOptions(a),
    serving: servingOptions(a, serviceRanges.nodePorts),
    watchCache: {
      enabled: bool("watch-cache", a["watch-cache"]),
      defaultSize: int("default-watch-cache-size", a["default-watch-cache-size"], 0),
      sizes: cacheSizes(a["watch-cache-sizes"] ?? ""),
    },
  };
}

/** --enable-priority-and-fairness and the other options of overload protection, checked as upstream checks them. */
function requestLimits(a: Record<string, any>) {
  const priorityAndFairness = bool("enable-priority-and-fairness", a["enable-priority-and-fairness"]);
  const total = Number(a["max-requests-inflight"]) + Number(a["max-mutating-requests-inflight"]);
  if (priorityAndFairness && total <= 0) {
    throw new UsageError(`--max-requests-inflight=${a["max-requests-inflight"]} and --max-mutating-requests-inflight=${a["max-mutating-requests-inflight"]} must sum to a positive value when --enable-priority-and-fairness is true`);
  }
  const goawayChance = Number(a["goaway-chance"]);
  if (!(goawayChance >= 0 && goawayChance <= 0.02)) throw new UsageError("--goaway-chance can not be less than 0 or greater than 0.02");
  int("max-connection-bytes-per-sec", a["max-connection-bytes-per-sec"], 0);
  return {
    priorityAndFairness,
    eventTtlMs: duration("event-ttl", a["event-ttl"]),
    deleteCollectionWorkers: int("delete-collection-workers", a["delete-collection-workers"], 1),
    goawayChance,
  };
}


function authOptions(a: Record<string, any>): AuthOptions {
  const modes = commaList(a["authorization-mode"]);
  for (const m of modes) oneOf("authorization-mode", m, [...AUTHORIZATION_MODES]);
  if (modes.length === 0) throw new UsageError(`invalid argument "" for "--authorization-mode" flag: at least one authorization mode must be given`);
  return {
    anonymous: bool("anonymous-auth", a["anonymous-auth"]),
    authorizationModes: modes as AuthOptions["authorizationModes"],
    alwaysAllowPaths: commaList(a["authorization-always-allow-paths"]),
    oidc: oidcOptions(a),
    serviceAccounts: serviceAccountOptions(a, a["cert-dir"] ?? join(a["data-dir"], "pki")),
    authzFiles: authzFiles(a, modes),
    x509: x509Options(a),
    tokens: tokenOptions(a),
  };
}

function tokenOptions(a: Record<string, any>): AuthOptions["tokens"] {
  const webhook = a["authentication-token-webhook-config-file"];
  return {
    tokenAuthFile: a["token-auth-file"] || undefined,
    bootstrap: bool("enable-bootstrap-token-auth", a["enable-bootstrap-token-auth"]),
    webhook: webhook ? {
      configFile: webhook,
      cacheTtlMs: duration("authentication-token-webhook-cache-ttl", a["authentication-token-webhook-cache-ttl"]),
      version: oneOf("authentication-token-webhook-version", a["authentication-token-webhook-version"], ["v1beta1", "v1"]) as "v1" | "v1beta1",
    } : undefined,
  };
}

function x509Options(a: Record<string, any>): AuthOptions["x509"] {
  const rh = a["requestheader-client-ca-file"];
  return {
    clientCAFile: a["client-ca-file"] || undefined,
    requestHeader: rh ? {
      clientCAFile: rh,
      allowedNames: commaList(a["requestheader-allowed-names"]),
      usernameHeaders: commaList(a["requestheader-username-headers"]),
      groupHeaders: commaList(a["requestheader-group-headers"]),
      extraHeaderPrefixes: commaList(a["requestheader-extra-headers-prefix"]),
    } : undefined,
  };
}

/** The files of the ABAC and Webhook modes, each required by its mode and refused without it (upstream's checks). */
function authzFiles(a: Record<string, any>, modes: string[]): AuthOptions["authzFiles"] {
  const policyFile: string | undefined = a["authorization-policy-file"] || undefined;
  const configFile: string | undefined = a["authorization-webhook-config-file"] || undefined;
  if (new Set(modes).size !== modes.length) throw new UsageError(`authorization-mode "[${modes.join(" ")}]" has mode specified more than once`);
  if (modes.includes("ABAC") && !policyFile) throw new UsageError("authorization-mode ABAC's authorization policy file not passed");
  if (modes.includes("Webhook") && !configFile) throw new UsageError("authorization-mode Webhook's authorization config file not passed");
  if (policyFile && !modes.includes("ABAC")) throw new UsageError("cannot specify --authorization-policy-file without mode ABAC");
  if (configFile && !modes.includes("Webhook")) throw new UsageError("cannot specify --authorization-webhook-config-file without mode Webhook");
  const webhook = configFile && {
    configFile,
    version: oneOf("authorization-webhook-version", a["authorization-webhook-version"], ["v1beta1", "v1"]) as "v1" | "v1beta1",
    authorizedTTLMs: duration("authorization-webhook-cache-authorized-ttl", a["authorization-webhook-cache-authorized-ttl"]),
    unauthorizedTTLMs: duration("authorization-webhook-cache-unauthorized-ttl", a["authorization-webhook-cache-unauthorized-ttl"]),
  };
  return { policyFile, webhook: webhook || undefined };
}

const NODE_ADDRESS_TYPES = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"];

/** How pods/log reaches node agents: the client pair (both or neither), the CA, the timeout, the address order. */
function kubeletClient(a: Record<string, any>) {
  const certFile: string | undefined = a["kubelet-client-certificate"] || undefined;
  const keyFile: string | undefined = a["kubelet-client-key"] || undefined;
  if (!!certFile !== !!keyFile) throw new UsageError("--kubelet-client-certificate and --kubelet-client-key must be given together");
  const preferredAddressTypes = commaList(a["kubelet-preferred-address-types"]);
  if (!preferredAddressTypes.length) throw new UsageError("--kubelet-preferred-address-types must be specified");
  for (const t of preferredAddressTypes) oneOf("kubelet-preferred-address-types", t, NODE_ADDRESS_TYPES);
  return { certFile, keyFile, caFile: a["kubelet-certificate-authority"] || undefined, timeoutMs: duration("kubelet-timeout", a["kubelet-timeout"]), preferredAddressTypes };
}

/** The CA of the kubernetes.io signers; both files or neither (then the generated CA). */
function csrSigning(a: Record<string, any>) {
  const certFile: string | undefined = a["cluster-signing-cert-file"] || undefined;
  const keyFile: string | undefined = a["cluster-signing-key-file"] || undefined;
  if (!!certFile !== !!keyFile) throw new UsageError("--cluster-signing-cert-file and --cluster-signing-key-file must be given together");
  return { certFile, keyFile, durationMs: duration("cluster-signing-duration", a["cluster-signing-duration"]) };
}

function runtimeConfig(v: string) {
  try {
    return parseRuntimeConfig(v, SERVED);
  } catch (e) {
    throw new UsageError(`invalid argument "${v}" for "--runtime-config" flag: ${(e as Error).message}`);
  }
}

function cacheSizes(v: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of v.split(",").filter(Boolean)) {
    const [res, size] = item.split("#");
    if (!res || size === undefined) throw new UsageError(`invalid argument "${v}" for "--watch-cache-sizes" flag: expected resource[.group]#size, got "${item}"`);
    out[res.trim()] = int("watch-cache-sizes", size.trim(), 0);
  }
  return out;
}

/**
 * Runs a server's start-up (`kite apiserver`, `kite up`): any failure ends the process with one line
 * (`Error: port 6443 is in use`) and the status startupFailure gives (2: data dir or port held by another
 * process; 1: anything else).
 */
export default defineCommand({
  meta: { name: "apiserver", description: "Serve the cluster API over HTTPS, on the embedded SQLite store" },
  args,
  run: strict("apiserver", args, async ({ args: a, rawArgs }: { args: Record<string, any>; rawArgs: string[] }) => {
    const features = componentFlags("apiserver", a, rawArgs);
    const server = new ApiServer(toOptions({ ...a, "oidc-required-claim": repeated(rawArgs, "oidc-required-claim"), "tls-sni-cert-key": repeated(rawArgs, "tls-sni-cert-key"), ...repeatedServiceAccountFlags(a, rawArgs) }, features));
    // before the start: /readyz can pass while the start finishes its last steps, and a SIGTERM then
    // must still shut down cleanly (exit 0), not end the process by the signal's default
    const stop = async (sig: string) => {
      consola.info(`${sig}: shutting down`);
      await server.shutdown();
      process.exit(0);
    };
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
    const t0 = performance.now();
    await startOrExit(() => server.start());
    const where = server.opts.storage.backend === "etcd3" ? `etcd ${server.opts.storage.etcdServers.join(",")}` : `${server.opts.dataDir}/state.db`;
    const o = server.opts;
    if (!/^(127\.|::1$|localhost$)/.test(o.bindAddress) && o.auth.authorizationModes[0] === "AlwaysAllow") {
      consola.warn(`serving ${o.bindAddress}:${o.securePort} with --authorization-mode=AlwaysAllow: anyone who reaches the port may do anything (give --authorization-mode=RBAC and authenticators, or --bind-address=127.0.0.1)`);
    }
    consola.info(`kite apiserver serving on ${server.url} (store ${where}, ready in ${Math.round(performance.now() - t0)} ms)`);
  }),
});
