// The webhook configurations in force, read from the API server's own watch cache and flattened (sorted
// by configuration name, then in their order) once per change of the collection.
import type { ResourceStore } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";

export interface Hook { webhook: Obj; configuration: string }

export class WebhookSource {
  private version = "";
  private hooks: Hook[] = [];

  constructor(private rs: ResourceStore) {}

  async current(): Promise<Hook[]> {
    const list = await this.rs.list("", { resourceVersion: "0" });
    const rv = String(list.metadata?.resourceVersion ?? "");
    if (rv !== this.version || !rv) {
      this.hooks = ((list.items ?? []) as Obj[])
        .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
        .flatMap((c) => ((c.webhooks ?? []) as Obj[]).map((webhook) => ({ webhook, configuration: c.metadata.name })));
      this.version = rv;
    }
    return this.hooks;
  }
}
