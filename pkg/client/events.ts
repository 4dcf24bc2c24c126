// Event recording (client-go tools/events): events.k8s.io/v1 Events written in the background. A repeat of
// an event (same type, action, reason, reporting controller and instance, regarding and related objects;
// the note is not compared, as upstream) becomes a series on the first event instead of a new object: the
// second occurrence PATCHes series {count: 2, lastObservedTime}, later ones only count, and a heartbeat
// PATCHes every open series (30 minutes, upstream's refreshTime); a series quiet for 6 minutes is written
// one last time and forgotten. Writes go through an EventQueue (eventqueue.ts): a caller never waits, and
// up to maxCached writes may wait (upstream drops none).
// (Upstream's scheduler falls back to core/v1 Events only when the server lacks events.k8s.io/v1; every
// Kite server serves it, so this writes events.k8s.io/v1 only.)
import { hostname } from "node:os";
import { ApiError, isAlreadyExists, isNotFound, type Client, type Obj } from "./client.ts";
import { EventQueue, type EventQueueOptions, type Pending } from "./eventqueue.ts";
import { log } from "./log.ts";
import { RESOURCES } from "./resources.ts";
import { microTimeNow } from "./time.ts";

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export type EventType = "Normal" | "Warning";

export interface EventBroadcasterOptions extends EventQueueOptions {
  /** How often open series are PATCHed with their count (ms; 30 minutes). */
  refreshIntervalMs?: number;
  /** A series quiet this long is written a last time and forgotten, as is any event this old (ms; 6 minutes). */
  finishAfterMs?: number;
  /** Events remembered for aggregation at most; the oldest are forgotten first. */
  maxCached?: number;
}

/** A reference to an object from the object itself (it must carry kind and apiVersion, as informers' do). */
export function referenceTo(obj: Obj): ObjectReference {
  const m = obj.metadata ?? {};
  const ref: ObjectReference = { kind: obj.kind, namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: obj.apiVersion, resourceVersion: m.resourceVersion };
  for (const k of Object.keys(ref) as (keyof ObjectReference)[]) if (ref[k] === undefined || ref[k] === "") delete ref[k];
  return ref;
}

const asReference = (o: Obj | ObjectReference): ObjectReference => ("metadata" in o ? referenceTo(o as Obj) : (o as ObjectReference));

/** Where the aggregation key reads a reference: every field, in a fixed order (fromRefKey reads it back). */
const REF_FIELDS = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"] as const;
const refKey = (r?: ObjectReference) => (r ? REF_FIELDS.map((f) => r[f]) : null);
function fromRefKey(k: (string | null)[] | null): ObjectReference | undefined {
  if (!k) return undefined;
  const ref: ObjectReference = {};
  REF_FIELDS.forEach((f, i) => { if (k[i] !== null) ref[f] = k[i]!; });
  return ref;
}

/**
 * One remembered event. Up to 10,000 are kept, so an entry holds only what its key does not: the event is
 * read back from the key when it is written (10,000 Scheduled events: 5.8 MB, 7.6 MB with whole events).
 */
class Entry implements Pending {
  queued = false;
  writing = false;
  again = false;
  tries = 0;
  series?: { count: number; lastObservedTime: string };
  /** Wall-clock ms of the series' last occurrence. */
  lastSeenAt: number;

  constructor(
    readonly key: string, readonly namespace: string, readonly eventName: string, readonly reason: string,
    readonly eventTime: string, readonly note: string,
    /** Wall-clock ms of the event's creation. */
    readonly createdAt: number,
  ) {
    this.lastSeenAt = createdAt;
  }

  /** `<namespace>/<name>`, for log lines. */
  get name(): string { return `${this.namespace}/${this.eventName}`; }

  /** The event as recorded (with its series, if any). */
  event(series = this.series): Obj {
    const [type, action, reason, reportingController, reportingInstance, regarding, related] = JSON.parse(this.key);
    const ev: Obj = {
      apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: this.eventName, namespace: this.namespace },
      eventTime: this.eventTime, reportingController, reportingInstance, action, reason, regarding: fromRefKey(regarding), note: this.note, type,
    };
    if (related) ev.related = fromRefKey(related);
    if (series) ev.series = series;
    return ev;
  }
}

let lastNanos = 0n;
/** Unix nanoseconds, strictly increasing in this process (event names are `<object>.<hex nanos>`). */
export function uniqueNanos(): bigint {
  const t = performance.timeOrigin + performance.now();
  let n = BigInt(Math.floor(t)) * 1_000_000n + BigInt(Math.floor((t % 1) * 1e6));
  if (n <= lastNanos) n = lastNanos + 1n;
  return (lastNanos = n);
}

export class EventBroadcaster {
  private readonly cache = new Map<string, Entry>();
  private readonly queue: EventQueue<Entry>;
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private closed = false;
  private readonly o: Required<Pick<EventBroadcasterOptions, "refreshIntervalMs" | "finishAfterMs" | "maxCached">>;

  constructor(readonly client: Client, options: EventBroadcasterOptions = {}) {
    this.o = { refreshIntervalMs: 30 * 60_000, finishAfterMs: 6 * 60_000, maxCached: 10_000, ...options };
    // Upstream writes each new event from its own goroutine: nothing waits in a bounded queue, so a burst
    // (a Scheduled event per pod of thousands) is written in full. Here every remembered event may wait.
    this.queue = new EventQueue((e) => this.write(e), { maxQueued: this.o.maxCached, ...options });
    this.timers.push(setInterval(() => this.refreshSeries(), this.o.refreshIntervalMs));
    this.timers.push(setInterval(() => this.finishSeries(), this.o.finishAfterMs));
    for (const t of this.timers) (t as { unref?: () => void }).unref?.();
  }

  /** A recorder for one controller; the instance defaults to `<controller>-<hostname>`, as upstream. */
  newRecorder(reportingController: string, reportingInstance = `${reportingController}-${hostname()}`): EventRecorder {
    return new EventRecorder(this, reportingController, reportingInstance);
  }

  /** Resolves once every queued write has been made (or given up). */
  flush(): Promise<void> { return this.queue.flush(); }

  /** Takes no more events and stops the heartbeats; writes already queued still go out. */
  shutdown(): void {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
  }

  /** Aggregates one event (recordToSink) and queues the write it needs. */
  record(event: Obj): void {
    if (this.closed) return;
    const key = JSON.stringify([event.type, event.action, event.reason, event.reportingController, event.reportingInstance, refKey(event.regarding), refKey(event.related)]);
    const now = Date.now();
    const seen = this.cache.get(key);
    if (seen) {
      seen.lastSeenAt = now;
      const series = seen.series;
      if (series) {
        series.count++;
        series.lastObservedTime = microTimeNow();
        return; // written by the heartbeat
      }
      seen.series = { count: 2, lastObservedTime: microTimeNow() };
      return this.queue.enqueue(seen);
    }
    const entry = new Entry(key, event.metadata.namespace, event.metadata.name, event.reason, event.eventTime, event.note, now);
    this.cache.set(key, entry);
    if (this.cache.size > this.o.maxCached) this.forgetOldest();
    this.queue.enqueue(entry);
  }

  private forgetOldest(): void {
    const [key, oldest] = this.cache.entries().next().value!;
    this.cache.delete(key);
    if (oldest.series) this.queue.enqueue(oldest); // its last count
  }

  /** One write: a PATCH of the series (a create if the event is gone), else a create. */
  private async write(e: Entry): Promise<Error | undefined> {
    const ns = e.namespace;
    const series = e.series ? { ...e.series } : undefined;
    try {
      if (series) {
        try {
          await this.client.patch(RESOURCES.events, e.eventName, { series }, "strategic", { namespace: ns });
          return;
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      await this.client.create(RESOURCES.events, e.event(series), { namespace: ns });
    } catch (err) {
      // A series whose first event is being created right now: try again (upstream's rule).
      if (!(err instanceof ApiError) || (series !== undefined && isAlreadyExists(err))) return err as Error;
      if (!isAlreadyExists(err)) log(`Server rejected event '${e.name}' (reason ${e.reason}): '${(err as Error).message}' (will not retry!)`);
    }
  }

  /** The heartbeat: every open series is written with its current count. */
  private refreshSeries(): void {
    for (const e of this.cache.values()) if (e.series) this.queue.enqueue(e);
  }

  /** Series quiet for finishAfterMs are written a last time and forgotten; so are single events that old. */
  private finishSeries(): void {
    const limit = Date.now() - this.o.finishAfterMs;
    for (const [key, e] of this.cache) {
      if (e.series ? e.lastSeenAt >= limit : e.createdAt >= limit) continue;
      this.cache.delete(key);
      if (e.series) this.queue.enqueue(e);
    }
  }
}

/** Records events of one reporting controller (tools/events EventRecorder). */
export class EventRecorder {
  constructor(private readonly broadcaster: EventBroadcaster, readonly reportingController: string, readonly reportingInstance: string) {}

  /**
   * Records that `action` on `regarding` happened for `reason` (upstream's Eventf, with the note already
   * formatted). Objects must carry kind and apiVersion (informers' do); references are taken as given.
   */
  event(regarding: Obj | ObjectReference, related: Obj | ObjectReference | undefined, type: EventType, reason: string, action: string, note: string): void {
    if (type !== "Normal" && type !== "Warning") {
      log(`Unsupported event type: '${type}'`);
      return;
    }
    const ref = asReference(regarding);
    const event: Obj = {
      apiVersion: "events.k8s.io/v1", kind: "Event",
      metadata: { name: `${ref.name}.${uniqueNanos().toString(16)}`, namespace: ref.namespace || "default" },
      eventTime: microTimeNow(),
      reportingController: this.reportingController, reportingInstance: this.reportingInstance,
      action, reason, regarding: ref, note, type,
    };
    if (related) event.related = asReference(related);
    this.broadcaster.record(event);
  }
}
