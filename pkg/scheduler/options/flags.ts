// The flags of `kite scheduler`, upstream v1.21 kube-scheduler's, with its defaults and (shortened) words.
import { PROVIDERS } from "../config/plugins.ts";
import { RESOURCE_LOCKS } from "../config/validation.ts";

const IGNORED = "This parameter is ignored if a config file is specified in --config.";

/** The flags a config file replaces (upstream binds them to the component config that --config loads instead). */
export const CONFIG_FLAGS = [
  "leader-elect", "leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-retry-period",
  "leader-elect-resource-lock", "leader-elect-resource-name", "leader-elect-resource-namespace",
  "kubeconfig", "kube-api-content-type", "kube-api-qps", "kube-api-burst", "lock-object-name", "lock-object-namespace",
  "profiling", "contention-profiling", "scheduler-name", "hard-pod-affinity-symmetric-weight", "address", "port",
];

/** Deprecated flags and what to use instead (their use is warned about, as pflag warns). */
export const DEPRECATED: Record<string, string> = {
  "algorithm-provider": "use a --config profile instead",
  "policy-config-file": "use a --config profile instead",
  "policy-configmap": "use a --config profile instead",
  "policy-configmap-namespace": "use a --config profile instead",
  "use-legacy-policy-config": "use a --config profile instead",
  "profiling": "use enableProfiling in --config instead",
  "contention-profiling": "use enableContentionProfiling in --config instead",
  "kubeconfig": "use clientConnection.kubeconfig in --config instead",
  "kube-api-content-type": "use clientConnection.contentType in --config instead",
  "kube-api-qps": "use clientConnection.qps in --config instead",
  "kube-api-burst": "use clientConnection.burst in --config instead",
  "lock-object-name": "use --leader-elect-resource-name instead",
  "lock-object-namespace": "use --leader-elect-resource-namespace instead",
  "hard-pod-affinity-symmetric-weight": "use the InterPodAffinity plugin's hardPodAffinityWeight in --config instead",
  "scheduler-name": "use a --config profile's schedulerName instead",
  "address": "see --bind-address instead",
  "port": "see --secure-port instead",
};

const POLICY_NOT_SUPPORTED = "Kite does not translate legacy Policy files: giving one exits 1 with a reason.";

export const SCHEDULER_ARGS = {
  // misc
  config: { type: "string", description: "The path to the configuration file (KubeSchedulerConfiguration kubescheduler.config.k8s.io/v1beta1, YAML or JSON). With it, the flags marked 'ignored if a config file is specified' are ignored (with a warning); --algorithm-provider still picks the profiles' plugins, and the policy flags are refused when the file configures plugins" },
  "write-config-to": { type: "string", description: "If set, write the configuration values to this file and exit." },
  master: { type: "string", description: "The address of the Kubernetes API server (overrides any value in kubeconfig)" },
  // secure serving
  "bind-address": { type: "string", default: "0.0.0.0", description: "The IP address on which to listen for the --secure-port port." },
  "secure-port": { type: "string", default: "10259", description: "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all." },
  "cert-dir": { type: "string", description: "The directory where the TLS certs are located (kube-scheduler.crt and .key, generated there when absent). If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored; with neither, a self-signed certificate is generated in memory." },
  "tls-cert-file": { type: "string", description: "File containing the default x509 Certificate for HTTPS." },
  "tls-private-key-file": { type: "string", description: "File containing the default x509 private key matching --tls-cert-file." },
  // insecure serving
  address: { type: "string", default: "0.0.0.0", description: `DEPRECATED: the IP address on which to listen for the --port port. See --bind-address instead. ${IGNORED}` },
  port: { type: "string", default: "10251", description: `DEPRECATED: the port on which to serve HTTP insecurely without authentication and authorization. If 0, don't serve plain HTTP at all. See --secure-port instead. ${IGNORED}` },
  // authentication
  "authentication-kubeconfig": { type: "string", description: "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io. This is optional. If empty, all token requests are considered to be anonymous and no client CA is looked up in the cluster." },
  "authentication-skip-lookup": { type: "boolean", default: false, description: "If false, the authentication-kubeconfig will be used to lookup missing authentication configuration from the cluster (kube-system/extension-apiserver-authentication)." },
  "authentication-token-webhook-cache-ttl": { type: "string", default: "10s", description: "The duration to cache responses from the webhook token authenticator." },
  "authentication-tolerate-lookup-failure": { type: "boolean", default: true, description: "If true, failures to look up missing authentication configuration from the cluster are not considered fatal. Note that this can result in authentication that treats all requests as anonymous." },
  "client-ca-file": { type: "string", description: "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate." },
  "requestheader-allowed-names": { type: "string", description: "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed." },
  "requestheader-client-ca-file": { type: "string", description: "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers." },
  "requestheader-extra-headers-prefix": { type: "string", default: "x-remote-extra-", description: "List of request header prefixes to inspect." },
  "requestheader-group-headers": { type: "string", default: "x-remote-group", description: "List of request headers to inspect for groups." },
  "requestheader-username-headers": { type: "string", default: "x-remote-user", description: "List of request headers to inspect for usernames. The first header with a value wins." },
  // authorization
  "authorization-always-allow-paths": { type: "string", default: "/healthz,/readyz,/livez", description: "A list of HTTP paths to skip during authorization, i.e. these are authorized without contacting the 'core' kubernetes server." },
  "authorization-kubeconfig": { type: "string", description: "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io. This is optional. If empty, all requests not skipped by authorization are forbidden." },
  "authorization-webhook-cache-authorized-ttl": { type: "string", default: "10s", description: "The duration to cache 'authorized' responses from the webhook authorizer." },
  "authorization-webhook-cache-unauthorized-ttl": { type: "string", default: "10s", description: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
  // deprecated
  "algorithm-provider": { type: "string", description: `DEPRECATED: the scheduling algorithm provider to use, this sets the default plugins for component config profiles, one of: ${PROVIDERS.join(" | ")}` },
  "policy-config-file": { type: "string", description: `DEPRECATED: file with scheduler policy configuration. This file is used if policy ConfigMap is not provided or --use-legacy-policy-config=true. Note: The scheduler will fail if this is combined with Plugin configs. ${POLICY_NOT_SUPPORTED}` },
  "policy-configmap": { type: "string", description: `DEPRECATED: name of the ConfigMap object that contains scheduler's policy configuration (key policy.cfg). Note: The scheduler will fail if this is combined with Plugin configs. ${POLICY_NOT_SUPPORTED}` },
  "policy-configmap-namespace": { type: "string", default: "kube-system", description: "DEPRECATED: the namespace where policy ConfigMap is located. The kube-system namespace will be used if this is not provided or is empty. Note: The scheduler will fail if this is combined with Plugin configs" },
  "use-legacy-policy-config": { type: "boolean", default: false, description: `DEPRECATED: when set to true, scheduler will ignore policy ConfigMap and uses policy config file. Note: The scheduler will fail if this is combined with Plugin configs. ${POLICY_NOT_SUPPORTED}` },
  profiling: { type: "boolean", default: true, description: `DEPRECATED: enable profiling via web interface host:port/debug/pprof/ (Kite serves no profiling endpoints). ${IGNORED}` },
  "contention-profiling": { type: "boolean", default: true, description: `DEPRECATED: enable lock contention profiling, if profiling is enabled. ${IGNORED}` },
  kubeconfig: { type: "string", description: `DEPRECATED: path to kubeconfig file with authorization and master location information. ${IGNORED}` },
  "kube-api-content-type": { type: "string", default: "application/vnd.kubernetes.protobuf", description: `DEPRECATED: content type of requests sent to apiserver (recorded in the configuration; Kite's scheduler sends and asks for JSON whatever it says). ${IGNORED}` },
  "kube-api-qps": { type: "string", default: "50", description: `DEPRECATED: QPS to use while talking with kubernetes apiserver. ${IGNORED}` },
  "kube-api-burst": { type: "string", default: "100", description: `DEPRECATED: burst to use while talking with kubernetes apiserver. ${IGNORED}` },
  "lock-object-name": { type: "string", default: "kube-scheduler", description: `DEPRECATED: define the name of the lock object. Will be removed in favor of leader-elect-resource-name. ${IGNORED}` },
  "lock-object-namespace": { type: "string", default: "kube-system", description: `DEPRECATED: define the namespace of the lock object. Will be removed in favor of leader-elect-resource-namespace. ${IGNORED}` },
  "hard-pod-affinity-symmetric-weight": { type: "string", default: "1", description: "DEPRECATED: RequiredDuringScheduling affinity is not symmetric, but there is an implicit PreferredDuringScheduling affinity rule corresponding to every RequiredDuringScheduling affinity rule. --hard-pod-affinity-symmetric-weight represents the weight of implicit PreferredDuringScheduling affinity rule. Must be in the range 0-100. This option was moved to the policy configuration file" },
  "scheduler-name": { type: "string", default: "default-scheduler", description: `DEPRECATED: name of the scheduler, used to select which pods will be processed by this scheduler, based on pod's "spec.schedulerName". ${IGNORED}` },
  // leader election
  "leader-elect": { type: "boolean", default: true, description: `Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability. ${IGNORED}` },
  "leader-elect-lease-duration": { type: "string", default: "15s", description: "The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate." },
  "leader-elect-renew-deadline": { type: "string", default: "10s", description: "The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than or equal to the lease duration." },
  "leader-elect-retry-period": { type: "string", default: "2s", description: "The duration the clients should wait between attempting acquisition and renewal of a leadership." },
  "leader-elect-resource-lock": { type: "string", default: "leases", description: `The type of resource object that is used for locking during leader election. Supported options are ${RESOURCE_LOCKS.map((l) => `'${l}'`).join(", ")}.` },
  "leader-elect-resource-name": { type: "string", default: "kube-scheduler", description: "The name of resource object that is used for locking during leader election." },
  "leader-elect-resource-namespace": { type: "string", default: "kube-system", description: "The namespace of resource object that is used for locking during leader election." },
} as const;
