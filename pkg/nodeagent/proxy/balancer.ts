// Which endpoint a new connection to a Service port goes to, as upstream's userspace LoadBalancerRR picks
// it: round-robin over the ready endpoints; with sessionAffinity ClientIP a client's connections keep
// going to the endpoint it last got while it returns within the timeout. A failed dial asks again with
// `reset`, which skips the client's endpoint and moves on in the rotation. Endpoints that go also lose
// their clients, so new connections never reach a removed endpoint.
import type { Backend } from "./serviceports.ts";

const id = (b: Backend) => `${b.ip}:${b.port}`;

/** How many clients' affinities are kept before the expired ones are swept out. */
const SWEEP_AT = 4096;

interface Affinity { backend: string; lastUsedMs: number }

export class RoundRobin {
  private backends: Backend[] = [];
  private next = 0;
  private readonly affinity = new Map<string, Affinity>();

  /** `affinitySeconds`: sessionAffinity ClientIP's timeout, 0 for none. */
  constructor(private affinitySeconds = 0, private readonly now: () => number = Date.now) {}

  /** New endpoints (and affinity timeout); the rotation restarts only when the set changed. */
  update(backends: Backend[], affinitySeconds: number): void {
    if (affinitySeconds !== this.affinitySeconds) this.affinity.clear();
    this.affinitySeconds = affinitySeconds;
    const ids = new Set(backends.map(id));
    const same = ids.size === this.backends.length && this.backends.every((b) => ids.has(id(b)));
    if (same) return;
    this.backends = [...backends];
    this.next = 0;
    for (const [client, a] of this.affinity) if (!ids.has(a.backend)) this.affinity.delete(client);
  }

  get size(): number { return this.backends.length; }

  /** The endpoint for a new connection from `clientIP`, or undefined when there is none. */
  pick(clientIP: string, reset = false): Backend | undefined {
    if (!this.backends.length) return undefined;
    const now = this.now();
    if (this.affinitySeconds && !reset) {
      const a = this.affinity.get(clientIP);
      const kept = a && now - a.lastUsedMs < this.affinitySeconds * 1000 ? this.backends.find((b) => id(b) === a.backend) : undefined;
      if (kept) {
        a!.lastUsedMs = now;
        return kept;
      }
    }
    const b = this.backends[this.next % this.backends.length];
    this.next = (this.next + 1) % this.backends.length;
    if (this.affinitySeconds) {
      this.affinity.set(clientIP, { backend: id(b), lastUsedMs: now });
      if (this.affinity.size > SWEEP_AT) this.sweep(now);
    }
    return b;
  }

  private sweep(now: number): void {
    for (const [client, a] of this.affinity) if (now - a.lastUsedMs >= this.affinitySeconds * 1000) this.affinity.delete(client);
  }
}
