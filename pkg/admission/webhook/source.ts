// The webhook configurations in force, read from the API server's own watch cache and flattened (sorted
// by configuration name, then in their order) once per change of the collection.
import type { ResourceStore } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";
import { cachedList } from "../lookup.ts";

export interface Hook { webhook: Obj; configuration: string }

export class WebhookSource {
  private seen: Obj[] = [];
  private hooks: Hook[] = [];

  constructor(private rs: ResourceStore) {}

  async current(): Promise<Hook[]> {
    const configs = await cachedList(this.rs);
    // the cache hands out the same decoded objects until one changes
    if (configs.length !== this.seen.length || configs.some((c, i) => c !== this.seen[i])) {
      this.hooks = [...configs]
        .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
        .flatMap((c) => ((c.webhooks ?? []) as Obj[]).map((webhook) => ({ webhook, configuration: c.metadata.name })));
      this.seen = configs;
    }
    return this.hooks;
  }
}
