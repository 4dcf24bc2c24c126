// kite up: an all-in-one dev cluster on the embedded store, bound to loopback.
import { defineCommand } from "citty";
import { consola } from "consola";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import { int, strict, UsageError } from "../pkg/cli/args.ts";
import { COMPONENT_ARGS, componentFlags } from "../pkg/cli/component-flags.ts";
import { startEmbeddedConsole } from "../pkg/console/server/embedded.ts";
import { runEmbeddedControllers } from "../pkg/controllers/embedded.ts";
import { CLUSTER_DOMAIN, DNS_GROUPS, DNS_PORT, DNS_USER, ensureDNSAccess, gatewayOf, startEmbeddedClusterDNS } from "../pkg/dns/embedded.ts";
import { runEmbeddedNodeAgent } from "../pkg/nodeagent/embedded.ts";
import { hostNetworkReason } from "../pkg/nodeagent/network/start.ts";
import { hostNodeIP } from "../pkg/nodeagent/nodeaddress.ts";
import { NODE_AGENT_ARGS } from "../pkg/nodeagent/flags.ts";
import { nodeAgentOptions } from "../pkg/nodeagent/options.ts";
import { ApiServer } from "../pkg/server/apiserver.ts";
import { writeKubeconfig } from "../pkg/server/kubeconfig.ts";
import { type ClientCert, ensureClientCert, ensureServingCerts } from "../pkg/pki/certs.ts";
import { runEmbeddedScheduler } from "../pkg/scheduler/embedded.ts";
import { step } from "../pkg/server/startup-errors.ts";
import { toOptions, args as serverArgs } from "./apiserver.ts";
import { startOrExit } from "./component.ts";
import { commaList } from "../pkg/util/commalist.ts";

/** The parts of the cluster `--disable` may leave out. */
const PARTS = ["controllers", "scheduler", "node-agent", "dns", "console"];

const args = {
  "data-dir": { type: "string", default: join(homedir(), ".kite"), description: "Directory for the cluster's state, certificates and kubeconfig" },
  "secure-port": { type: "string", default: "6443", description: "The HTTPS port" },
  "console-port": { type: "string", default: "8001", description: "The port of the web console (what 'kite console' serves) on the bind address; 0 picks a free one. Taken, the cluster starts without it" },
  "bind-address": { type: "string", default: "127.0.0.1", description: "The address to listen on (loopback by default)" },
  disable: { type: "string", default: "", description: `Parts not to run, comma separated: ${PARTS.join(", ")}` },
  "node-name": { type: "string", default: hostname().toLowerCase(), description: "The name of this machine's Node (the node agent's --hostname-override)" },
  "pod-network": { type: "string", default: "bridge", description: "bridge: each pod that is not hostNetwork gets its own network namespace on bridge kite0 (as root on Linux; else the host's network); host: every pod on the host's network" },
  "proxy-mode": { type: "string", default: "auto", description: "The node agent's service proxy: nftables routes cluster IPs and node ports with rules in nftables table ip kite (root, Linux and nft); userspace has the agent listen on each Service port and relay connections round-robin to ready endpoints (node ports on every address; cluster IPs as root, else a proxy port per Service port on 127.0.0.1, named in the log); none routes nothing; auto is nftables where it can run, else userspace. Rules and cluster IPs are removed when the cluster stops" },
  "node-ip": { type: "string", description: "The Node's address when pods use the host's network (pods then have it as their IP, and Endpoints refuse loopback addresses): by default chosen as upstream's kubelet does (the node name's address in DNS if on this host, else the default route's interface, else the first non-loopback IPv4 address); the node agent's server listens there. With pod networks of their own the Node's address is 127.0.0.1" },
  "pod-cidr": { type: "string", default: "10.244.0.0/24", description: "The pod addresses of this machine's Node" },
  "service-cluster-ip-range": { type: "string", default: "10.0.0.0/24", description: "A CIDR notation IP range from which to assign service cluster IPs" },
  ...COMPONENT_ARGS,
} as const;

export default defineCommand({
  meta: { name: "up", description: `Start an all-in-one development cluster on this machine: the API server (with its built-in controllers), the controllers of kite controller-manager, the scheduler, a node agent that runs the pods bound to this machine's Node and the cluster DNS (${CLUSTER_DOMAIN}, on port ${DNS_PORT} of the pod bridge's address, or of 127.0.0.1 when pods use the host's network and that port is free) and the web console (--console-port; its address, with this start's token, is printed), each a client of the API with its own credentials. Ctrl-C stops every part, pods' processes included; the next 'kite up' resumes the same state.` },
  args,
  run: strict("up", args, async ({ args: a, rawArgs }: { args: Record<string, any>; rawArgs: string[] }) => {
    const features = componentFlags("up", a, rawArgs);
    const consolePort = int("console-port", String(a["console-port"]), 0, 65535);
    const disabled = commaList(a.disable);
    for (const d of disabled) if (!PARTS.includes(d)) throw new UsageError(`invalid argument "${a.disable}" for "--disable" flag: ${d} is not one of ${PARTS.join(", ")}`);
    const defaults = Object.fromEntries(Object.entries(serverArgs).map(([k, v]) => [k, (v as any).default]));
    const dir = a["data-dir"];
    const pki = join(dir, "server", "pki");
    // Secure by default: callers prove who they are with a certificate of the cluster CA, and RBAC (with
    // the Node authorizer) decides what they may do; the admin is in system:masters.
    const opts = toOptions({
      ...defaults, "data-dir": join(dir, "server"), "secure-port": String(int("secure-port", a["secure-port"], 1, 65535)), "bind-address": a["bind-address"],
      "client-ca-file": join(pki, "ca.crt"), "authorization-mode": "Node,RBAC", "service-cluster-ip-range": a["service-cluster-ip-range"],
      // pods/log reaches the node agent by its address, with a certificate of the cluster CA
      "kubelet-client-certificate": join(pki, "kube-apiserver-kubelet-client.crt"), "kubelet-client-key": join(pki, "kube-apiserver-kubelet-client.key"),
      "kubelet-preferred-address-types": "InternalIP,Hostname",
      // the pods of a development cluster may be privileged, as on kubeadm's and k3s's servers
      "allow-privileged": true,
    }, features);
    // The agent's server on a free port of the bind address, open only to certificates of the cluster CA.
    const agentFlags: Record<string, string> = {
      "root-dir": join(dir, "agent"), "hostname-override": a["node-name"], "pod-network": a["pod-network"], "proxy-mode": a["proxy-mode"], "pod-cidr": a["pod-cidr"],
      // the cluster's only node: room for a 100-replica Deployment's rolling update with 25 % surge (upstream's
      // 110 is per node of a cluster of many), within the /24 of the default pod CIDR
      "max-pods": "250",
      address: a["bind-address"], port: "0", "read-only-port": "0", "healthz-port": "0",
      "client-ca-file": join(pki, "ca.crt"), "anonymous-auth": "false", "authorization-mode": "AlwaysAllow",
      "cluster-domain": CLUSTER_DOMAIN,
    };
    // Pods on the host's network have the node's address, which must not be loopback for their Endpoints:
    // the node gets a host address (looked up while the server starts), and its agent listens there (the
    // API server reaches it at that address).
    const bridged = a["pod-network"] === "bridge" && !disabled.includes("node-agent") && hostNetworkReason() === undefined;
    const hostNetwork = !bridged && !disabled.includes("node-agent");
    const nodeIP = a["node-ip"] ? Promise.resolve(String(a["node-ip"])) : hostNetwork ? hostNodeIP(a["node-name"]) : Promise.resolve("127.0.0.1");
    if (a["node-ip"]) agentFlags["node-ip"] = a["node-ip"];
    // checked before anything starts: a bad value is a usage error
    nodeAgentOptions({ ...Object.fromEntries(Object.entries(NODE_AGENT_ARGS).map(([k, v]) => [k, (v as any).default])), ...agentFlags }, []);
    // the namespace controller and garbage collector run with the other controllers, as API clients
    const server = new ApiServer({ ...opts, namespaceAndGCControllers: disabled.includes("controllers") });
    const t0 = performance.now();
    const kubeconfig = join(dir, "kubeconfig.yaml");
    let schedulerCert: ClientCert | undefined, nodeCert: ClientCert | undefined, controllersCert: ClientCert | undefined, dnsCert: ClientCert | undefined, proxyCert: ClientCert | undefined;
    // Written only once this process holds the data dir and serves: a refused start leaves it as it was.
    await startOrExit(async () => {
      // the CA exists before the server reads it as its client CA
      await step(`certificates in ${pki}`, () => ensureServingCerts(pki));
      await step(`kubelet client certificate in ${pki}`, () => ensureClientCert(pki, "kube-apiserver-kubelet-client", "kube-apiserver-kubelet-client", ["system:masters"]));
      await server.start();
      await server.untilReady();
      const admin = await step(`admin certificate in ${pki}`, () => ensureClientCert(pki, "admin", "kite-admin", ["system:masters"]));
      await step(`kubeconfig ${kubeconfig}`, () => writeKubeconfig(kubeconfig, server.url, server.caPem, admin));
      schedulerCert = await step(`scheduler certificate in ${pki}`, () => ensureClientCert(pki, "kube-scheduler", "system:kube-scheduler", []));
      controllersCert = await step(`controller manager certificate in ${pki}`, () => ensureClientCert(pki, "kube-controller-manager", "system:kube-controller-manager", []));
      dnsCert = await step(`cluster DNS certificate in ${pki}`, () => ensureClientCert(pki, "coredns", DNS_USER, DNS_GROUPS));
      if (!disabled.includes("dns")) await step("cluster DNS role system:coredns", () => ensureDNSAccess({ server: server.url, ca: server.caPem, ...admin }));
      proxyCert = await step(`service proxy certificate in ${pki}`, () => ensureClientCert(pki, "kube-proxy", "system:kube-proxy", []));
      nodeCert = await step(`node certificate in ${pki}`, () => ensureClientCert(pki, `node-${a["node-name"]}`, `system:node:${a["node-name"]}`, ["system:nodes"]));
    });
    // the console starts while the other parts do; the banner waits for its address
    const consoleStart = disabled.includes("console") ? undefined : startEmbeddedConsole(kubeconfig, a["bind-address"], consolePort);
    // the scheduler, a client of the API as `kite scheduler` is, with its own identity
    const components = new AbortController();
    const running: Promise<void>[] = [];
    const run = (name: string, part: () => Promise<void>) => {
      if (!disabled.includes(name)) running.push(part().catch((e) => consola.error(`${name}: ${(e as Error).message}`)));
    };
    run("controllers", () => runEmbeddedControllers({ server: server.url, ca: server.caPem, ...controllersCert! }, components.signal));
    run("scheduler", () => runEmbeddedScheduler({ server: server.url, ca: server.caPem, ...schedulerCert! }, components.signal, features));
    // The cluster DNS listens where pods reach it: on the bridge's address (which the agent makes, so it
    // starts once the agent's network is up) when pods get their own networks, else on 127.0.0.1, which
    // works for pods on the host's network only if port 53 is free there (and may be bound).
    const dnsTarget = { server: server.url, ca: server.caPem, ...dnsCert! };
    const startDNS = async (ip: string) => {
      const dns = await startEmbeddedClusterDNS(dnsTarget, ip, components.signal);
      if (dns) running.push(dns.done);
      return dns !== undefined;
    };
    let onPodNetwork: ((gateway: string | undefined) => void) | undefined;
    if (!disabled.includes("dns") && bridged) {
      const ip = gatewayOf(a["pod-cidr"]);
      agentFlags["cluster-dns"] = ip;
      onPodNetwork = (gateway) => {
        if (gateway === ip) void startDNS(ip);
        else consola.warn(`cluster DNS not started: pods' gateway is ${gateway ?? "none (the host's network)"}, not ${ip}`);
      };
    } else if (!disabled.includes("dns") && (await startDNS("127.0.0.1"))) agentFlags["cluster-dns"] = "127.0.0.1";
    agentFlags["node-ip"] = await nodeIP;
    if (hostNetwork && !["0.0.0.0", "::"].includes(a["bind-address"])) agentFlags.address = agentFlags["node-ip"];
    if (hostNetwork && agentFlags["node-ip"].startsWith("127.")) consola.warn(`the node's address is ${agentFlags["node-ip"]}: pods on the host's network have it, which Endpoints refuse, so Services get no endpoints (give --node-ip a host address)`);
    run("node-agent", () => runEmbeddedNodeAgent({ server: server.url, ca: server.caPem, ...nodeCert! }, agentFlags, components.signal, {
      proxy: { server: server.url, ca: server.caPem, ...proxyCert! }, onPodNetwork,
    }));
    const webConsole = await consoleStart;
    const ms = Math.round(performance.now() - t0);
    // Before the banner: whoever reads it may stop the cluster at once.
    const stop = async () => {
      consola.info("stopping");
      components.abort();
      await webConsole?.stop();
      await Promise.all(running);
      await server.stop();
      process.exit(0);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    console.log(`
  kite is up (ready in ${ms} ms): ${server.url}
  state:      ${join(dir, "server", "state.db")}
  kubeconfig: ${kubeconfig}${webConsole ? `\n  console:    ${webConsole.url}` : ""}

  Try:
    export KUBECONFIG=${kubeconfig}
    kubectl get namespaces
    kubectl create configmap hello --from-literal=greeting=hi
    kubectl get configmaps -o yaml

  Ctrl-C stops the cluster; the next 'kite up' resumes the same state.
`);
  }),
});
