// What the bootstrap work watches: a collection through the registry's own watch (the watch cache),
// started again after a failure. Handlers only note what needs doing; a Runner does it.
import { consola } from "consola";
import type { ResourceStore } from "../../registry/generic.ts";
import { everything } from "../../registry/selector.ts";
import type { Obj } from "../../registry/types.ts";

export type Handler = (type: "ADDED" | "MODIFIED" | "DELETED", obj: Obj) => void;

/**
 * Watches rs under ns (every namespace when ""): the current objects come first as ADDED, and have been
 * handed to the handler when the returned promise resolves (to the stop function).
 */
export async function inform(rs: ResourceStore, ns: string, handler: Handler): Promise<() => void> {
  let stopped = false;
  let stop = () => {};
  const start = async () => {
    const again = () => { stop(); if (!stopped) setTimeout(() => start().catch(again), 1000); };
    const s = await rs.watch(ns, "", everything, everything, {
      event: (type, obj) => { handler(type, obj); return true; },
      progress: () => {},
      fail: (e) => { consola.debug(`bootstrap: watch of ${rs.def.plural} ended: ${e.message}`); again(); },
    });
    if (stopped) s(); else stop = s;
  };
  await start();
  return () => { stopped = true; stop(); };
}

/**
 * Runs one job per key at a time; a key asked for while its job runs runs once more afterwards. A job
 * that fails (the store unreachable, a lost race) is tried again a second later.
 */
export class Runner {
  private pending = new Map<string, boolean>();
  private stopped = false;

  constructor(private readonly work: (key: string) => Promise<void>) {}

  run(key: string) {
    if (this.stopped) return;
    if (this.pending.has(key)) { this.pending.set(key, true); return; }
    this.pending.set(key, false);
    void this.loop(key);
  }

  private async loop(key: string) {
    let failed = false;
    do {
      this.pending.set(key, false);
      try {
        await this.work(key);
      } catch (e) {
        consola.warn(`bootstrap ${key}: ${(e as Error).message}`);
        failed = true;
      }
    } while (this.pending.get(key) && !this.stopped);
    this.pending.delete(key);
    if (failed) setTimeout(() => this.run(key), 1000);
  }

  /** Resolves when no job is queued or running. */
  async idle(): Promise<void> {
    while (this.pending.size && !this.stopped) await Bun.sleep(5);
  }

  stop() { this.stopped = true; }
}

/** The object (a consistent read), or undefined when there is none. */
export function current(rs: ResourceStore, ns: string, name: string): Promise<Obj | undefined> {
  return rs.get(ns, name).catch((e) => { if (e.code === 404) return undefined; throw e; });
}

/** Answers that mean there is nothing to do: the object exists, or its namespace is gone or going. */
export function settled(e: unknown): boolean {
  const code = (e as { code?: number }).code;
  return code === 409 || code === 404 || code === 403;
}
