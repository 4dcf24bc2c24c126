// API Priority and Fairness (--enable-priority-and-fairness): each request is classified by the
// FlowSchemas into a priority level and a flow; exempt levels run it at once, limited ones hold it to
// their share of the server's concurrency, queuing (fairly across flows, ./queueset.ts) or rejecting.
import type { UserInfo } from "../auth/user.ts";
import { ANONYMOUS } from "../auth/user.ts";
import { type Admitted, type Limiter, type RequestKind, tooManyRequests } from "../api/limiter.ts";
import type { RequestInfo } from "../api/requestinfo.ts";
import type { Registry } from "../registry/registry.ts";
import type { Obj } from "../registry/types.ts";
import { inform } from "../server/bootstrap/informer.ts";
import { MANDATORY_LEVELS, MANDATORY_SCHEMAS } from "./bootstrap.ts";
import { byPrecedence, flowKey, schemaMatches } from "./match.ts";
import type { FlowMetrics } from "./metrics.ts";
import { type LevelShape, QueueSet } from "./queueset.ts";

export const GROUP = "flowcontrol.apiserver.k8s.io";
const FS_HEADER = "X-Kubernetes-PF-FlowSchema-UID";
const PL_HEADER = "X-Kubernetes-PF-PriorityLevel-UID";

interface Level { obj: Obj; exempt: boolean; set?: QueueSet }
interface Classification { labels: string[]; executed: string[]; turnedAway: string[]; headers: [string, string][] }

export class PriorityAndFairness implements Limiter {
  private schemaObjs = new Map<string, Obj>();
  private levelObjs = new Map<string, Obj>();
  private schemas: Obj[] = [];
  private levels = new Map<string, Level>();
  private stops: (() => void)[] = [];
  private classified = new WeakMap<Obj, WeakMap<Obj, Classification>>();

  /**
   * `concurrency` is the server's total (--max-requests-inflight + --max-mutating-requests-inflight);
   * `waitLimitMs` how long a request may wait in a queue (upstream: a quarter of --request-timeout).
   */
  constructor(private registry: Registry, private concurrency: number, private waitLimitMs: number, private metrics: FlowMetrics) {
    this.rebuild();
  }

  /** Follows the stored objects; until they are read (and whenever one is missing) the mandatory ones stand in. */
  async start(): Promise<void> {
    const follow = (resource: string, into: Map<string, Obj>) => inform(this.registry.lookup(GROUP, "v1beta1", resource)!, "", (type, obj) => {
      if (type === "DELETED") into.delete(obj.metadata.name);
      else into.set(obj.metadata.name, obj);
      this.rebuild();
    });
    this.stops.push(await follow("prioritylevelconfigurations", this.levelObjs), await follow("flowschemas", this.schemaObjs));
  }

  stop() { this.stops.forEach((s) => s()); }

  private rebuild() {
    const withMandatory = (stored: Map<string, Obj>, mandatory: Obj[]) => {
      const all = new Map(stored);
      for (const m of mandatory) if (!all.has(m.metadata.name)) all.set(m.metadata.name, m);
      return [...all.values()];
    };
    const levelObjs = withMandatory(this.levelObjs, MANDATORY_LEVELS);
    const shares = (pl: Obj) => (pl.spec?.type === "Limited" ? Math.max(1, pl.spec.limited?.assuredConcurrencyShares ?? 30) : 0);
    const total = levelObjs.reduce((t, pl) => t + shares(pl), 0);
    const levels = new Map<string, Level>();
    this.metrics.limit.reset();
    for (const pl of levelObjs) {
      const name = pl.metadata.name;
      if (pl.spec?.type !== "Limited") { levels.set(name, { obj: pl, exempt: true }); continue; }
      const response = pl.spec.limited?.limitResponse;
      const q = response?.queuing ?? {};
      const shape: LevelShape = {
        limit: Math.ceil((this.concurrency * shares(pl)) / total),
        reject: response?.type !== "Queue",
        queues: q.queues ?? 64, handSize: q.handSize ?? 8, queueLengthLimit: q.queueLengthLimit ?? 50,
      };
      const set = this.levels.get(name)?.set;
      if (set) set.configure(shape);
      levels.set(name, { obj: pl, exempt: false, set: set ?? new QueueSet(shape) });
      this.metrics.limit.add([name], shape.limit);
    }
    this.levels = levels;
    // a schema whose level does not exist (dangling) matches nothing
    this.schemas = byPrecedence(withMandatory(this.schemaObjs, MANDATORY_SCHEMAS)).filter((fs) => levels.has(fs.spec?.priorityLevelConfiguration?.name));
  }

  admit(info: RequestInfo, user: UserInfo | undefined, _kind: RequestKind): Admitted | Promise<Admitted> {
    const who = user ?? ANONYMOUS;
    const fs = this.schemas.find((s) => schemaMatches(s, info, who)) ?? this.schemas[this.schemas.length - 1]!;
    const level = this.levels.get(fs.spec.priorityLevelConfiguration.name)!;
    const c = this.classification(fs, level);
    const m = this.metrics;
    const running = (release: () => void): Admitted => {
      m.dispatched.add(c.labels);
      m.executing.add(c.labels);
      return { headers: c.headers, release: () => { m.executing.add(c.labels, -1); release(); } };
    };
    if (level.exempt) return running(() => {});
    const t0 = performance.now();
    const entered = level.set!.enter(flowKey(fs, info, who), this.waitLimitMs);
    if (!(entered instanceof Promise)) {
      if (entered.outcome === "dispatched") { m.wait.observe(c.executed, 0); return running(entered.release); }
      return this.rejected(c, entered.outcome, t0);
    }
    m.inQueue.add(c.labels);
    return entered.then(({ outcome, release }) => {
      m.inQueue.add(c.labels, -1);
      if (outcome !== "dispatched") return this.rejected(c, outcome, t0);
      m.wait.observe(c.executed, (performance.now() - t0) / 1000);
      return running(release);
    });
  }

  /** A schema and level's metric labels and response headers, made once per pair of objects. */
  private classification(fs: Obj, level: Level): Classification {
    let byLevel = this.classified.get(fs);
    if (!byLevel) this.classified.set(fs, (byLevel = new WeakMap()));
    let c = byLevel.get(level.obj);
    if (!c) {
      const labels = [fs.metadata.name, level.obj.metadata.name];
      const headers: [string, string][] = [];
      if (fs.metadata.uid) headers.push([FS_HEADER, fs.metadata.uid]);
      if (level.obj.metadata.uid) headers.push([PL_HEADER, level.obj.metadata.uid]);
      byLevel.set(level.obj, (c = { labels, executed: [...labels, "true"], turnedAway: [...labels, "false"], headers }));
    }
    return c;
  }

  private rejected(c: Classification, reason: string, t0: number): never {
    this.metrics.rejected.add([...c.labels, reason]);
    this.metrics.wait.observe(c.turnedAway, (performance.now() - t0) / 1000);
    throw tooManyRequests(Object.fromEntries(c.headers));
  }
}
