// The flags of `kite node-agent` built so far: upstream v1.21 kubelet's names, defaults and (shortened)
// words. Every other kubelet option is not accepted yet (an unknown flag exits 2); NOT_BUILT names them.
import { homedir } from "node:os";
import { join } from "node:path";

/** The kubelet options this agent does not implement yet: refused as unknown flags, listed in --help. */
export const NOT_BUILT = [
  "--tls-min-version", "--tls-cipher-suites",
];

/** Says, in --help, what an accepted kubelet option does here. */
const INERT = " (Accepted for compatibility: no effect with the process runtime.)";

/**
 * Kubelet options accepted with upstream's defaults that the process runtime has no use for: there are no
 * images to pull or collect, no CRI endpoint, no CPU or topology manager, no iptables rules.
 */
const INERT_ARGS = Object.fromEntries(([
  ["max-open-files", "1000000", "Number of files that can be opened by the agent process."],
  ["node-status-max-images", "50", "The maximum number of images to report in Node.Status.Images. If -1 is specified, no cap will be applied."],
  ["registry-qps", "5", "If > 0, limit registry pull QPS to this value. If 0, unlimited."],
  ["registry-burst", "10", "Maximum size of a bursty pulls, temporarily allows pulls to burst to this number, while still not exceeding registry-qps. Only used if --registry-qps > 0."],
  ["image-gc-high-threshold", "85", "The percent of disk usage after which image garbage collection is always run. Values must be within the range [0, 100], To disable image garbage collection, set to 100."],
  ["image-gc-low-threshold", "80", "The percent of disk usage before which image garbage collection is never run. Lowest disk usage to garbage collect to. Values must be within the range [0, 100] and should not be larger than that of --image-gc-high-threshold."],
  ["minimum-image-ttl-duration", "2m0s", "Minimum age for an unused image before it is garbage collected."],
  ["image-pull-progress-deadline", "1m0s", "If no pulling progress is made before this deadline, the image pulling will be cancelled. This docker-specific flag only works when container-runtime is set to docker."],
  ["runtime-request-timeout", "2m0s", "Timeout of all runtime requests except long running request - pull, logs, exec and attach."],
  ["streaming-connection-idle-timeout", "4h0m0s", "Maximum time a streaming connection can be idle before the connection is automatically closed. 0 indicates no timeout."],
  ["cpu-cfs-quota", "true", "Enable CPU CFS quota enforcement for containers that specify CPU limits."],
  ["cpu-cfs-quota-period", "100ms", "Sets CPU CFS quota period value, cpu.cfs_period_us."],
  ["cpu-manager-policy", "none", "CPU Manager policy to use. Possible values: 'none', 'static'."],
  ["cpu-manager-reconcile-period", "10s", "CPU Manager reconciliation period."],
  ["topology-manager-policy", "none", "Topology Manager policy to use. Possible values: 'none', 'best-effort', 'restricted', 'single-numa-node'."],
  ["topology-manager-scope", "container", "Scope to which topology hints applied. Possible values: 'container', 'pod'."],
  ["volume-stats-agg-period", "1m0s", "Specifies interval for agent to calculate and cache the volume disk usage for all pods and volumes. To disable volume calculations, set to 0."],
  ["oom-score-adj", "-999", "The oom-score-adj value for the agent process. Values must be within the range [-1000, 1000]."],
  ["iptables-masquerade-bit", "14", "The bit of the fwmark space to mark packets for SNAT. Must be within the range [0, 31]."],
  ["iptables-drop-bit", "15", "The bit of the fwmark space to mark packets for dropping. Must be within the range [0, 31]."],
  ["fail-swap-on", "true", "Makes the agent fail to start if swap is enabled on the node."],
  ["serialize-image-pulls", "true", "Pull images one at a time."],
  ["container-runtime", "remote", "The container runtime to use. Possible values: 'docker', 'remote'."],
  ["container-runtime-endpoint", "", "The endpoint of remote runtime service."],
  ["image-service-endpoint", "", "The endpoint of remote image service."],
  ["docker-endpoint", "unix:///var/run/docker.sock", "Use this for the docker endpoint to communicate with. This docker-specific flag only works when container-runtime is set to docker."],
  ["reserved-cpus", "", "A comma-separated list of CPUs or CPU ranges that are reserved for system and kubernetes usage."],
  ["enforce-node-allocatable", "pods", "A comma separated list of levels of node allocatable enforcement to be enforced by the agent. Acceptable options are 'none', 'pods', 'system-reserved', and 'kube-reserved'."],
  ["event-qps", "5", "If > 0, limit event creations per second to this value. If 0, unlimited."],
  ["event-burst", "10", "Maximum size of a bursty event records, temporarily allows event records to burst to this number, while still not exceeding event-qps. Only used if --event-qps > 0."],
  ["kube-api-content-type", "application/vnd.kubernetes.protobuf", "Content type of requests sent to apiserver."],
] as const).map(([name, def, description]) => [name, { type: "string", default: def, description: description + INERT }]));

export const NODE_AGENT_ARGS = {
  kubeconfig: { type: "string", description: "Path to a kubeconfig file, specifying how to connect to the API server (default: $KUBECONFIG, then ~/.kube/config)." },
  "hostname-override": { type: "string", description: "If non-empty, will use this string as identification instead of the actual hostname." },
  "register-node": { type: "boolean", default: true, description: "Register the node with the apiserver. If --kubeconfig is not provided, this flag is irrelevant, as the agent won't have an apiserver to register with." },
  "node-labels": { type: "string", description: "Labels to add when registering the node in the cluster. Labels must be key=value pairs separated by ','. Labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io, node.kubernetes.io) or be in the specifically allowed set (beta.kubernetes.io/arch, beta.kubernetes.io/instance-type, beta.kubernetes.io/os, failure-domain.beta.kubernetes.io/region, failure-domain.beta.kubernetes.io/zone, kubernetes.io/arch, kubernetes.io/hostname, kubernetes.io/os, node.kubernetes.io/instance-type, topology.kubernetes.io/region, topology.kubernetes.io/zone)" },
  "register-with-taints": { type: "string", description: "Register the node with the given list of taints (comma separated \"<key>=<value>:<effect>\"). No-op if register-node is false." },
  "node-ip": { type: "string", description: "IP address of the node. If set, the agent will use this IP address for the node (default, as upstream: the node name if it is an IP, else its address in DNS if it is on this host and not loopback, else the address of the default route's interface; Kite's own fallback: the first non-loopback IPv4 address of any interface, else 127.0.0.1)." },
  "max-pods": { type: "string", default: "110", description: "Number of Pods that can run on this node." },
  "cluster-dns": { type: "string", default: "", description: "Comma-separated list of DNS server IP address. This value is used for containers DNS server in case of Pods with \"dnsPolicy=ClusterFirst\". Note: all DNS servers appearing in the list MUST serve the same set of records otherwise name resolution within the cluster may not work correctly. There is no guarantee as to which DNS server may be contacted for name resolution." },
  "cluster-domain": { type: "string", default: "", description: "Domain for this cluster. If set, the agent will configure all containers to search this domain in addition to the host's search domains" },
  "resolv-conf": { type: "string", default: "/etc/resolv.conf", description: "Resolver configuration file used as the basis for the container DNS resolution configuration." },
  "node-status-update-frequency": { type: "string", default: "10s", description: "Specifies how often the agent posts node status to master. Note: be cautious when changing the constant, it must work with nodeMonitorGracePeriod in nodecontroller." },
  "root-dir": { type: "string", default: join(homedir(), ".kite", "agent"), description: "Directory path for managing agent files (pod logs and state)." },
  "pod-manifest-path": { type: "string", description: "Path to the directory containing static pod files to run, or the path to a single static pod file. Files starting with dots will be ignored." },
  "file-check-frequency": { type: "string", default: "20s", description: "Duration between checking config files for new data." },
  config: { type: "string", description: "The agent will load its initial configuration from this file (a KubeletConfiguration, kubelet.config.k8s.io/v1beta1). Command-line flags override configuration from this file. Omit this flag to use the built-in default configuration values." },
  "provider-id": { type: "string", description: "Unique identifier for identifying the node in a machine database, i.e cloudprovider." },
  "pods-per-core": { type: "string", default: "0", description: "Number of Pods per core that can run on this agent. The total number of Pods on this agent cannot exceed max-pods, so max-pods will be used if this calculation results in a larger number of Pods allowed on the agent. 0 disables this limit." },
  "kube-reserved": { type: "string", description: "A set of ResourceName=ResourceQuantity (e.g. cpu=200m,memory=500Mi,ephemeral-storage=1Gi,pid=1000) pairs that describe resources reserved for kubernetes system components. Subtracted from the node's allocatable." },
  "system-reserved": { type: "string", description: "A set of ResourceName=ResourceQuantity (e.g. cpu=200m,memory=500Mi,ephemeral-storage=1Gi,pid=1000) pairs that describe resources reserved for non-kubernetes components. Subtracted from the node's allocatable." },
  "eviction-hard": { type: "string", default: "imagefs.available<15%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%", description: "A set of eviction thresholds (e.g. memory.available<1Gi) that if met would trigger a pod eviction." },
  "eviction-soft": { type: "string", description: "A set of eviction thresholds (e.g. memory.available<1.5Gi) that if met over a corresponding grace period would trigger a pod eviction." },
  "eviction-soft-grace-period": { type: "string", description: "A set of eviction grace periods (e.g. memory.available=1m30s) that correspond to how long a soft eviction threshold must hold before triggering a pod eviction." },
  "eviction-pressure-transition-period": { type: "string", default: "5m0s", description: "Duration for which the agent has to wait before transitioning out of an eviction pressure condition." },
  "eviction-max-pod-grace-period": { type: "string", default: "0", description: "Maximum allowed grace period (in seconds) to use when terminating pods in response to a soft eviction threshold being met. If negative, defer to pod specified value." },
  "eviction-minimum-reclaim": { type: "string", description: "A set of minimum reclaims (e.g. imagefs.available=2Gi) that describes the minimum amount of resource the agent will reclaim when performing a pod eviction if that resource is under pressure." },
  "manifest-url": { type: "string", description: "URL for accessing additional Pod specifications to run (a Pod or a PodList, YAML or JSON)." },
  "manifest-url-header": { type: "string", description: "Comma-separated list of HTTP headers to use when accessing the url provided to --manifest-url. Multiple headers with the same name will be added in the same order provided. For example: --manifest-url-header 'a:hello,b:again,c:world' --manifest-url-header 'b:beautiful'" },
  "http-check-frequency": { type: "string", default: "20s", description: "Duration between checking http for new data." },
  "housekeeping-interval": { type: "string", default: "10s", description: "Interval between container housekeepings: here, the eviction manager's period too (upstream's is a fixed 10s)." },
  "pod-max-pids": { type: "string", default: "-1", description: "Set the maximum number of processes per pod. If -1, the agent defaults to the node allocatable pid capacity (no limit)." },
  "sync-frequency": { type: "string", default: "1m0s", description: "Max period between synchronizing running containers and config." },
  "kube-api-qps": { type: "string", default: "0", description: "QPS to use while talking with kubernetes apiserver; 0 means no limit. Kite's default is 0, not upstream's 5: pods start in milliseconds here, and 5 writes a second would hold the status of 100 new pods for 20 s." },
  "kube-api-burst": { type: "string", default: "10", description: "Burst to use while talking with kubernetes apiserver (with --kube-api-qps > 0)." },
  ...INERT_ARGS,
  address: { type: "string", default: "0.0.0.0", description: "The IP address for the agent to serve on (set to '0.0.0.0' or '::' for listening in all interfaces and IP families)." },
  port: { type: "string", default: "10250", description: "The port for the agent to serve on (HTTPS, authenticated and authorized; 0 picks a free port, reported in the Node's daemonEndpoints)." },
  "read-only-port": { type: "string", default: "10255", description: "The read-only port for the agent to serve on with no authentication/authorization (set to 0 to disable)." },
  "healthz-port": { type: "string", default: "10248", description: "The port of the localhost healthz endpoint (set to 0 to disable)." },
  "healthz-bind-address": { type: "string", default: "127.0.0.1", description: "The IP address for the healthz server to serve on (set to '0.0.0.0' or '::' for listening in all interfaces and IP families)." },
  "tls-cert-file": { type: "string", description: "File containing x509 Certificate used for serving HTTPS (with intermediate certs, if any, concatenated after server cert). If --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory passed to --cert-dir." },
  "tls-private-key-file": { type: "string", description: "File containing x509 private key matching --tls-cert-file." },
  "cert-dir": { type: "string", description: "The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored. (default ROOT-DIR/pki)" },
  "anonymous-auth": { type: "boolean", default: true, description: "Enables anonymous requests to the agent server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated." },
  "client-ca-file": { type: "string", description: "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate." },
  "authentication-token-webhook": { type: "boolean", default: false, description: "Use the TokenReview API to determine authentication for bearer tokens." },
  "authentication-token-webhook-cache-ttl": { type: "string", default: "2m0s", description: "The duration to cache responses from the webhook token authenticator." },
  "authorization-mode": { type: "string", default: "AlwaysAllow", description: "Authorization mode for the agent server. Valid options are AlwaysAllow or Webhook. Webhook mode uses the SubjectAccessReview API to determine authorization." },
  "authorization-webhook-cache-authorized-ttl": { type: "string", default: "5m0s", description: "The duration to cache 'authorized' responses from the webhook authorizer." },
  "authorization-webhook-cache-unauthorized-ttl": { type: "string", default: "30s", description: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
  "container-log-max-size": { type: "string", default: "10Mi", description: "Set the maximum size (e.g. 10Mi) of container log file before it is rotated." },
  "container-log-max-files": { type: "string", default: "5", description: "Set the maximum number of container log files that can be present for a container. The number must be >= 2." },
  "pod-cidr": { type: "string", description: "The IPv4 CIDR to use for pod IP addresses when the Node's spec.podCIDR is not set (as upstream's standalone mode; default 10.244.0.0/24)." },
  "proxy-mode": { type: "string", default: "auto", description: "Kite's own: the service proxy run inside the agent (upstream's kube-proxy). nftables routes Services' cluster IPs and node ports to their ready endpoints with rules in nftables table ip kite (needs root, Linux and nft); userspace has the agent listen on each Service port and relay connections (TCP and UDP) round-robin to ready endpoints: on the node port on every address and on the cluster IP, which it adds to the loopback device (label lo:kite) as root, or unprivileged on a proxy port per Service port on 127.0.0.1, named in the log; none routes nothing; auto is nftables where it can run, else userspace (said in the log and the Node's Ready message). A standalone agent leaves its rules and cluster IPs for its successor at exit, as kube-proxy does; kite up removes them." },
  "pod-network": { type: "string", default: "bridge", description: "Kite's own: bridge gives each pod that is not hostNetwork its own network namespace on bridge kite0 with an address from the pod CIDR (needs root, Linux, ip and nsenter; else pods fall back to the host's network, said in the log and the Node's Ready message); host runs every pod on the host's network." },
} as const;
