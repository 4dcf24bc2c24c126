// Follows one collection of the registry in process (RBAC, custom resources), as upstream's informers follow the API: the current
// state as ADDED, then every change. A watch that ends (its history compacted away) starts again from
// the current state after `reset`.
import { consola } from "consola";
import type { ResourceStore } from "./generic.ts";
import { everything } from "./selector.ts";
import type { Obj } from "./types.ts";

export interface Handlers {
  upsert(obj: Obj): void;
  remove(obj: Obj): void;
  /** Everything known so far is dropped: the state comes again. */
  reset(): void;
}

export class Informer {
  private stop = () => {};
  private stopped = false;

  constructor(private rs: ResourceStore, private h: Handlers) {}

  /** Resolves once the current state has been delivered. */
  async start(): Promise<void> {
    if (this.stopped) return;
    this.stop = await this.rs.watch("", "", everything, everything, {
      event: (type, obj) => {
        if (type === "DELETED") this.h.remove(obj);
        else this.h.upsert(obj);
        return true;
      },
      progress: () => {},
      fail: (e) => {
        consola.warn(`the watch of ${this.rs.def.plural} ended (${e.message}); following it again`);
        this.h.reset();
        setTimeout(() => this.start().catch((err) => this.fail(err)), 100);
      },
    });
  }

  private fail(e: Error) {
    this.h.reset();
    if (!this.stopped) setTimeout(() => this.start().catch((err) => this.fail(err)), 1000);
    consola.warn(`following ${this.rs.def.plural}: ${e.message}`);
  }

  close() {
    this.stopped = true;
    this.stop();
  }
}
