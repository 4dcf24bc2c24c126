// Flags → SchedulerOptions, with upstream v1.21's rules: without --config the flags (deprecated ones
// included) make the configuration; with --config the file alone does, but for the policy flags (and
// the file's insecure addresses replace --address/--port). Policy inputs combined with a file's plugin
// configuration are refused. Every error is one line: UsageError (exit 2) for bad values, PolicyNotSupported
// (exit 1) for a policy, which Kite does not translate.
import type { Features } from "../../features/featuregate.ts";
import { UsageError, bool, duration, givenFlags, int, oneOf } from "../../cli/args.ts";
import { parseDuration } from "../../util/duration.ts";
import { type AlgorithmProvider, PROVIDERS } from "../config/plugins.ts";
import { ConfigError, readConfigFile } from "../config/file.ts";
import { joinHostPort, splitHostPort } from "../../util/hostport.ts";
import { DEFAULT_INSECURE_PORT, defaultConfig } from "../config/defaults.ts";
import type { KubeSchedulerConfiguration } from "../config/types.ts";
import { aggregate, validateConfig, validateHardPodAffinityWeight } from "../config/validation.ts";
import type { HostPort, ServingOptions } from "../serving/options.ts";
import { CONFIG_FLAGS, DEPRECATED } from "./flags.ts";
import { commaList } from "../../util/commalist.ts";

export interface SchedulerOptions {
  /** The effective configuration (defaulted and valid): what --write-config-to writes. */
  config: KubeSchedulerConfiguration;
  /** --algorithm-provider: whose plugins the profiles start from (see config/plugins.ts effectivePlugins). */
  algorithmProvider: AlgorithmProvider;
  /** --master: overrides the server of config.clientConnection.kubeconfig. */
  master?: string;
  /** config.leaderElection with its durations in milliseconds. */
  leaderElection: {
    leaderElect: boolean; leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number;
    resourceLock: string; resourceName: string; resourceNamespace: string;
  };
  serving: ServingOptions;
  /** --write-config-to */
  writeConfigTo?: string;
  /** Deprecated or ignored flags that were given, one line each, for stderr. */
  warnings: string[];
  /** --feature-gates (the plugins read some); unset: v1.21's defaults. */
  features?: Features;
}

/** A legacy Policy was asked for; Kite does not translate Policy files into profiles. */
export class PolicyNotSupported extends Error {}

type Flags = Record<string, any>;


function float(flag: string, v: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: strconv.ParseFloat: parsing "${v}": invalid syntax`);
  return n;
}

function ip(flag: string, v: string): string {
  if (!/^(\d{1,3}\.){3}\d{1,3}$/.test(v) && !/^[0-9a-fA-F:]*:[0-9a-fA-F:.]*$/.test(v)) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: failed to parse IP: "${v}"`);
  return v;
}

function port(flag: string, v: string, what: string): number {
  const n = Number(v);
  if (!/^-?\d+$/.test(v)) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: strconv.ParseInt: parsing "${v}": invalid syntax`);
  if (n < 0 || n > 65535) throw new UsageError(`--${flag} ${n} must be between 0 and 65535, inclusive. 0 for turning off ${what}`);
  return n;
}

/** The configuration the flags make when no --config is given (the old behaviour). */
function configFromFlags(a: Flags, givenSet: Set<string>, provider: AlgorithmProvider): KubeSchedulerConfiguration {
  const given = (f: string) => givenSet.has(f);
  const address = ip("address", a.address), insecurePort = port("port", a.port, "insecure (HTTP) port");
  const bindAddress = insecurePort === 0 ? "" : joinHostPort(address, insecurePort);
  return defaultConfig({
    leaderElection: {
      leaderElect: bool("leader-elect", a["leader-elect"]),
      leaseDuration: a["leader-elect-lease-duration"],
      renewDeadline: a["leader-elect-renew-deadline"],
      retryPeriod: a["leader-elect-retry-period"],
      resourceLock: a["leader-elect-resource-lock"],
      resourceName: given("leader-elect-resource-name") || !given("lock-object-name") ? a["leader-elect-resource-name"] : a["lock-object-name"],
      resourceNamespace: given("leader-elect-resource-namespace") || !given("lock-object-namespace") ? a["leader-elect-resource-namespace"] : a["lock-object-namespace"],
    },
    clientConnection: {
      kubeconfig: a.kubeconfig ?? "",
      contentType: a["kube-api-content-type"],
      qps: float("kube-api-qps", a["kube-api-qps"]),
      burst: int("kube-api-burst", a["kube-api-burst"], -2147483648, 2147483647),
    },
    healthzBindAddress: bindAddress,
    metricsBindAddress: bindAddress,
    enableProfiling: bool("profiling", a.profiling),
    enableContentionProfiling: bool("contention-profiling", a["contention-profiling"]),
    profiles: [{ schedulerName: a["scheduler-name"] }],
  }, provider);
}

/** --hard-pod-affinity-symmetric-weight is the default profile's InterPodAffinity weight (applied once validated). */
function applyHardPodAffinityWeight(c: KubeSchedulerConfiguration, weight: number) {
  for (const pc of c.profiles[0].pluginConfig ?? []) if (pc.name === "InterPodAffinity") pc.args = { ...pc.args, hardPodAffinityWeight: weight };
}

/** Upstream's check: a file whose profiles are more than the single default one, plugins or pluginConfig. */
function hasPluginConfig(raw: Record<string, any>): boolean {
  const ps: any[] = raw.profiles ?? [];
  return ps.length > 1 || (ps.length === 1 && (!!ps[0]?.plugins || (ps[0]?.pluginConfig ?? []).length > 0));
}

function hostPort(addr: string): HostPort | undefined {
  if (!addr) return undefined;
  const hp = splitHostPort(addr)!;
  return { host: hp.host, port: Number(hp.port) || DEFAULT_INSECURE_PORT };
}

function servingOptions(a: Flags, c: KubeSchedulerConfiguration): ServingOptions {
  const securePort = port("secure-port", a["secure-port"], "secure port");
  const bindAddress = ip("bind-address", a["bind-address"]);
  if (!!a["tls-cert-file"] !== !!a["tls-private-key-file"]) throw new UsageError("--tls-cert-file and --tls-private-key-file must be given together");
  return {
    secure: securePort === 0 ? undefined : {
      host: bindAddress, port: securePort, certDir: a["cert-dir"] || undefined,
      tlsCertFile: a["tls-cert-file"] || undefined, tlsPrivateKeyFile: a["tls-private-key-file"] || undefined,
    },
    insecure: { healthz: hostPort(c.healthzBindAddress), metrics: hostPort(c.metricsBindAddress) },
    authentication: {
      kubeconfig: a["authentication-kubeconfig"] || undefined,
      skipLookup: bool("authentication-skip-lookup", a["authentication-skip-lookup"]),
      tolerateLookupFailure: bool("authentication-tolerate-lookup-failure", a["authentication-tolerate-lookup-failure"]),
      cacheTtlMs: duration("authentication-token-webhook-cache-ttl", a["authentication-token-webhook-cache-ttl"]),
      clientCAFile: a["client-ca-file"] || undefined,
      requestHeader: {
        clientCAFile: a["requestheader-client-ca-file"] || undefined,
        allowedNames: commaList(a["requestheader-allowed-names"]),
        usernameHeaders: commaList(a["requestheader-username-headers"]),
        groupHeaders: commaList(a["requestheader-group-headers"]),
        extraHeaderPrefixes: commaList(a["requestheader-extra-headers-prefix"]),
      },
    },
    authorization: {
      kubeconfig: a["authorization-kubeconfig"] || undefined,
      alwaysAllowPaths: commaList(a["authorization-always-allow-paths"]),
      authorizedTtlMs: duration("authorization-webhook-cache-authorized-ttl", a["authorization-webhook-cache-authorized-ttl"]),
      unauthorizedTtlMs: duration("authorization-webhook-cache-unauthorized-ttl", a["authorization-webhook-cache-unauthorized-ttl"]),
    },
  };
}

/** The deprecated policy flags as upstream orders them: a legacy file, else a ConfigMap. */
function policySource(a: Flags): string | undefined {
  const useLegacy = bool("use-legacy-policy-config", a["use-legacy-policy-config"]);
  if (useLegacy || (a["policy-config-file"] && !a["policy-configmap"])) return `file ${a["policy-config-file"]}`;
  if (a["policy-configmap"]) return `ConfigMap ${a["policy-configmap-namespace"] || "kube-system"}/${a["policy-configmap"]}`;
  return undefined;
}

function invalidConfig(errs: string[]): never {
  throw new UsageError(aggregate(errs));
}

export function schedulerOptions(a: Flags, rawArgs: string[]): SchedulerOptions {
  const given = givenFlags(rawArgs);
  const provider = (a["algorithm-provider"] ? oneOf("algorithm-provider", a["algorithm-provider"], [...PROVIDERS]) : "DefaultProvider") as AlgorithmProvider;
  for (const f of ["leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-retry-period"]) duration(f, a[f]);

  // Upstream validates the flags' configuration even when a file replaces it.
  let config = configFromFlags(a, given, provider);
  const errs = validateConfig(config);
  const weight = int("hard-pod-affinity-symmetric-weight", a["hard-pod-affinity-symmetric-weight"], -2147483648, 2147483647);
  errs.push(...validateHardPodAffinityWeight("hardPodAffinitySymmetricWeight", weight));
  if (bool("use-legacy-policy-config", a["use-legacy-policy-config"]) && !a["policy-config-file"]) errs.push("policyConfigFile: Required value: required when --use-legacy-policy-config is true");
  if (errs.length) invalidConfig(errs);
  const policy = policySource(a);

  if (!a.config) applyHardPodAffinityWeight(config, weight);
  else {
    let raw: Record<string, any>;
    try {
      raw = readConfigFile(a.config);
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw e;
    }
    config = defaultConfig(raw, provider);
    const fileErrs = validateConfig(config);
    if (fileErrs.length) invalidConfig(fileErrs);
    if (policy && hasPluginConfig(raw)) throw new UsageError("cannot set a Plugin config and Policy config");
  }
  if (policy) {
    throw new PolicyNotSupported(`the scheduler Policy (${policy}) is not supported: Kite does not translate legacy Policy predicates and priorities; give a KubeSchedulerConfiguration with --config instead`);
  }

  const le = config.leaderElection;
  const warnings = [...given].flatMap((f) => {
    const ignored = a.config && CONFIG_FLAGS.includes(f) ? `ignored: --config ${a.config} is given` : "";
    if (f in DEPRECATED) return [`Flag --${f} has been deprecated, ${DEPRECATED[f]}${ignored ? `; it is ${ignored}` : ""}`];
    return ignored ? [`Flag --${f} is ${ignored}`] : [];
  });
  return {
    config,
    algorithmProvider: provider,
    master: a.master || undefined,
    leaderElection: {
      leaderElect: le.leaderElect, leaseDurationMs: parseDuration(le.leaseDuration), renewDeadlineMs: parseDuration(le.renewDeadline),
      retryPeriodMs: parseDuration(le.retryPeriod), resourceLock: le.resourceLock, resourceName: le.resourceName, resourceNamespace: le.resourceNamespace,
    },
    serving: servingOptions(a, config),
    writeConfigTo: a["write-config-to"] || undefined,
    warnings,
  };
}
