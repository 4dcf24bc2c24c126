// The flags of `kite node-agent` built so far: upstream v1.21 kubelet's names, defaults and (shortened)
// words. Every other kubelet option is not accepted yet (an unknown flag exits 2); NOT_BUILT names them.
import { homedir } from "node:os";
import { join } from "node:path";

/** The kubelet options this agent does not implement yet: refused as unknown flags, listed in --help. */
export const NOT_BUILT = [
  "--config", "--provider-id", "--pods-per-core", "--kube-reserved", "--system-reserved", "--eviction-*",
  "--manifest-url", "--manifest-url-header", "--http-check-frequency", "--port", "--read-only-port", "--healthz-port",
  "--anonymous-auth", "--client-ca-file", "--authentication-token-webhook", "--authorization-mode",
  "--container-log-max-size", "--container-log-max-files", "--pod-cidr", "--sync-frequency",
];

export const NODE_AGENT_ARGS = {
  kubeconfig: { type: "string", description: "Path to a kubeconfig file, specifying how to connect to the API server (default: $KUBECONFIG, then ~/.kube/config)." },
  "hostname-override": { type: "string", description: "If non-empty, will use this string as identification instead of the actual hostname." },
  "register-node": { type: "boolean", default: true, description: "Register the node with the apiserver. If --kubeconfig is not provided, this flag is irrelevant, as the agent won't have an apiserver to register with." },
  "node-labels": { type: "string", description: "Labels to add when registering the node in the cluster. Labels must be key=value pairs separated by ','. Labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io, node.kubernetes.io) or be in the specifically allowed set (beta.kubernetes.io/arch, beta.kubernetes.io/instance-type, beta.kubernetes.io/os, failure-domain.beta.kubernetes.io/region, failure-domain.beta.kubernetes.io/zone, kubernetes.io/arch, kubernetes.io/hostname, kubernetes.io/os, node.kubernetes.io/instance-type, topology.kubernetes.io/region, topology.kubernetes.io/zone)" },
  "register-with-taints": { type: "string", description: "Register the node with the given list of taints (comma separated \"<key>=<value>:<effect>\"). No-op if register-node is false." },
  "node-ip": { type: "string", description: "IP address of the node. If set, the agent will use this IP address for the node (default: the first non-loopback IPv4 address of the host, else 127.0.0.1)." },
  "max-pods": { type: "string", default: "110", description: "Number of Pods that can run on this node." },
  "node-status-update-frequency": { type: "string", default: "10s", description: "Specifies how often the agent posts node status to master. Note: be cautious when changing the constant, it must work with nodeMonitorGracePeriod in nodecontroller." },
  "root-dir": { type: "string", default: join(homedir(), ".kite", "agent"), description: "Directory path for managing agent files (pod logs and state)." },
  "pod-manifest-path": { type: "string", description: "Path to the directory containing static pod files to run, or the path to a single static pod file. Files starting with dots will be ignored." },
  "file-check-frequency": { type: "string", default: "20s", description: "Duration between checking config files for new data." },
  "pod-max-pids": { type: "string", default: "-1", description: "Set the maximum number of processes per pod. If -1, the agent defaults to the node allocatable pid capacity (no limit)." },
} as const;
