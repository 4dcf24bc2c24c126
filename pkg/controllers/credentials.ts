// --use-service-account-credentials, as upstream's controller manager does it: each controller acts as its
// own ServiceAccount in kube-system (bound by the bootstrap RBAC policy to system:controller:<name>), with a
// bound token the manager requests for it and renews before it expires. Informers stay on the manager's own
// credentials (its role may list and watch everything).
import { consola } from "consola";
import { Client, isAlreadyExists } from "../client/client.ts";
import { RESOURCES } from "../client/resources.ts";
import { Transport } from "../client/transport.ts";

/** The ServiceAccount each controller runs as (upstream's names). */
export const CONTROLLER_ACCOUNTS: Record<string, string> = {
  cronjob: "cronjob-controller",
  daemonset: "daemon-set-controller",
  deployment: "deployment-controller",
  disruption: "disruption-controller",
  endpoint: "endpoint-controller",
  endpointslice: "endpointslice-controller",
  garbagecollector: "generic-garbage-collector",
  horizontalpodautoscaling: "horizontal-pod-autoscaler",
  job: "job-controller",
  namespace: "namespace-controller",
  nodelifecycle: "node-controller",
  podgc: "pod-garbage-collector",
  "pv-protection": "pv-protection-controller",
  "pvc-protection": "pvc-protection-controller",
  replicaset: "replicaset-controller",
  replicationcontroller: "replication-controller",
  resourcequota: "resourcequota-controller",
  service: "service-controller",
  serviceaccount: "service-account-controller",
  statefulset: "statefulset-controller",
  "ttl-after-finished": "ttl-after-finished-controller",
};

const NAMESPACE = "kube-system";
/** Upstream's token source asks for an hour and renews at 80 % of a token's life. */
const TOKEN_SECONDS = 3600;

/**
 * A client acting as the controller's ServiceAccount, or the manager's own client for a controller
 * without one (the token controller signs with its own key and keeps the manager's identity upstream).
 */
export async function controllerClient(manager: Client, controller: string, signal: AbortSignal): Promise<Client> {
  const account = CONTROLLER_ACCOUNTS[controller];
  if (!account) return manager;
  try {
    await manager.create(RESOURCES.serviceaccounts, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: account, namespace: NAMESPACE } }, { namespace: NAMESPACE });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  const request = async () => {
    const r = await manager.create(RESOURCES.serviceaccounts, { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: TOKEN_SECONDS } }, { namespace: NAMESPACE, name: account, subresource: "token" });
    return r.status.token as string;
  };
  const { token: _, cert: __, key: ___, username: ____, password: _____, ...base } = manager.config;
  const transport = new Transport({ ...base, token: await request() });
  const renew = setInterval(() => {
    request().then((t) => transport.setToken(t), (e) => consola.warn(`${controller}: renewing the token of ${NAMESPACE}/${account}: ${(e as Error).message}`));
  }, TOKEN_SECONDS * 800);
  signal.addEventListener("abort", () => clearInterval(renew), { once: true });
  return new Client(transport);
}
