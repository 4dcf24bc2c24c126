// kite up: an all-in-one dev cluster on the embedded store, bound to loopback.
import { defineCommand } from "citty";
import { consola } from "consola";
import { homedir } from "node:os";
import { join } from "node:path";
import { int, strict } from "../pkg/cli/args.ts";
import { ApiServer } from "../pkg/server/apiserver.ts";
import { writeKubeconfig } from "../pkg/server/kubeconfig.ts";
import { type ClientCert, ensureClientCert, ensureServingCerts } from "../pkg/pki/certs.ts";
import { runEmbeddedScheduler } from "../pkg/scheduler/embedded.ts";
import { step } from "../pkg/server/startup-errors.ts";
import { toOptions, args as serverArgs } from "./apiserver.ts";
import { startOrExit } from "./component.ts";

const args = {
  "data-dir": { type: "string", default: join(homedir(), ".kite"), description: "Directory for the cluster's state, certificates and kubeconfig" },
  "secure-port": { type: "string", default: "6443", description: "The HTTPS port" },
  "bind-address": { type: "string", default: "127.0.0.1", description: "The address to listen on (loopback by default)" },
} as const;

export default defineCommand({
  meta: { name: "up", description: "Start an all-in-one development cluster (API server, built-in controllers and the scheduler) on this machine" },
  args,
  run: strict("up", args, async ({ args: a }: { args: Record<string, any> }) => {
    const defaults = Object.fromEntries(Object.entries(serverArgs).map(([k, v]) => [k, (v as any).default]));
    const dir = a["data-dir"];
    const pki = join(dir, "server", "pki");
    // Secure by default: callers prove who they are with a certificate of the cluster CA, and RBAC (with
    // the Node authorizer) decides what they may do; the admin is in system:masters.
    const opts = toOptions({
      ...defaults, "data-dir": join(dir, "server"), "secure-port": String(int("secure-port", a["secure-port"], 1, 65535)), "bind-address": a["bind-address"],
      "client-ca-file": join(pki, "ca.crt"), "authorization-mode": "Node,RBAC",
    });
    const server = new ApiServer(opts);
    const t0 = performance.now();
    const kubeconfig = join(dir, "kubeconfig.yaml");
    let schedulerCert: ClientCert | undefined;
    // Written only once this process holds the data dir and serves: a refused start leaves it as it was.
    await startOrExit(async () => {
      // the CA exists before the server reads it as its client CA
      await step(`certificates in ${pki}`, () => ensureServingCerts(pki));
      await server.start();
      await server.untilReady();
      const admin = await step(`admin certificate in ${pki}`, () => ensureClientCert(pki, "admin", "kite-admin", ["system:masters"]));
      await step(`kubeconfig ${kubeconfig}`, () => writeKubeconfig(kubeconfig, server.url, server.caPem, admin));
      schedulerCert = await step(`scheduler certificate in ${pki}`, () => ensureClientCert(pki, "kube-scheduler", "system:kube-scheduler", []));
    });
    // the scheduler, a client of the API as `kite scheduler` is, with its own identity
    const components = new AbortController();
    const scheduler = runEmbeddedScheduler({ server: server.url, ca: server.caPem, ...schedulerCert! }, components.signal)
      .catch((e) => consola.error(`scheduler: ${(e as Error).message}`));
    const ms = Math.round(performance.now() - t0);
    // Before the banner: whoever reads it may stop the cluster at once.
    const stop = async () => {
      consola.info("stopping");
      components.abort();
      await scheduler;
      await server.stop();
      process.exit(0);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    console.log(`
  kite is up (ready in ${ms} ms): ${server.url}
  state:      ${join(dir, "server", "state.db")}
  kubeconfig: ${kubeconfig}

  Try:
    export KUBECONFIG=${kubeconfig}
    kubectl get namespaces
    kubectl create configmap hello --from-literal=greeting=hi
    kubectl get configmaps -o yaml

  Ctrl-C stops the cluster; the next 'kite up' resumes the same state.
`);
  }),
});
