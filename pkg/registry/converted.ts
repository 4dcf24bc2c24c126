// The store of a version whose objects convert through a round trip (a custom resource's conversion
// webhook): values are read and cached at the storage version, and every object going out or coming in
// converts on the way, a list's objects in one call. A watch converts its events in order; an event that
// cannot be converted ends that watch only.
import type { Value } from "../storage/store.ts";
import { ResourceStore } from "./generic.ts";
import type { ListOptions, WatchSink } from "./store-options.ts";
import type { Selector } from "./selector.ts";
import type { AsyncCodec, Obj } from "./types.ts";

type EventType = "ADDED" | "MODIFIED" | "DELETED";

export class ConvertedStore extends ResourceStore {
  private get conv(): AsyncCodec { return this.def.asyncCodec!; }

  private async served(stored: Obj): Promise<Obj> {
    return (await this.conv.fromStorage([stored]))[0]!;
  }

  protected override current(stored: Obj): Promise<Obj> { return this.served(stored); }

  protected override async storedValue(obj: Obj): Promise<Value> {
    return this.encode((await this.conv.toStorage([obj]))[0]!);
  }

  override async get(ns: string, name: string, resourceVersion?: string): Promise<Obj> {
    return this.served(await super.get(ns, name, resourceVersion));
  }

  override async list(ns: string, o: ListOptions = {}): Promise<Obj> {
    const list = await super.list(ns, o);
    return { ...list, items: await this.conv.fromStorage(list.items) };
  }

  /** Events queue while a conversion is under way; the next conversion takes all that queued, in one call. */
  override async watch(ns: string, rv: string, label: Selector, field: Selector, sink: WatchSink): Promise<() => void> {
    let queue: ({ type: EventType; obj: Obj } | { progress: number } | { fail: Error })[] = [];
    let running = false, ended = false;
    let stop: (() => void) | undefined;
    const end = () => { ended = true; queue = []; stop?.(); };
    const drain = async () => {
      running = true;
      while (queue.length && !ended) {
        const batch = queue;
        queue = [];
        const events = batch.filter((e): e is { type: EventType; obj: Obj } => "type" in e);
        let objs: Obj[];
        try { objs = await this.conv.fromStorage(events.map((e) => e.obj)); } catch (e) {
          sink.fail(e instanceof Error ? e : new Error(String(e)));
          end();
          break;
        }
        let i = 0;
        for (const e of batch) {
          if ("progress" in e) sink.progress(e.progress);
          else if ("fail" in e) { sink.fail(e.fail); end(); break; }
          else if (!sink.event(e.type, objs[i++]!)) { end(); break; }
        }
      }
      running = false;
    };
    const push = (e: (typeof queue)[number]) => {
      if (ended) return false;
      queue.push(e);
      if (!running) void drain();
      return true;
    };
    stop = await super.watch(ns, rv, label, field, {
      event: (type, obj) => push({ type, obj }),
      progress: (rev) => { push({ progress: rev }); },
      fail: (e) => { push({ fail: e }); },
    });
    if (ended) stop();
    return () => { ended = true; stop?.(); };
  }
}
