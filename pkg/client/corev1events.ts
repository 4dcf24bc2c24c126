// core/v1 Event recording (client-go tools/record), as upstream's kubelet uses it: each event passes the
// correlator before it is written.
// - Spam filter: per source and object, a bucket of 25 events refilled one per 5 minutes; an event
//   finding it empty is dropped.
// - Aggregation: once 10 different messages of the same source, object, type and reason were seen within
//   10 minutes, further ones become one event whose message is "(combined from similar events): <msg>".
// - Deduplication: a repeat (same source, object with fieldPath, type, reason and message) is no new
//   object: the first one's count goes up and it is PATCHed (count, lastTimestamp, message).
// Writes go through an EventQueue (eventqueue.ts), shared with the events.k8s.io/v1 broadcaster: a caller
// never waits, a count that moves while its write waits is written once, at its latest value.
import { ApiError, isAlreadyExists, isNotFound, type Client, type Obj } from "./client.ts";
import { EventQueue, pending, type EventQueueOptions, type Pending } from "./eventqueue.ts";
import { referenceTo, uniqueNanos, type EventType, type ObjectReference } from "./events.ts";
import { log } from "./log.ts";
import { TokenBucket } from "./ratelimit.ts";
import { RESOURCES } from "./resources.ts";
import { rfc3339 } from "./time.ts";

/** Who records (core/v1 EventSource): the kubelet is `{component: "kubelet", host: <node name>}`. */
export interface EventSource { component: string; host?: string }

/** Upstream's correlator settings. */
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;
const MAX_SIMILAR = 10;
const SIMILAR_WINDOW_MS = 10 * 60_000;
const MAX_CACHED = 4096;
export const COMBINED_PREFIX = "(combined from similar events): ";

interface Entry extends Pending {
  event: Obj;
  /** The object was created (later writes PATCH it). */
  created: boolean;
}

/** A Map that forgets its least recently used keys beyond `max` (upstream's LRU caches). */
class Lru<V> extends Map<string, V> {
  constructor(private readonly max: number) { super(); }
  touch(key: string): V | undefined {
    const v = super.get(key);
    if (v !== undefined) { super.delete(key); super.set(key, v); }
    return v;
  }
  override set(key: string, v: V): this {
    super.set(key, v);
    if (this.size > this.max) super.delete(this.keys().next().value!);
    return this;
  }
}

const objectKey = (e: Obj) => {
  const o: ObjectReference = e.involvedObject;
  return [e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion];
};

export class CoreEventBroadcaster {
  private readonly queue: EventQueue<Entry>;
  private readonly spam = new Lru<TokenBucket>(MAX_CACHED);
  private readonly similar = new Lru<{ messages: Set<string>; since: number }>(MAX_CACHED);
  private readonly seen = new Lru<Entry>(MAX_CACHED);
  private closed = false;

  constructor(readonly client: Client, options: EventQueueOptions = {}) {
    this.queue = new EventQueue((e) => this.write(e), options);
  }

  newRecorder(source: EventSource): CoreEventRecorder { return new CoreEventRecorder(this, source); }

  /** Resolves once every queued write has been made (or given up). */
  flush(): Promise<void> { return this.queue.flush(); }

  /** Takes no more events; writes already queued still go out. */
  shutdown(): void { this.closed = true; }

  /** Correlates one event (spam filter, aggregation, deduplication) and queues the write it needs. */
  record(event: Obj): void {
    if (this.closed) return;
    const source = JSON.stringify(objectKey(event));
    let bucket = this.spam.touch(source);
    if (!bucket) this.spam.set(source, (bucket = new TokenBucket(SPAM_QPS, SPAM_BURST)));
    if (!bucket.tryAccept()) return;

    const now = Date.now();
    const aggregateKey = JSON.stringify([...objectKey(event), event.type, event.reason, event.reportingComponent, event.reportingInstance]);
    let group = this.similar.touch(aggregateKey);
    if (!group || now - group.since > SIMILAR_WINDOW_MS) this.similar.set(aggregateKey, (group = { messages: new Set(), since: now }));
    group.messages.add(event.message);
    let key: string;
    if (group.messages.size < MAX_SIMILAR) {
      key = JSON.stringify([...objectKey(event), event.involvedObject.fieldPath, event.type, event.reason, event.message]);
    } else {
      key = aggregateKey;
      event = { ...event, message: COMBINED_PREFIX + event.message };
    }

    const entry = this.seen.touch(key);
    if (entry) {
      const ev = entry.event;
      ev.count++;
      ev.lastTimestamp = event.lastTimestamp;
      ev.message = event.message;
      return this.queue.enqueue(entry);
    }
    const fresh: Entry = { ...pending(`${event.metadata.namespace}/${event.metadata.name}`, event.reason), event, created: false };
    this.seen.set(key, fresh);
    this.queue.enqueue(fresh);
  }

  /** A PATCH of count, lastTimestamp and message once created (a create if the event is gone), else a create. */
  private async write(e: Entry): Promise<Error | undefined> {
    const ev = e.event, ns = ev.metadata.namespace;
    try {
      if (e.created) {
        try {
          await this.client.patch(RESOURCES.coreEvents, ev.metadata.name, { count: ev.count, lastTimestamp: ev.lastTimestamp, message: ev.message }, "strategic", { namespace: ns });
          return;
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      await this.client.create(RESOURCES.coreEvents, { ...ev, metadata: { name: ev.metadata.name, namespace: ns } }, { namespace: ns });
      e.created = true;
    } catch (err) {
      if (!(err instanceof ApiError)) return err as Error;
      if (isAlreadyExists(err)) e.created = true;
      else log(`Server rejected event '${ns}/${ev.metadata.name}' (reason ${ev.reason}): '${err.message}' (will not retry!)`);
    }
  }
}

/** Records core/v1 events of one source (record.EventRecorder). */
export class CoreEventRecorder {
  constructor(private readonly broadcaster: CoreEventBroadcaster, readonly source: EventSource) {}

  /**
   * Records `reason` about `object` (upstream's Eventf, with the message already formatted). Objects must
   * carry kind and apiVersion; a reference is taken as given (with a fieldPath: one container of a pod).
   */
  event(object: Obj | ObjectReference, type: EventType, reason: string, message: string): void {
    if (type !== "Normal" && type !== "Warning") {
      log(`Unsupported event type: '${type}'`);
      return;
    }
    const ref = "metadata" in object ? referenceTo(object as Obj) : (object as ObjectReference);
    const now = rfc3339(new Date());
    this.broadcaster.record({
      apiVersion: "v1", kind: "Event",
      metadata: { name: `${ref.name}.${uniqueNanos().toString(16)}`, namespace: ref.namespace || "default" },
      involvedObject: ref, reason, message, source: { ...this.source },
      firstTimestamp: now, lastTimestamp: now, count: 1, type,
      reportingComponent: this.source.component, reportingInstance: this.source.host ?? "",
    });
  }
}
