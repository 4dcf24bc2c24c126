// `kite scheduler` after its flags: a client of the API server (pkg/client), shared informers feeding the
// cache and queue, leader election when asked, then the scheduling loop. As upstream, the informers start
// and sync before the election, so a new leader schedules at once.
import { hostname } from "node:os";
import { consola } from "consola";
import { Client } from "../client/client.ts";
import { EventBroadcaster, type EventRecorder } from "../client/events.ts";
import { dropManagedFields, InformerFactory } from "../client/informer.ts";
import { loadClientConfig } from "../client/kubeconfig.ts";
import { runWhileLeading } from "../client/leaderelection.ts";
import { newResourceLock } from "../client/resourcelock.ts";
import { RESOURCES } from "../client/resources.ts";
import { Transport } from "../client/transport.ts";
import { clusterActions, clusterListers } from "./cluster.ts";
import { addEventHandlers } from "./eventhandlers.ts";
import { Nominator, SchedulerCache, SchedulingQueue, type Pod } from "./index.ts";
import { schedulingLoop } from "./loop.ts";
import { slimPod } from "./pod-transform.ts";
import type { SchedulerOptions } from "./options/options.ts";
import { inTreeRegistry } from "./plugins/registry.ts";
import { buildProfiles, DEFAULT_SCHEDULER_NAME } from "./profiles.ts";
import { Scheduler } from "./scheduler.ts";
import type { SchedulerMetrics } from "./serving/metrics.ts";
import type { SchedulerServer } from "./serving/server.ts";

/** Upstream's pod informer leaves finished pods out: they hold no resources. */
const UNFINISHED = "status.phase!=Succeeded,status.phase!=Failed";

/** The API client the configuration names (its kubeconfig, --master over its server, its qps and burst). */
export async function schedulerClient(o: SchedulerOptions): Promise<Client> {
  const cc = o.config.clientConnection;
  const config = await loadClientConfig({ kubeconfig: cc.kubeconfig || undefined, server: o.master || undefined });
  return new Client(new Transport({ ...config, qps: cc.qps, burst: cc.burst }));
}

/**
 * Runs until `signal` aborts (resolving once the lease is released) or leadership is lost (rejecting,
 * as upstream exits then: another replica leads now).
 */
export async function runScheduler(o: SchedulerOptions, client: Client, metrics: SchedulerMetrics, server: SchedulerServer | undefined, signal: AbortSignal): Promise<void> {
  // nothing here reads field ownership, and it is most of a small pod's memory
  const factory = new InformerFactory(client, { transform: dropManagedFields });
  const pods = factory.informerFor(RESOURCES.pods, { fieldSelector: UNFINISHED, transform: slimPod });
  const nodes = factory.informerFor(RESOURCES.nodes);
  const { listers, informers } = clusterListers(factory);

  const broadcaster = new EventBroadcaster(client);
  const recorders = new Map<string, EventRecorder>();
  const recorder = (pod: Pod) => {
    const name = pod.spec.schedulerName || DEFAULT_SCHEDULER_NAME;
    let r = recorders.get(name);
    if (!r) recorders.set(name, (r = broadcaster.newRecorder(name)));
    return r;
  };
  const nominator = new Nominator();
  const profiles = buildProfiles(o.config, { registry: inTreeRegistry(o.features), nominator, listers, actions: clusterActions(client, recorder), provider: o.algorithmProvider });
  const first = profiles.values().next().value!;
  const queue = new SchedulingQueue({
    less: first.less, nominator,
    podInitialBackoffMs: o.config.podInitialBackoffSeconds * 1000, podMaxBackoffMs: o.config.podMaxBackoffSeconds * 1000,
  });
  const cache = new SchedulerCache();
  const currentPod = (p: Pod) => pods.store.get(`${p.metadata.namespace}/${p.metadata.name}`) as Pod | undefined;
  const scheduler = new Scheduler({ cache, queue, profiles, percentageOfNodesToScore: o.config.percentageOfNodesToScore, currentPod });
  addEventHandlers({ pods, nodes, volumes: [informers.pvcs, informers.pvs, informers.storageClasses, informers.csiNodes] }, cache, queue, profiles);
  metrics.pendingPods = () => queue.pendingCounts();

  let synced = false;
  server?.health.add({ name: "sched-handler-sync", in: ["readyz"], run: async () => (synced ? null : "the informers have not synced") });
  factory.start();
  if (!(await factory.waitForCacheSync(signal))) return stop();
  synced = true;
  consola.info(`synced ${nodes.store.size} nodes and ${pods.store.size} pods; profiles: ${[...profiles.keys()].join(", ")}`);

  const schedule = async (s: AbortSignal) => {
    queue.run();
    const stopCleanup = cache.startCleanup();
    try {
      await schedulingLoop({ client, scheduler, queue, metrics, recorder, currentPod }, s);
    } finally {
      stopCleanup();
    }
  };
  function stop() {
    queue.close();
    factory.stop();
    return broadcaster.shutdown();
  }

  try {
    const le = o.leaderElection;
    if (!le.leaderElect) return await schedule(signal);
    const lock = newResourceLock(le.resourceLock, client, le.resourceNamespace, le.resourceName, `${hostname()}_${crypto.randomUUID()}`);
    let lost = false;
    server?.health.add({ name: "leaderElection", in: ["healthz"], run: async () => (lost ? "leaderelection lost" : null) });
    await runWhileLeading({ lock, leaseDurationMs: le.leaseDurationMs, renewDeadlineMs: le.renewDeadlineMs, retryPeriodMs: le.retryPeriodMs }, schedule, signal, () => { lost = true; });
  } finally {
    await stop();
  }
}
