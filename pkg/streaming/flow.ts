// Flow control for streams into pods: every hop (kubectl ⇄ API server ⇄ node agent ⇄ process or socket)
// writes to a destination that may be slower than its source. Once a destination has more than
// HIGH_WATER bytes queued, its source is paused (a socket, a WebSocket, a pipe not read) until the
// destination drains, so memory stays bounded however fast the producer and however slow the consumer.

/** Bytes a destination may hold queued before its source is paused. */
export const HIGH_WATER = 1024 * 1024;

/** A destination: what it holds queued, and a promise of the moment it can take more (or closed). */
export interface Sink {
  queued(): number;
  drained(): Promise<void>;
}

/** A source that can stop being read. */
export interface Pausable {
  pause(): void;
  resume(): void;
}

/** Promises of a drain, kept until the destination drains or closes. */
export class Waiters {
  private list: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.list.push(resolve));
  }
  release() {
    for (const w of this.list.splice(0)) w();
  }
}

/** After a write to `sink`: a promise of its drain when it is past the bound, else undefined. */
export const backlog = (sink: Sink): Promise<void> | undefined => (sink.queued() > HIGH_WATER ? sink.drained() : undefined);

/**
 * A source shared by several writers' waits (several streams of one connection): paused while any of them
 * waits for its destination, resumed when the last one is done.
 */
export class Holds {
  private count = 0;
  constructor(private readonly source: Pausable) {}

  /** Pauses the source until `until` settles. */
  hold(until: Promise<void>) {
    if (this.count++ === 0) this.source.pause();
    void until.finally(() => {
      if (--this.count === 0) this.source.resume();
    });
  }
}

/** Writes to `sink` through `write`, pausing `source` while the sink is past the bound. */
export function relayTo(sink: Sink, holds: Holds, write: () => void) {
  write();
  const wait = backlog(sink);
  if (wait) holds.hold(wait);
}

/** The drain of a destination that reports no drain itself (a client WebSocket's bufferedAmount): polled. */
export function polledDrain(queued: () => number, closed: () => boolean, everyMs = 5): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (queued() <= HIGH_WATER / 2 || closed() ? resolve() : setTimeout(check, everyMs));
    check();
  });
}

/** A process's stdin (Bun's FileSink): writes, and a promise of the flush when the pipe did not take it all. */
export function pipeWrite(sink: { write(d: Uint8Array): number | Promise<number>; flush(): number | Promise<number> }, data: Uint8Array): Promise<void> | undefined {
  const pending = [sink.write(data), sink.flush()].filter((r) => r instanceof Promise);
  return pending.length ? Promise.all(pending).then(() => {}, () => {}) : undefined;
}
