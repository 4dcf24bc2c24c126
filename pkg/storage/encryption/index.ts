// --encryption-provider-config put together: the config file, one transformer per configured resource,
// and the Store decorator that applies them under the server's key prefix.
import type client from "prom-client";
import type { Store } from "../store.ts";
import { loadEncryptionConfig } from "./config.ts";
import { TransformMetrics } from "./metrics.ts";
import { EncryptedStore } from "./store.ts";
import { ValueTransformer } from "./transformer.ts";

/** A stored resource: its group and the key segment it is stored under (`/registry/<segment>/`). */
export interface StoredResource { group: string; plural: string; segment: string }

export class Encryption {
  private byPrefix = new Map<string, ValueTransformer>();
  private transformers: ValueTransformer[] = [];

  /** Throws one line naming the file and the problem. */
  constructor(file: string, etcdPrefix: string, resources: StoredResource[], registry?: client.Registry) {
    const metrics = registry && new TransformMetrics(registry);
    const base = etcdPrefix.replace(/\/$/, "");
    for (const entry of loadEncryptionConfig(file)) {
      const t = new ValueTransformer(entry.providers, metrics);
      this.transformers.push(t);
      for (const name of entry.resources) {
        const [plural, ...group] = name.split(".");
        for (const r of resources) {
          const prefix = `${base}/${r.segment}/`;
          // the first entry naming a resource is the one that applies, as upstream reads the list
          if (r.plural === plural && r.group === group.join(".") && !this.byPrefix.has(prefix)) this.byPrefix.set(prefix, t);
        }
      }
    }
  }

  /** Asks every KMS plugin for its API version: a plugin that is absent or speaks another one stops the start. */
  async check(): Promise<void> {
    for (const k of this.transformers.flatMap((t) => t.kms)) {
      const v = await k.version().catch((e) => { throw new Error(`KMS plugin unix://${k.socket}: ${(e as Error).message}`); });
      if (v !== "v1beta1") throw new Error(`KMS plugin unix://${k.socket}: KMS provider api version ${v} is not supported, only v1beta1 is supported now`);
    }
  }

  wrap(store: Store): Store {
    return this.byPrefix.size ? new EncryptedStore(store, this.byPrefix) : store;
  }

  close() {
    for (const k of this.transformers.flatMap((t) => t.kms)) k.close();
  }
}
