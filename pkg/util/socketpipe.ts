// Writes to one of Bun's sockets, relayed from another or not (the TLS front's two directions and its
// taken-over connections, the userspace service proxy): bytes the destination cannot take yet wait here
// and the source, when there is one, is paused until the destination drains, so a slow reader slows the
// writer instead of filling memory. It is a flow control sink (../streaming/flow.ts) for writers that
// have no socket to pause (a SPDY session's streams).
import { type Sink, Waiters } from "../streaming/flow.ts";

/** What a pipe needs of a socket: Bun's Socket has it. */
export interface PipeSocket {
  write(bytes: Uint8Array): number;
  end(): void;
  pause(): void;
  resume(): void;
}

export class SocketPipe implements Sink {
  private queue: Uint8Array[] = [];
  private bytes = 0;
  private ending = false;
  private gone = false;
  private readonly drains = new Waiters();
  /** `src`/`dst`: the sockets now (undefined while one is still connecting; `src` none for plain writes). */
  constructor(private readonly src: () => PipeSocket | undefined, private readonly dst: () => PipeSocket | undefined) {}

  queued() { return this.bytes; }
  drained() { return this.gone ? Promise.resolve() : this.drains.wait(); }

  send(chunk: Uint8Array) {
    const dst = this.dst();
    const n = dst && !this.queue.length ? Math.max(dst.write(chunk), 0) : 0;
    if (n < chunk.length) this.enqueue(n ? chunk.subarray(n) : chunk);
  }

  /** The destination can take more (it drained, or just connected). */
  flush() {
    const dst = this.dst();
    if (!dst) return;
    while (this.queue.length) {
      const head = this.queue[0];
      const n = Math.max(dst.write(head), 0);
      this.bytes -= n;
      if (n < head.length) return void (this.queue[0] = head.subarray(n));
      this.queue.shift();
    }
    this.drains.release();
    if (this.ending) dst.end();
    else this.src()?.resume();
  }

  /** The source is done: end the destination once what is queued has gone. */
  end() {
    this.ending = true;
    const dst = this.dst();
    // the destination may be paused as the other direction's source: it must read to see its peer's end
    dst?.resume();
    if (dst && !this.queue.length) dst.end();
  }

  /** The destination is gone: nothing queued will go, no one waits for it. */
  closed() {
    this.gone = true;
    this.queue = [];
    this.bytes = 0;
    this.drains.release();
  }

  private enqueue(rest: Uint8Array) {
    // a copy: the caller may reuse its buffer (slice copies at once; Uint8Array.from iterates)
    this.queue.push(rest.slice());
    this.bytes += rest.length;
    this.src()?.pause();
  }
}
