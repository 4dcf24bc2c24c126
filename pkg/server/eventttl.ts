// --event-ttl: an Event is removed this long after it was last written, as upstream's etcd lease on each
// Event write does. Kept the same way on either store: the server watches Events and deletes those
// unwritten for the TTL (after a restart the Events found count as written then).
import { consola } from "consola";
import type { Registry } from "../registry/registry.ts";
import { inform } from "./bootstrap/informer.ts";

export class EventExpiry {
  /** ns/name → when it was last written and at which resourceVersion. */
  private written = new Map<string, { at: number; rv: string }>();
  private timer?: Timer;
  private stopWatch?: () => void;

  constructor(private registry: Registry, private ttlMs: number) {}

  async start() {
    const events = this.registry.lookup("", "v1", "events")!;
    this.stopWatch = await inform(events, "", (type, ev) => {
      const key = `${ev.metadata.namespace}/${ev.metadata.name}`;
      if (type === "DELETED") this.written.delete(key);
      else this.written.set(key, { at: Date.now(), rv: ev.metadata.resourceVersion });
    });
    // swept a few times per TTL, at most once a minute
    this.timer = setInterval(() => void this.sweep(), Math.min(60_000, Math.max(250, this.ttlMs / 4)));
  }

  private async sweep() {
    const events = this.registry.lookup("", "v1", "events")!;
    const due = Date.now() - this.ttlMs;
    for (const [key, w] of this.written) {
      if (w.at > due) continue;
      const [ns, name] = key.split("/") as [string, string];
      // a write since the watch told us wins (409); one already gone is fine (404)
      await events.delete(ns, name, { preconditions: { resourceVersion: w.rv } })
        .catch((e) => { if (e.code !== 404 && e.code !== 409) consola.warn(`event-ttl: deleting ${key}: ${e.message}`); });
    }
  }

  stop() {
    clearInterval(this.timer);
    this.stopWatch?.();
  }
}
