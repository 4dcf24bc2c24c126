// A watch of a key range through etcd's JSON gateway (/v3/watch, a stream of JSON lines): what
// Store.watch uses, and the shared watch's fallback when gRPC cannot connect.
import type { EtcdStore } from "./etcd.ts";
import { type RawEvent, type WatchResult, num, serverError, sleep } from "./etcdgateway.ts";
import { watchEvent } from "./etcdwire.ts";
import { StoreError, type WatchEvent, type Watcher } from "./store.ts";

/** Reads newline-delimited JSON messages from a streaming gateway response. */
class MessageReader {
  private buf = "";
  private decoder = new TextDecoder();
  private reader;
  constructor(body: ReadableStream<Uint8Array>) { this.reader = body.getReader(); }
  /** The next message, or null at the end of the stream. */
  async next(): Promise<{ result?: WatchResult; error?: { message?: string; code?: number; http_code?: number } } | null> {
    for (;;) {
      const nl = this.buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.buf.slice(0, nl).trim();
        this.buf = this.buf.slice(nl + 1);
        if (line) return JSON.parse(line);
        continue;
      }
      const { done, value } = await this.reader.read();
      if (done) {
        const line = (this.buf + this.decoder.decode()).trim();
        this.buf = "";
        return line ? JSON.parse(line) : null;
      }
      this.buf += this.decoder.decode(value, { stream: true });
    }
  }
  cancel() { this.reader.cancel().catch(() => {}); }
}

/** One etcd watch over the gateway; it reconnects (to the next member) from the last revision it delivered. */
export class EtcdWatcher implements Watcher {
  private closed = false;
  private ac: AbortController | null = null;
  private reader: MessageReader | null = null;
  /** Every event up to this revision has been delivered. */
  private lastRev: number;
  /** Revision of etcd when the watch was first created (from the created response's header). */
  private createdRev = 0;
  /** Resolved when the first events arrive. */
  private firstEvents: () => void = () => {};

  constructor(
    private s: EtcdStore, private prefix: string, private key: string, private end: string,
    afterRevision: number, private onEvent: (ev: WatchEvent) => void, private onError?: (err: Error) => void,
    /** Ask for each event's previous value (a read in etcd per event). */
    private prevKv = true,
  ) {
    this.lastRev = Math.max(0, afterRevision);
  }

  /** The first connection: every member once; fails with the last error. */
  start(): Promise<void> {
    return this.s.onSomeMember(async (ep) => {
      const after = this.lastRev;
      const gotEvents = new Promise<void>((resolve) => { this.firstEvents = resolve; });
      const r = await this.connect(ep);
      void this.run(r);
      await this.awaitReplay(after, gotEvents);
    });
  }

  /** Opens the stream and reads until etcd confirms the watch. */
  private async connect(ep: string): Promise<MessageReader> {
    const ac = new AbortController();
    this.ac = ac;
    const timer = setTimeout(() => ac.abort(), this.s.requestTimeoutMs);
    try {
      const res = await this.s.fetch(`${ep}/v3/watch`, {
        method: "POST",
        // hasleader: etcd ends the watch when this member loses the leader, so it moves to a member that has one.
        headers: { "content-type": "application/json", "grpc-metadata-hasleader": "true" },
        body: JSON.stringify({
          create_request: { key: this.key, range_end: this.end, start_revision: String(this.lastRev + 1), prev_kv: this.prevKv },
        }),
        signal: ac.signal,
      });
      if (!res.ok) throw serverError(res.status, await res.text(), this.prefix).storeError;
      const r = new MessageReader(res.body!);
      this.reader = r;
      for (;;) {
        const m = await r.next();
        if (!m) throw new StoreError("Unavailable", this.prefix, `etcd: watch stream from ${ep} ended before it was created`);
        if (m.error) throw serverError(m.error.http_code ?? 503, JSON.stringify(m.error), this.prefix).storeError;
        this.handle(m.result ?? {});
        if (m.result?.created) {
          if (!this.createdRev) this.createdRev = num(m.result.header?.revision);
          return r;
        }
      }
    } catch (e) {
      this.reader?.cancel();
      if (this.closed) throw new StoreError("Unavailable", this.prefix, "watch closed");
      if (e instanceof StoreError) throw e;
      const err = e as Error & { code?: string };
      throw new StoreError("Unavailable", this.prefix, `etcd: watch on ${ep}: ${err.code ?? err.name}: ${err.message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * etcd replays history (a start revision below its current one) from a loop that runs every 100 ms, so
   * the first events can come that late. When the history holds events for this prefix, wait for them, so
   * that they are delivered before watch() resolves and live events follow at once. A read-only txn tells:
   * keys written after `after` (live now) or keys live at `after` that were changed or deleted since. (A key
   * both created and deleted in between escapes it; those events still come, within the 100 ms.)
   */
  private async awaitReplay(after: number, gotEvents: Promise<void>) {
    const at = this.createdRev;
    if (after + 1 > at) return;
    const range = { key: this.key, range_end: this.end, count_only: true };
    // The replay loop runs every 100 ms: a second is plenty, and a watch never waits longer to start.
    let pending = true, wait = Math.min(this.s.requestTimeoutMs, 1000);
    try {
      const ops = [
        { request_range: { ...range, revision: String(at), min_mod_revision: String(after + 1) } },
        { request_range: { ...range, revision: String(at), max_mod_revision: String(after) } },
      ];
      if (after > 0) ops.push({ request_range: { ...range, revision: String(after) } } as (typeof ops)[number]);
      const r = await this.s.txn({ success: ops }, this.prefix);
      const counts = (r.responses ?? []).map((x) => num(x.response_range?.count));
      const touched = counts[0] > 0 || (after > 0 && counts[2] !== counts[1]);
      pending = touched;
    } catch {
      wait = 250; // unknown: wait as if pending, but no longer than a replay takes
    }
    if (!pending) return;
    let timer: Timer | undefined;
    await Promise.race([gotEvents, new Promise<void>((r) => { timer = setTimeout(r, wait); })]);
    clearTimeout(timer);
  }

  /** Applies one watch response: events in order; a compacted start ends the watch with Compacted. */
  private handle(r: WatchResult) {
    const compactRev = num(r.compact_revision);
    if (compactRev > 0) {
      this.s.learnCompacted(compactRev);
      throw new StoreError("Compacted", this.prefix, `revision ${this.lastRev + 1} has been compacted (compact revision ${compactRev})`);
    }
    if (r.canceled) throw new StoreError("Unavailable", this.prefix, `etcd: watch canceled: ${r.cancel_reason ?? "no reason given"}`);
    if (!r.events) return;
    for (const e of r.events) {
      if (this.closed) return;
      const ev = this.toEvent(e);
      // A reconnect asks for lastRev + 1 on; events of one multi-key txn share a revision.
      if (ev.kv.modRevision < this.lastRev) continue;
      this.lastRev = ev.kv.modRevision;
      this.firstEvents();
      try {
        this.onEvent(ev);
      } catch (err) {
        this.onError?.(err as Error);
      }
    }
  }

  private toEvent(e: RawEvent): WatchEvent {
    return watchEvent(e.type === "DELETE", this.s.toKV(e.kv ?? {}), e.prev_kv ? this.s.toKV(e.prev_kv) : undefined);
  }

  /** Reads the stream; when it breaks, reconnects with backoff (moving to the next member) from lastRev+1. */
  private async run(r: MessageReader | null) {
    let delay = 50;
    while (!this.closed) {
      let ep = this.s.endpoint();
      if (r) {
        try {
          for (;;) {
            const m = await r.next();
            if (!m || this.closed) break;
            if (m.error) break;
            this.handle(m.result ?? {});
          }
        } catch (e) {
          if (this.closed) return;
          if (e instanceof StoreError && e.code === "Compacted") return this.fail(e);
        }
        r.cancel();
        r = null;
        this.s.rotate(ep);
      }
      if (this.closed) return;
      await sleep(delay);
      delay = Math.min(delay * 2, 2000);
      ep = this.s.endpoint();
      try {
        r = await this.connect(ep);
        delay = 50;
      } catch (e) {
        if (this.closed) return;
        if (e instanceof StoreError && e.code === "Compacted") return this.fail(e);
        this.s.rotate(ep);
      }
    }
  }

  private fail(err: Error) {
    if (this.closed) return;
    this.close();
    if (this.onError) this.onError(err);
    else console.warn(`etcd watch on ${this.prefix} ended: ${err.message}`);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.ac?.abort();
    this.reader?.cancel();
    this.firstEvents();
    this.s.forget(this);
  }
}
