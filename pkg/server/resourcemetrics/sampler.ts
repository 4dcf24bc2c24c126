// A small per-node cache of scrapes, so that cpu is a rate over two of them as metrics-server computes it:
// each request pairs a fresh scrape with the newest cached one at least MIN_WINDOW older (the first request
// for a node waits that long for its second scrape), and a node is scraped at most once per MIN_WINDOW.
import type { KubeletClient } from "../../api/handlers/podlog.ts";
import type { Obj } from "../../registry/types.ts";
import { type Scrape, scrapeNode } from "./scrape.ts";

export const MIN_WINDOW_MS = 1000;
/** How long a scrape is kept as a base for later rates. */
const KEEP_MS = 60_000;

export interface Pair { base: Scrape; cur: Scrape }

export class NodeSampler {
  private readonly history = new Map<string, Scrape[]>();
  private readonly pairs = new Map<string, Pair>();
  private readonly inflight = new Map<string, Promise<Pair>>();

  constructor(private readonly kubelet: KubeletClient, private readonly scrape = scrapeNode) {}

  /** The latest two scrapes of a node at least MIN_WINDOW apart; throws when its agent cannot be read. */
  pair(node: Obj): Promise<Pair> {
    const name: string = node.metadata.name;
    const last = this.pairs.get(name);
    if (last && Date.now() - last.cur.t < MIN_WINDOW_MS) return Promise.resolve(last);
    let p = this.inflight.get(name);
    if (!p) {
      p = this.take(node).finally(() => this.inflight.delete(name));
      this.inflight.set(name, p);
    }
    return p;
  }

  private async take(node: Obj): Promise<Pair> {
    const name: string = node.metadata.name;
    let cur = await this.scrape(node, this.kubelet);
    const h = (this.history.get(name) ?? []).filter((s) => cur.t - s.t < KEEP_MS);
    let base = h.findLast((s) => cur.t - s.t >= MIN_WINDOW_MS);
    if (!base) {
      base = h[0] ?? cur;
      await Bun.sleep(Math.max(0, base.t + MIN_WINDOW_MS - Date.now()));
      if (base === cur) h.push(cur);
      cur = await this.scrape(node, this.kubelet);
    }
    h.push(cur);
    this.history.set(name, h.slice(-8));
    const pair = { base, cur };
    this.pairs.set(name, pair);
    return pair;
  }

  /** Forgets nodes that are gone. */
  keep(names: Set<string>): void {
    for (const m of [this.history, this.pairs]) for (const k of m.keys()) if (!names.has(k)) m.delete(k);
  }
}
