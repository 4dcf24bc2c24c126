// kite node-agent: flags → NodeAgentOptions; pkg/nodeagent does the work.
import { defineCommand } from "citty";
import { strict } from "../pkg/cli/args.ts";
import { COMPONENT_ARGS, componentFlags } from "../pkg/cli/component-flags.ts";
import { NODE_AGENT_ARGS } from "../pkg/nodeagent/flags.ts";
import { API_MAX_IN_FLIGHT, nodeAgentOptions, withConfigFile } from "../pkg/nodeagent/options.ts";
import { runUntilSignal, startOrExit } from "./component.ts";

const ARGS = { ...NODE_AGENT_ARGS, ...COMPONENT_ARGS };

export default defineCommand({
  meta: {
    name: "node-agent",
    description: `Register this machine as a Node and run the pods bound to it (and static pods from --pod-manifest-path, --manifest-url and POST /pods on --port, the agent's submission source: DELETE /pods/NAMESPACE/NAME takes one back) as supervised host processes: each container runs its command + args, no image is fetched (upstream v1.21 kubelet's flags; --bootstrap-kubeconfig gets the agent a client certificate through a CertificateSigningRequest when --kubeconfig has none valid; --rotate-certificates renews it before it expires and --rotate-server-certificates asks the cluster for the serving certificate of --port, used once an admin approves it; --config reads a KubeletConfiguration, flags override it). Pods that do not fit --max-pods or the allocatable resources (after --kube-reserved, --system-reserved and hard eviction thresholds) are Failed with OutOf<resource>; --eviction-* thresholds are checked every --housekeeping-interval against the host's figures, setting the pressure conditions and evicting pods. It serves /healthz, /pods and /containerLogs on --port (HTTPS; --anonymous-auth, --client-ca-file, --authentication-token-webhook, --authorization-mode AlwaysAllow or Webhook), /healthz and /pods on --read-only-port, /healthz on --healthz-port; container output is kept per run in CRI format under --root-dir and rotated by --container-log-max-size/--container-log-max-files (kubectl logs reaches it through the API server). Env takes valueFrom (ConfigMaps, Secrets, the downward API, resources), envFrom and the service links; each pod's volumes (emptyDir, hostPath, configMap, secret, downwardAPI, projected with a bound service-account token, persistentVolumeClaim bound to a hostPath or local PV) are folders under --root-dir kept in sync every --sync-frequency. As root on Linux each container gets its own mount, PID, UTS and IPC namespaces with its volumes bind-mounted at their mountPath (elsewhere a container with volumeMounts waits with CreateContainerConfigError); where cgroups are writable its memory limit (OOMKilled), cpu limit (CFS quota) and --pod-max-pids are enforced. Each container has a small perl shim (perl-base) that outlives the agent and stamps its output: a stopped or killed agent leaves its pods running, and the next one on the same --root-dir adopts them (pods no longer bound here are stopped). Each pod that is not hostNetwork gets its own network namespace on bridge kite0 with an address from the Node's spec.podCIDR, else --pod-cidr, else 10.244.0.0/24, where the agent may make namespaces (root, Linux, ip and nsenter; --pod-network=host puts every pod on the host's network). Init containers, liveness/readiness/startup probes (exec, httpGet, tcpSocket), postStart/preStop hooks and termination messages run as upstream's kubelet runs them (a container's termination-message file is at $KITE_TERMINATION_MESSAGE_PATH; exec probes and hooks run in the container's namespaces with its env and working directory).`,
  },
  args: ARGS,
  run: strict("node-agent", ARGS, async ({ args: a, rawArgs }: { args: Record<string, any>; rawArgs: string[] }) => {
    // a --config file's featureGates count as --feature-gates
    const features = componentFlags("node-agent", withConfigFile(a, rawArgs).args, rawArgs);
    const o = nodeAgentOptions(a, rawArgs);
    // as upstream's kubelet: without the gate, --rotate-server-certificates has no effect
    if (o.rotateServerCertificates && !features.RotateKubeletServerCertificate) {
      console.error("--rotate-server-certificates has no effect: the RotateKubeletServerCertificate feature gate is off");
      o.rotateServerCertificates = false;
    }
    for (const w of o.warnings) console.error(w);
    const { Client } = await import("../pkg/client/client.ts");
    const { loadClientConfig } = await import("../pkg/client/kubeconfig.ts");
    const { Transport } = await import("../pkg/client/transport.ts");
    const { runNodeAgent } = await import("../pkg/nodeagent/agent.ts");
    if (o.bootstrapKubeconfig) {
      const { bootstrapClientCertificate } = await import("../pkg/nodeagent/bootstrap.ts");
      await startOrExit(() => bootstrapClientCertificate({ kubeconfig: o.kubeconfig!, bootstrapKubeconfig: o.bootstrapKubeconfig!, certDir: o.serving.certDir, nodeName: o.nodeName }));
    }
    const limit = o.kubeAPIQPS > 0 ? { qps: o.kubeAPIQPS, burst: Math.max(1, o.kubeAPIBurst) } : {};
    const client = await startOrExit(async () => new Client(new Transport({ ...(await loadClientConfig({ kubeconfig: o.kubeconfig })), ...limit, maxInFlight: API_MAX_IN_FLIGHT })));
    await runUntilSignal((signal) => runNodeAgent(o, client, signal), "shutting down (the pods keep running)");
  }),
});
