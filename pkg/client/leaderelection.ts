// Leader election (client-go tools/leaderelection, v1.21): candidates race for a lock; the holder renews
// it every retryPeriod and gives up leading if it cannot for renewDeadline. The others take it over only
// after the record they observed has not changed for leaseDuration, measured on their own clock (never
// from the record's timestamps), or at once when the holder released it. Writes are compare-and-swap on
// the lock object's resourceVersion, so two candidates cannot both win the same round.
import { isNotFound } from "./client.ts";
import { log } from "./log.ts";
import { sleep } from "./ratelimit.ts";
import type { LeaderElectionRecord, ResourceLock } from "./resourcelock.ts";

/** Retries are spread over [retryPeriod, retryPeriod·(1 + JITTER_FACTOR)) while acquiring. */
export const JITTER_FACTOR = 1.2;

export interface LeaderCallbacks {
  /** Called (not awaited) on winning; the signal aborts when leading stops. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called when `run` ends, whether or not this candidate ever led. */
  onStoppedLeading(): void;
  /** Called when a different leader is observed (this candidate included), the first one too. */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  lock: ResourceLock;
  /** Milliseconds a candidate waits, without seeing the record change, before taking the lock over. */
  leaseDuration: number;
  /** Milliseconds the leader keeps trying to renew before it stops leading. */
  renewDeadline: number;
  /** Milliseconds between tries. */
  retryPeriod: number;
  callbacks: LeaderCallbacks;
  /** On cancel, the leader writes an empty holder so another candidate takes over at once. */
  releaseOnCancel?: boolean;
  /** For messages. */
  name?: string;
}

export class LeaderElector {
  private observedRecord?: LeaderElectionRecord;
  private observedRaw?: string;
  /** performance.now() when the observed record last changed: the local clock only. */
  private observedTime = 0;
  private reportedLeader = "";

  /** Refuses settings upstream refuses, with its messages. */
  constructor(readonly config: LeaderElectionConfig) {
    const c = config;
    if (c.leaseDuration <= c.renewDeadline) throw new Error("leaseDuration must be greater than renewDeadline");
    if (c.renewDeadline <= JITTER_FACTOR * c.retryPeriod) throw new Error("renewDeadline must be greater than retryPeriod*JitterFactor");
    if (!(c.leaseDuration > 0)) throw new Error("leaseDuration must be greater than zero");
    if (!(c.renewDeadline > 0)) throw new Error("renewDeadline must be greater than zero");
    if (!(c.retryPeriod > 0)) throw new Error("retryPeriod must be greater than zero");
    if (!c.callbacks?.onStartedLeading) throw new Error("OnStartedLeading callback must not be nil");
    if (!c.callbacks.onStoppedLeading) throw new Error("OnStoppedLeading callback must not be nil");
    if (!c.lock) throw new Error("Lock must not be nil.");
    if (!c.lock.identity) throw new Error("Lock identity is empty");
  }

  /** The identity of the last observed leader ("" before any). */
  getLeader(): string { return this.observedRecord?.holderIdentity ?? ""; }
  isLeader(): boolean { return this.getLeader() === this.config.lock.identity; }

  /**
   * Campaigns until this candidate leads, then leads until it loses the lock or the signal aborts.
   * Resolves when leading (or campaigning) has ended; onStoppedLeading has run by then.
   */
  async run(signal?: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      const stop = () => leading.abort();
      signal?.addEventListener("abort", stop, { once: true });
      void (async () => this.config.callbacks.onStartedLeading(leading.signal))().catch((e) => log(`leader election: OnStartedLeading failed: ${(e as Error)?.message ?? e}`));
      await this.renew(leading.signal);
      signal?.removeEventListener("abort", stop);
      leading.abort();
      if (this.config.releaseOnCancel) await this.release();
    } finally {
      this.config.callbacks.onStoppedLeading();
    }
  }

  private async acquire(signal?: AbortSignal): Promise<boolean> {
    const desc = this.config.lock.describe();
    log(`attempting to acquire leader lease ${desc}...`);
    while (!signal?.aborted) {
      const ok = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (ok) {
        log(`successfully acquired lease ${desc}`);
        return true;
      }
      try { await sleep(this.config.retryPeriod * (1 + Math.random() * JITTER_FACTOR), signal); } catch { return false; }
    }
    return false;
  }

  /** Renews every retryPeriod; returns when a renewal did not succeed within renewDeadline, or on abort. */
  private async renew(signal: AbortSignal): Promise<void> {
    const { renewDeadline, retryPeriod } = this.config;
    while (!signal.aborted) {
      const deadline = performance.now() + renewDeadline;
      const attempt = AbortSignal.any([signal, AbortSignal.timeout(renewDeadline)]);
      let ok = false;
      for (;;) {
        ok = await this.tryAcquireOrRenew(attempt);
        if (ok || attempt.aborted || performance.now() + retryPeriod >= deadline) break;
        try { await sleep(retryPeriod, attempt); } catch { break; }
      }
      this.maybeReportTransition();
      if (!ok) {
        if (!signal.aborted) log(`failed to renew lease ${this.config.lock.describe()}: timed out waiting for the condition`);
        return;
      }
      try { await sleep(retryPeriod, signal); } catch { return; }
    }
  }

  /** Gives the lock up (an empty holder, a one-second lease) if this candidate holds it. */
  private async release(): Promise<boolean> {
    if (!this.isLeader()) return true;
    const now = new Date();
    const record: LeaderElectionRecord = { holderIdentity: "", leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaderTransitions: this.observedRecord!.leaderTransitions };
    try {
      await this.config.lock.update(record);
    } catch (e) {
      log(`Failed to release lock: ${(e as Error).message}`);
      return false;
    }
    this.observedRecord = record;
    this.observedTime = performance.now();
    return true;
  }

  /** One round: create the lock, renew it, or take it over once the holder's record went stale. */
  private async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const { lock, leaseDuration } = this.config;
    const now = new Date(), nowMono = performance.now();
    const record: LeaderElectionRecord = {
      holderIdentity: lock.identity, leaseDurationSeconds: Math.floor(leaseDuration / 1000),
      acquireTime: now, renewTime: now, leaderTransitions: 0,
    };
    let old: { record: LeaderElectionRecord; raw: string };
    try {
      old = await lock.get(signal);
    } catch (e) {
      if (!isNotFound(e)) {
        if (!signal?.aborted) log(`error retrieving resource lock ${lock.describe()}: ${(e as Error).message}`);
        return false;
      }
      try {
        await lock.create(record, signal);
      } catch (e) {
        if (!signal?.aborted) log(`error initially creating leader election record: ${(e as Error).message}`);
        return false;
      }
      this.observedRecord = record;
      this.observedTime = nowMono;
      return true;
    }
    if (old.raw !== this.observedRaw) {
      this.observedRecord = old.record;
      this.observedRaw = old.raw;
      this.observedTime = nowMono;
    }
    if (old.record.holderIdentity && this.observedTime + leaseDuration > nowMono && !this.isLeader()) return false;
    if (this.isLeader()) {
      record.acquireTime = old.record.acquireTime;
      record.leaderTransitions = old.record.leaderTransitions;
    } else {
      record.leaderTransitions = old.record.leaderTransitions + 1;
    }
    try {
      await lock.update(record, signal);
    } catch (e) {
      if (!signal?.aborted) log(`Failed to update lock: ${(e as Error).message}`);
      return false;
    }
    this.observedRecord = record;
    this.observedTime = nowMono;
    return true;
  }

  private maybeReportTransition(): void {
    const leader = this.getLeader();
    if (leader === this.reportedLeader) return;
    this.reportedLeader = leader;
    const cb = this.config.callbacks.onNewLeader;
    if (cb) queueMicrotask(() => { try { cb(leader); } catch (e) { log(`leader election: OnNewLeader failed: ${(e as Error)?.message ?? e}`); } });
  }
}

/** A component's election: which lock, and its timings (the --leader-elect-* flags). */
export interface Election {
  lock: ResourceLock;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/**
 * Runs `work` while this process leads, as upstream's components do: resolves when `signal` aborts (the
 * lease is released), rejects with "leaderelection lost" when another replica took over (the component
 * then exits and a restart campaigns again). `onLost` is called as soon as leadership is lost.
 */
export async function runWhileLeading(e: Election, work: (signal: AbortSignal) => Promise<void>, signal: AbortSignal, onLost?: () => void): Promise<void> {
  let lost = false;
  const elector = new LeaderElector({
    lock: e.lock, leaseDuration: e.leaseDurationMs, renewDeadline: e.renewDeadlineMs, retryPeriod: e.retryPeriodMs,
    releaseOnCancel: true, name: e.lock.describe(),
    callbacks: {
      onStartedLeading: (s) => {
        log(`leading as ${e.lock.identity} (${e.lock.describe()})`);
        void work(s);
      },
      onStoppedLeading: () => {
        lost = !signal.aborted;
        if (lost) onLost?.();
      },
      onNewLeader: (id) => { if (id !== e.lock.identity) log(`the leader is ${id}`); },
    },
  });
  await elector.run(signal);
  if (lost) throw new Error("leaderelection lost");
}
