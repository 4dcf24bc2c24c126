// `kite node-agent` after its flags: register the Node and keep its status and Lease fresh; take pods
// from the API server (those bound to this node), --pod-manifest-path and --manifest-url; run each in a PodWorker;
// write their status through the status subresource when it changed; confirm deletions.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { consola } from "consola";
import { isNotFound, type Client } from "../client/client.ts";
import { CoreEventBroadcaster } from "../client/corev1events.ts";
import { dropManagedFields, InformerFactory } from "../client/informer.ts";
import { sleep } from "../client/ratelimit.ts";
import { RESOURCES } from "../client/resources.ts";
import { DeletedFinalStateUnknown, NAMESPACE_INDEX, namespaceIndex } from "../client/store.ts";
import { readNodeDNS } from "../dns/resolvconf.ts";
import { admit } from "./admission.ts";
import { CrashLoopBackoff } from "./backoff.ts";
import { SubmittedPods } from "./submitted.ts";
import { nodeRef, podRef, recordFor } from "./events.ts";
import { ServiceProxy } from "./proxy/proxier.ts";
import { EvictionManager } from "./eviction/manager.ts";
import { memoryByGroup, observe } from "./eviction/signals.ts";
import { readHost } from "./host.ts";
import { hostNodeIP } from "./nodeaddress.ts";
import { NodeLease } from "./lease.ts";
import { startPodNetworks } from "./network/start.ts";
import { allocatableOf, capacityOf, type Obj } from "./node.ts";
import { NodeStatusReporter } from "./nodestatus.ts";
import type { NodeAgentOptions } from "./options.ts";
import { PodWorker } from "./podworker.ts";
import { configureLogRotation } from "./runtime/output.ts";
import { AgentServers } from "./server/server.ts";
import { issuedServingPair, startCertificateRotation } from "./certificates.ts";
import { ProcessRuntime } from "./runtime/runtime.ts";
import { CONFIG_MIRROR, fetchStaticPods, isMirrorPod, isStaticPod, mirrorPod, readStaticPods, type StaticSource } from "./static.ts";
import { volumesDir } from "./volumes/manager.ts";
import { unmountUnder } from "./volumes/tmpfs.ts";

const key = (pod: Obj) => `${pod.metadata.namespace}/${pod.metadata.name}`;
const graceMs = (pod: Obj) => 1000 * (pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30);
/** How long `kite up`'s Ctrl-C lets a pod's processes stop before killing them. */
const STOP_GRACE_MS = 2000;
/** How long a stopping agent waits for its last events to be written. */
const EVENTS_FLUSH_MS = 2000;
const finished = (pod: Obj) => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

/** `proxyClient`: the service proxy's own identity where it has one (kite up's system:kube-proxy, as upstream's kube-proxy). */
export async function runNodeAgent(o: NodeAgentOptions, client: Client, signal: AbortSignal, proxyClient: Client = client): Promise<void> {
  mkdirSync(o.rootDir, { recursive: true });
  const nodeIP = o.nodeIP ?? (await hostNodeIP(o.nodeName));
  configureLogRotation(o.logRotation);
  // as upstream's kubelet: core/v1 events from source kubelet, written at most --event-qps per second
  const broadcaster = new CoreEventBroadcaster(client, { qps: o.eventQPS, burst: o.eventBurst });
  const events = broadcaster.newRecorder({ component: "kubelet", host: o.nodeName });
  const recordNode = recordFor(events, nodeRef(o.nodeName));
  recordNode("Normal", "Starting", "Starting kubelet.");
  const workers = new Map<string, PodWorker>();
  let synced = false;
  // The submission source: what is POSTed is stored at once, and runs once the static sources are up.
  const submitted = new SubmittedPods(join(o.rootDir, "submitted"), o.nodeName);
  let sourcesUp!: () => void;
  const sourcesReady = new Promise<void>((resolve) => (sourcesUp = resolve));
  const resyncSubmitted = async () => { await sourcesReady; await syncStatic("submitted", readSubmitted); };
  const servers = new AgentServers(o.serving, client.config, o.nodeName, nodeIP, {
    workers: () => workers.values(), rootDir: o.rootDir,
    submit: async (body) => { const pods = submitted.add(body); await resyncSubmitted(); return pods; },
    withdraw: async (namespace, name) => { const had = submitted.remove(namespace, name); if (had) await resyncSubmitted(); return had; },
  }, () => synced);
  await servers.start(issuedServingPair(o));
  startCertificateRotation(o, client, servers, nodeIP, signal);
  const eviction = new EvictionManager({ hard: o.evictionHard, soft: o.evictionSoft, pressureTransitionPeriodMs: o.evictionPressureTransitionPeriodMs, maxPodGracePeriodSeconds: o.evictionMaxPodGracePeriodSeconds });
  const runtime = new ProcessRuntime({ rootDir: o.rootDir, podMaxPids: o.podMaxPids });
  for (const line of runtime.describe()) consola.info(line);
  if (runtime.limitsProblem) consola.warn(runtime.limitsProblem);
  const reporter = new NodeStatusReporter(client, o, readHost(), nodeIP, servers.port, () => eviction.conditions(), recordNode);
  if (runtime.limitsProblem) reporter.readyNotes.push(runtime.limitsProblem);
  if (o.registerNode) await reporter.register(signal);
  const node = await client.get(RESOURCES.nodes, o.nodeName, { signal }).catch(() => undefined);
  const network = await startPodNetworks(o, node, nodeIP, (m) => reporter.readyNotes.push(m));
  o.onPodNetwork?.(network.gateway);
  const lease = new NodeLease(client, o.nodeName, () => reporter.uid, o.nodeLeaseDurationSeconds);
  const loops = [reporter.run(signal), lease.run(signal)];

  const factory = new InformerFactory(client, { transform: dropManagedFields });
  const pods = factory.informerFor(RESOURCES.pods, { fieldSelector: `spec.nodeName=${o.nodeName}` });
  // as upstream's kubelet: every service, for the containers' service env vars
  const services = factory.informerFor(RESOURCES.services, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
  const servicesFor = async (ns: string) => {
    await services.waitForSync(signal);
    return [...services.store.byIndex(NAMESPACE_INDEX, ns), ...(ns === "default" ? [] : services.store.byIndex(NAMESPACE_INDEX, "default"))];
  };
  // the node's own credentials may not list endpoints (system:node does not): a proxy client of its own watches apart
  const proxyFactory = proxyClient === client ? factory : new InformerFactory(proxyClient, { transform: dropManagedFields });
  const proxy = ServiceProxy.start(o.proxyMode, proxyFactory, (m) => reporter.readyNotes.push(m));
  if (proxyFactory !== factory) proxyFactory.start();
  const written = new Map<string, string>();
  const writing = new Map<string, Promise<void>>();
  const backoff = new CrashLoopBackoff();

  /** Writes a worker's status to its pod (a static pod's to its mirror) when it differs from the last write. */
  const writeStatus = (w: PodWorker): Promise<void> => {
    const run = async () => {
      const current = pods.store.get(key(w.pod));
      if (!current || (isStaticPod(w.pod) && !isMirrorPod(current))) return;
      if (!isStaticPod(w.pod) && current.metadata.uid !== w.uid) return;
      const status = w.status(current.status);
      const json = JSON.stringify(status);
      if (written.get(w.uid) === json) return;
      try {
        await client.patch(RESOURCES.pods, w.pod.metadata.name, { status }, "merge", { namespace: w.pod.metadata.namespace, subresource: "status" });
        written.set(w.uid, json);
      } catch (e) {
        if (!isNotFound(e)) consola.warn(`failed to update status for pod ${key(w.pod)}: ${(e as Error).message}`);
      }
    };
    const next = (writing.get(w.uid) ?? Promise.resolve()).then(run);
    writing.set(w.uid, next);
    return next;
  };
  const ctx = {
    rootDir: o.rootDir, runtime, hostIP: nodeIP, backoff, network, client, syncFrequencyMs: o.syncFrequencyMs, dns: readNodeDNS(o, [nodeIP], (m) => consola.warn(m)),
    allocatable: () => allocatableOf(o, capacityOf(o, reporter.facts())), services: servicesFor, events, onStatusChange: (w: PodWorker) => void writeStatus(w),
    othersStarting: (w: PodWorker) => { for (const x of workers.values()) if (x !== w && x.starting) return true; return false; },
  };

  const start = (pod: Obj) => {
    const w = new PodWorker(pod, ctx);
    workers.set(pod.metadata.uid, w);
    w.start();
    consola.info(`started pod ${key(pod)}`);
  };
  /** What an earlier agent left for a pod this one does not run: its recorded processes, then its folders. */
  const stopLeftover = async (uid: string, grace?: number) => {
    await runtime.stopRecorded(uid, grace);
    const dir = volumesDir(o.rootDir, uid);
    await unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true });
    runtime.forget(uid);
  };
  /** Stops a pod's containers (or what an earlier agent recorded of it); its records, volume folders and network go too. */
  const stop = async (uid: string, grace: number) => {
    const w = workers.get(uid);
    if (!w) return stopLeftover(uid, grace);
    await w.terminate(grace);
    // a run recorded by an earlier agent that the worker had not taken over yet (volumes still pending) stops too
    await runtime.stopRecorded(uid, grace);
    await w.removeVolumes();
    await w.tearDownNetwork();
    runtime.forget(uid);
    await writeStatus(w);
    workers.delete(uid);
    written.delete(uid);
    writing.delete(uid);
  };
  /** As the kubelet: once every process of a deleted pod is gone, the deletion is confirmed (grace 0). */
  const confirmDeletion = async (pod: Obj) => {
    await stop(pod.metadata.uid, graceMs(pod));
    try {
      await client.delete(RESOURCES.pods, pod.metadata.name, { namespace: pod.metadata.namespace, gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e)) consola.warn(`failed to delete pod ${key(pod)}: ${(e as Error).message}`);
    }
  };

  const staticPods = new Map<string, Obj>();
  /** An orphaned mirror pod (its manifest is gone) is deleted, as upstream's kubelet does. */
  const deleteMirror = async (pod: Obj) => {
    const mirror = pods.store.get(key(pod));
    if (!mirror || !isMirrorPod(mirror)) return;
    try {
      await client.delete(RESOURCES.pods, mirror.metadata.name, { namespace: mirror.metadata.namespace, gracePeriodSeconds: 0, preconditions: { uid: mirror.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e)) consola.warn(`failed deleting mirror pod ${key(pod)}: ${(e as Error).message}`);
    }
  };
  const ensureMirror = async (pod: Obj) => {
    const mirror = pods.store.get(key(pod));
    if (mirror && isMirrorPod(mirror) && mirror.metadata.annotations[CONFIG_MIRROR] === pod.metadata.uid && !mirror.metadata.deletionTimestamp) return;
    if (!reporter.uid) return;
    try {
      if (mirror) await client.delete(RESOURCES.pods, mirror.metadata.name, { namespace: mirror.metadata.namespace, gracePeriodSeconds: 0, preconditions: { uid: mirror.metadata.uid } });
      await client.create(RESOURCES.pods, mirrorPod(pod, o.nodeName, reporter.uid));
      consola.info(`created mirror pod ${key(pod)}`);
    } catch (e) {
      consola.warn(`failed creating a mirror pod for ${key(pod)}: ${(e as Error).message}`);
    }
  };
  const seenErrors = new Set<string>();
  const warnOnce = (m: string) => { if (!seenErrors.has(m)) { seenErrors.add(m); consola.warn(m); } };
  /** The static pods each source last gave (an unreachable URL keeps its last answer, as upstream). */
  const fromSource: Record<StaticSource | "submitted", Obj[]> = { file: [], http: [], submitted: [] };
  const reconcileStatic = async () => {
    const now = [...fromSource.file, ...fromSource.http, ...fromSource.submitted];
    const uids = new Set(now.map((p) => p.metadata.uid));
    for (const [uid, pod] of staticPods) {
      if (uids.has(uid)) continue;
      staticPods.delete(uid);
      void stop(uid, graceMs(pod));
      await deleteMirror(pod);
    }
    for (const pod of now) {
      if (!staticPods.has(pod.metadata.uid)) {
        staticPods.set(pod.metadata.uid, pod);
        start(pod);
      }
      await ensureMirror(pod);
      const w = workers.get(pod.metadata.uid);
      if (w) await writeStatus(w);
    }
  };
  let reconciling = Promise.resolve();
  const syncStatic = (source: StaticSource | "submitted", read: () => Promise<Obj[]>) => {
    reconciling = reconciling.then(async () => {
      try { fromSource[source] = await read(); } catch (e) { warnOnce((e as Error).message); }
      await reconcileStatic();
    });
    return reconciling;
  };
  /** Reads one source now, then every `periodMs` until the agent stops; resolves after the first read. */
  const poll = async (source: StaticSource | "submitted", periodMs: number, read: () => Promise<Obj[]>) => {
    await syncStatic(source, read);
    loops.push((async () => {
      for (;;) {
        try { await sleep(periodMs, signal); } catch { return; }
        await syncStatic(source, read);
      }
    })());
  };

  pods.addEventHandler({
    add: (pod) => onPod(pod),
    update: (_, pod) => onPod(pod),
    delete: (obj) => {
      const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
      if (!pod || isMirrorPod(pod)) return;
      rejected.delete(pod.metadata.uid);
      void stop(pod.metadata.uid, graceMs(pod));
    },
  });
  function onPod(pod: Obj): void {
    if (isMirrorPod(pod)) {
      const sp = [...staticPods.values()].find((p) => key(p) === key(pod));
      if (sp) void (pod.metadata.deletionTimestamp ? ensureMirror(sp) : writeStatus(workers.get(sp.metadata.uid)!));
      return;
    }
    const w = workers.get(pod.metadata.uid);
    if (pod.metadata.deletionTimestamp) { void confirmDeletion(pod); return; }
    if (w) { w.pod = pod; void writeStatus(w); return; }
    if (!finished(pod) && !rejected.has(pod.metadata.uid)) admitAndStart(pod);
  }

  /** Pods this agent rejected or evicted: Failed for good, never started (again). */
  const rejected = new Set<string>();
  const fail = (pod: Obj, status: Obj) =>
    client.patch(RESOURCES.pods, pod.metadata.name, { status: { ...status, phase: "Failed" } }, "merge", { namespace: pod.metadata.namespace, subresource: "status" })
      .catch((e) => consola.warn(`failed to update status for pod ${key(pod)}: ${(e as Error).message}`));
  const active = () => [...workers.values()].filter((w) => !w.stopping && w.phase !== "Succeeded" && w.phase !== "Failed");
  /** Upstream's admission: a pod refused under pressure or that does not fit beside the running ones is Failed, never started. */
  function admitAndStart(pod: Obj): void {
    const why = eviction.admit(pod) ?? admit(pod, active().map((w) => w.pod), allocatableOf(o, capacityOf(o, reporter.facts())));
    if (!why) return start(pod);
    rejected.add(pod.metadata.uid);
    consola.warn(`rejected pod ${key(pod)}: ${why.reason}: ${why.message}`);
    // upstream's rejectPod: the event says the message, the status "Pod <message>"
    events.event(podRef(pod), "Warning", why.reason, why.message.replace(/^Pod /, ""));
    void fail(pod, why);
  }

  /** One eviction round: observe, update the pressure conditions, evict at most one pod. */
  const evictionRound = async () => {
    const candidates = active().filter((w) => !isStaticPod(w.pod));
    const groups = new Map(candidates.flatMap((w) => w.containers.flatMap((c) => (c.pgid ? [[c.pgid, c.name] as const] : []))));
    const usage = memoryByGroup(new Set(groups.keys()));
    const byPod = candidates.map((w) => {
      const containerMemory = new Map(w.containers.map((c) => [c.name, c.pgid ? usage.get(c.pgid) ?? 0 : 0]));
      return { pod: w.pod, memoryBytes: [...containerMemory.values()].reduce((a, b) => a + b, 0), containerMemory };
    });
    const allocatableMemory = allocatableOf(o, capacityOf(o, reporter.facts())).memory;
    const before = [...eviction.conditions()].join();
    const decision = eviction.synchronize(observe(o.rootDir, allocatableMemory, byPod.reduce((a, p) => a + p.memoryBytes, 0)), byPod);
    if ([...eviction.conditions()].join() !== before) await reporter.update().catch(() => {});
    if (!decision) return;
    const w = workers.get(decision.pod.metadata.uid);
    if (!w) return;
    consola.warn(`evicting pod ${key(w.pod)}: ${decision.message}`);
    w.record("Warning", "Evicted", decision.message);
    rejected.add(w.uid);
    w.evicted = { reason: "Evicted", message: decision.message };
    await stop(w.uid, decision.gracePeriodSeconds * 1000);
  };

  factory.start();
  if (!(await factory.waitForCacheSync(signal))) return shutdown();
  synced = true;
  consola.info(`node ${o.nodeName} (${nodeIP}) synced ${pods.store.size} pods`);
  loops.push((async () => {
    while (!signal.aborted) {
      try { await evictionRound(); } catch (e) { consola.warn(`eviction manager: ${(e as Error).message}`); }
      try { await sleep(o.housekeepingIntervalMs, signal); } catch { return; }
    }
  })());
  const readSubmitted = async () => readStaticPods(submitted.dir, o.nodeName, warnOnce, "http");
  const sources: Promise<void>[] = [syncStatic("submitted", readSubmitted)];
  sourcesUp();
  if (o.podManifestPath) sources.push(poll("file", o.fileCheckFrequencyMs, async () => readStaticPods(o.podManifestPath!, o.nodeName, warnOnce)));
  if (o.manifestURL) sources.push(poll("http", o.httpCheckFrequencyMs, () => fetchStaticPods(o.manifestURL!, o.manifestURLHeader, o.nodeName, warnOnce)));
  // every source read once (upstream's sourcesReady): what an earlier agent left for pods neither bound here
  // nor static any more goes — its recorded processes, folders and network
  await Promise.all(sources);
  const known = new Set([...pods.store.list().map((p: Obj) => p.metadata.uid), ...staticPods.keys()]);
  for (const uid of runtime.podFolders()) if (!known.has(uid)) void stopLeftover(uid);
  await network.collect(new Set(workers.keys()));
  await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  return shutdown();

  /**
   * As upstream's kubelet: the pods keep running (their shims outlive the agent); the next agent adopts
   * them. Inside `kite up` (stopPodsOnExit) the whole cluster stops: every pod's processes go too.
   */
  async function shutdown(): Promise<void> {
    factory.stop();
    proxyFactory.stop();
    // a stopping cluster does not wait out 30 s grace periods: SIGTERM, then SIGKILL after at most 2 s
    if (o.stopPodsOnExit) await Promise.all([...workers.keys()].map((uid) => stop(uid, Math.min(graceMs(workers.get(uid)!.pod), STOP_GRACE_MS))));
    await Promise.all(loops);
    await Promise.all(writing.values());
    // the events recorded last (Killing) go out, but an unreachable server does not hold the agent up
    broadcaster.shutdown();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([broadcaster.flush(), new Promise((r) => { timer = setTimeout(r, EVENTS_FLUSH_MS); })]);
    clearTimeout(timer);
    await proxy?.stop(o.stopPodsOnExit === true);
    runtime.close();
    if (workers.size) consola.info(`leaving ${workers.size} pods running for the next agent on ${o.rootDir}`);
    await servers.stop();
  }
}
