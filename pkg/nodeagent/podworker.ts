// One pod on this node: its network, its volumes, its containers' runners (init containers one after
// another, each to completion, then the containers together), its status, its stop. The agent creates
// one per pod uid and calls terminate() when it is deleted.
import { consola } from "consola";
import { rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "../client/client.ts";
import type { CoreEventRecorder } from "../client/corev1events.ts";
import { formatResolvConf, podResolvConf, type NodeDNS, type PodLike } from "../dns/resolvconf.ts";
import { sleep } from "../client/ratelimit.ts";
import { rfc3339 } from "../client/time.ts";
import type { CrashLoopBackoff } from "./backoff.ts";
import { ContainerRunner, type ContainerContext } from "./container.ts";
import { containerEnv } from "./env.ts";
import { podRef, recordFor, type RecordEvent } from "./events.ts";
import { serviceEnv } from "./env-services.ts";
import type { PodNetwork, PodNetworks } from "./network/podnetworks.ts";
import type { Obj } from "./node.ts";
import { mergeConditions, podConditions, podPhase, qosClass } from "./podstatus.ts";
import type { ContainerInputs } from "./runtime/config.ts";
import type { Mount } from "./runtime/process.ts";
import { podDir } from "./runtime/records.ts";
import type { ProcessRuntime } from "./runtime/runtime.ts";
import type { Allocatable, PodAddresses } from "./volumes/downward.ts";
import { PodVolumes } from "./volumes/manager.ts";
import { containerMounts } from "./volumes/mounts.ts";
import { ApiObjects } from "./volumes/objects.ts";

/** upstream's pod worker waits 10 s after a failed sync before the next (a shorter --sync-frequency wins). */
const RETRY_MS = 10_000;
/**
 * How long a new pod's first status (Pending, its containers ContainerCreating) waits for something to
 * say: a pod whose containers start (or fail to) within it gets one status write instead of two.
 */
const FIRST_STATUS_WAIT_MS = 1000;
/**
 * While the agent is still starting other pods (a burst bound at once), that wait goes on, looked at again
 * every FIRST_STATUS_RECHECK_MS, up to FIRST_STATUS_MAX_WAIT_MS (upstream's pod startup SLO): the status
 * writes the burst would make and wait behind are what delays its pods, so each says Running once.
 */
const FIRST_STATUS_RECHECK_MS = 250;
const FIRST_STATUS_MAX_WAIT_MS = 5000;

export interface PodWorkerContext {
  rootDir: string;
  runtime: ProcessRuntime;
  hostIP: string;
  backoff: CrashLoopBackoff;
  client: Client;
  /** --sync-frequency: how often volume files are brought up to date with their objects. */
  syncFrequencyMs: number;
  /** The node's allocatable (resourceFieldRef's default limits). */
  allocatable: () => Allocatable;
  /** The services of a namespace and of default (their env vars), once the agent has listed them. */
  services: (namespace: string) => Promise<Obj[]>;
  network: PodNetworks;
  /** --cluster-dns, --cluster-domain and the node's resolv.conf: what pods' /etc/resolv.conf is made of. */
  dns: NodeDNS;
  /** The agent's event recorder (source kubelet). */
  events: CoreEventRecorder;
  /** Called (at most once per tick) when the pod's status may have changed. */
  onStatusChange: (w: PodWorker) => void;
  /** Whether another pod than `w` is still starting (has not said its first status). */
  othersStarting: (w: PodWorker) => boolean;
}

export class PodWorker {
  readonly initContainers: ContainerRunner[] = [];
  readonly containers: ContainerRunner[] = [];
  readonly startTime = new Date();
  readonly volumes: PodVolumes;
  private readonly objects: ApiObjects;
  private readonly stopped = new AbortController();
  private terminating?: Promise<void>;
  /** Set when the agent evicts the pod: it is Failed with this reason and message from then on. */
  evicted?: { reason: string; message: string };
  private pending = false;
  private firstStatus?: ReturnType<typeof setTimeout>;
  private resolvConfWritten?: Promise<void>;
  private network?: PodNetwork;
  private networkSetUp?: Promise<void>;
  private volumesSetUp?: Promise<boolean>;

  /** Records an event about the pod. */
  readonly record: RecordEvent;

  constructor(public pod: Obj, private readonly ctx: PodWorkerContext) {
    this.record = recordFor(ctx.events, podRef(pod));
    this.objects = new ApiObjects(ctx.client);
    this.volumes = new PodVolumes(() => this.pod, { rootDir: ctx.rootDir, objects: this.objects, allocatable: ctx.allocatable });
  }

  get uid(): string { return this.pod.metadata.uid; }

  /** The pod's address once its network is there (the host's for a hostNetwork pod). */
  get podIP(): string | undefined { return this.network?.ip; }

  /** The pod's own network namespace (a path), or undefined when it runs on the host's network. */
  get netns(): string | undefined { return this.network?.netns; }

  private get retryMs(): number { return Math.min(RETRY_MS, this.ctx.syncFrequencyMs); }

  /** True until the pod's first status is due: its containers have not said anything yet. */
  get starting(): boolean { return this.firstStatus !== undefined; }

  private changed = () => {
    clearTimeout(this.firstStatus);
    this.firstStatus = undefined;
    if (this.pending) return;
    this.pending = true;
    // after this macrotask: a start that resolves its env and volumes without I/O is one write, not two
    setImmediate(() => { this.pending = false; this.ctx.onStatusChange(this); });
  };

  /** The pod's addresses (its status and its env's status.hostIP/podIP/podIPs). */
  addresses(): PodAddresses {
    return { hostIP: this.ctx.hostIP, podIPs: this.podIP ? [this.podIP] : [] };
  }

  start(): void {
    const ctx: ContainerContext = {
      rootDir: this.ctx.rootDir, runtime: this.ctx.runtime, backoff: this.ctx.backoff, onChange: this.changed,
      inputs: (c: Obj) => this.inputs(c), retryMs: this.retryMs, podIP: () => this.podIP ?? this.ctx.hostIP, events: this.ctx.events,
    };
    for (const c of this.pod.spec.initContainers ?? []) this.initContainers.push(new ContainerRunner(this.pod, c, ctx, true));
    for (const c of this.pod.spec.containers ?? []) this.containers.push(new ContainerRunner(this.pod, c, ctx));
    this.networkSetUp = this.setUpNetwork(ctx);
    this.volumesSetUp = this.prepareVolumes();
    void Promise.all([this.volumesSetUp, this.networkSetUp]).then(([ready]) => {
      if (!ready || this.stopped.signal.aborted) return;
      void this.run();
      if (this.volumes.syncs) void this.syncVolumes();
    });
    const latest = Date.now() + FIRST_STATUS_MAX_WAIT_MS;
    const due = () => {
      if (Date.now() < latest && this.ctx.othersStarting(this)) this.firstStatus = setTimeout(due, FIRST_STATUS_RECHECK_MS);
      else this.changed();
    };
    this.firstStatus = setTimeout(due, FIRST_STATUS_WAIT_MS);
  }

  /** Init containers in order, each until it succeeded (a failure under restartPolicy Never fails the pod), then the containers. */
  private async run(): Promise<void> {
    for (const r of this.initContainers) {
      await r.run();
      if (this.stopped.signal.aborted || !r.succeeded) return;
    }
    if (this.stopped.signal.aborted) return;
    for (const r of this.containers) void r.run();
  }

  /** The pod's network (its containers all join it, their env has its address), retried with backoff until made. */
  private async setUpNetwork(ctx: ContainerContext): Promise<void> {
    for (let delay = 1000; !this.stopped.signal.aborted; delay = Math.min(2 * delay, 30_000)) {
      try {
        this.network = await this.ctx.network.setUp(this.pod);
        ctx.netns = this.network.netns;
        // no status write of its own: the containers' next state (running, or why they wait) carries the podIP
        return;
      } catch (e) {
        consola.warn(`Failed to create pod sandbox for pod ${this.key}: ${(e as Error).message}`);
        this.record("Warning", "FailedCreatePodSandBox", `Failed to create pod sandbox: ${(e as Error).message}`);
        await sleep(delay, this.stopped.signal).catch(() => {});
      }
    }
  }

  /** True once terminate() was called. */
  get stopping(): boolean { return this.terminating !== undefined; }

  /** Sets the volumes up, trying again until they are (containers wait meanwhile); false once stopped. */
  private async prepareVolumes(): Promise<boolean> {
    for (;;) {
      try {
        await this.volumes.setUp();
        return !this.stopped.signal.aborted;
      } catch (e) {
        if (this.stopped.signal.aborted) return false;
        this.record("Warning", "FailedMount", (e as Error).message);
        for (const r of [...this.initContainers, ...this.containers]) r.creating((e as Error).message);
      }
      try { await sleep(this.retryMs, this.stopped.signal); } catch { return false; }
    }
  }

  /** Every --sync-frequency: the volume files follow their ConfigMaps, Secrets, tokens and the pod's metadata. */
  private async syncVolumes(): Promise<void> {
    for (;;) {
      try { await sleep(this.ctx.syncFrequencyMs, this.stopped.signal); } catch { return; }
      try { await this.volumes.sync(); } catch (e) { consola.warn(`pod ${this.key}: ${(e as Error).message}`); }
    }
  }

  private get key(): string { return `${this.pod.metadata.namespace}/${this.pod.metadata.name}`; }

  /** A container's environment and mounts from the pod, its objects and its volumes now. */
  private async inputs(c: Obj): Promise<ContainerInputs> {
    const pod = this.pod;
    const services = await this.ctx.services(pod.metadata.namespace);
    const env = await containerEnv(pod, c, {
      objects: this.objects, addresses: this.addresses(), allocatable: this.ctx.allocatable,
      serviceEnv: serviceEnv(services, pod.metadata.namespace, pod.spec.enableServiceLinks !== false),
      warn: (reason, message) => { consola.warn(`pod ${this.key}: ${reason}: ${message}`); this.record("Warning", reason, message); },
    });
    return { env, mounts: [...(await this.resolvConfMounts()), ...containerMounts(c, this.volumes.prepared, env)] };
  }

  private get resolvConfPath(): string { return join(podDir(this.ctx.rootDir, this.uid), "resolv.conf"); }

  /**
   * The pod's /etc/resolv.conf per its dnsPolicy, written once as the sandbox's is, bind-mounted into each
   * container's mount namespace (none without mount namespaces: the host's file is what they see).
   */
  private async resolvConfMounts(): Promise<Mount[]> {
    if (!this.ctx.runtime.sandbox.unshare) return [];
    // once for all the pod's containers (written off the event loop); a failed write is tried again
    this.resolvConfWritten ??= this.writeResolvConf().catch((e) => { this.resolvConfWritten = undefined; throw e; });
    await this.resolvConfWritten;
    return [{ hostPath: this.resolvConfPath, containerPath: "/etc/resolv.conf", readOnly: false }];
  }

  private async writeResolvConf(): Promise<void> {
    const { conf, events } = podResolvConf(this.pod as PodLike, this.ctx.dns);
    for (const e of events) { consola.warn(`pod ${this.key}: ${e.reason}: ${e.message}`); this.record(e.type, e.reason, e.message); }
    await mkdir(podDir(this.ctx.rootDir, this.uid), { recursive: true });
    await writeFile(this.resolvConfPath, formatResolvConf(conf));
  }

  /** Stops every container (preStop, SIGTERM, SIGKILL after graceMs); resolves when all are gone. */
  terminate(graceMs: number): Promise<void> {
    this.stopped.abort();
    clearTimeout(this.firstStatus);
    this.firstStatus = undefined;
    // every call reaches the containers: a later one with less time hastens a stop under way
    const stops = [...this.initContainers, ...this.containers].map((c) => c.stop(graceMs));
    this.terminating ??= Promise.all(stops).then(() => this.ctx.backoff.forget(`${this.uid}/`));
    return this.terminating;
  }

  /** After terminate(), when the pod is gone for good: its volume folders are unmounted and removed. */
  async removeVolumes(): Promise<void> {
    // a mount still under way when the pod stopped is undone too
    await this.volumesSetUp;
    try { await this.volumes.tearDown(); } catch (e) { consola.warn(`pod ${this.key}: failed to remove its volumes: ${(e as Error).message}`); }
    rmSync(this.resolvConfPath, { force: true });
  }

  /** After terminate(), when the pod is gone for good: its veth, namespace and address. */
  async tearDownNetwork(): Promise<void> {
    await this.networkSetUp;
    await this.ctx.network.tearDown(this.uid);
  }

  /** The pod's phase alone (what admission and eviction ask of every pod: no conditions, no times). */
  get phase(): string {
    if (this.evicted) return "Failed";
    return podPhase(this.pod.spec, [...this.containers, ...this.initContainers].map((c) => c.status()));
  }

  /** The status to report, merged over `current` (the pod's status in the API server). */
  status(current: Obj = {}): Obj {
    const initStatuses = this.initContainers.map((c) => c.status());
    // upstream sorts containerStatuses by name; init containers keep the spec's order
    const statuses = this.containers.map((c) => c.status()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const phase = this.evicted ? "Failed" : podPhase(this.pod.spec, [...statuses, ...initStatuses]);
    const now = rfc3339(new Date());
    const a = this.addresses();
    const conditions = current.conditions ?? [];
    return {
      phase,
      conditions: mergeConditions(conditions, podConditions(this.pod.spec, initStatuses, statuses, phase, conditions), now),
      hostIP: a.hostIP,
      ...(a.podIPs.length ? { podIP: a.podIPs[0], podIPs: a.podIPs.map((ip) => ({ ip })) } : {}),
      startTime: current.startTime ?? rfc3339(this.startTime),
      ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
      containerStatuses: statuses,
      qosClass: qosClass(this.pod.spec),
      ...this.evicted,
    };
  }
}
