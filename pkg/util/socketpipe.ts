// One direction of a relayed TCP connection between two of Bun's sockets (the TLS front, the userspace
// service proxy): bytes the destination cannot take yet wait here and the source is paused until the
// destination drains, so a slow reader slows the writer instead of filling memory.

/** What a pipe needs of a socket: Bun's Socket has it. */
export interface PipeSocket {
  write(bytes: Uint8Array): number;
  end(): void;
  pause(): void;
  resume(): void;
}

export class SocketPipe {
  private queue: Uint8Array[] = [];
  private ending = false;
  /** `src`/`dst`: the sockets now (undefined while one is still connecting). */
  constructor(private readonly src: () => PipeSocket | undefined, private readonly dst: () => PipeSocket | undefined) {}

  send(chunk: Uint8Array) {
    const dst = this.dst();
    if (!dst || this.queue.length) {
      this.queue.push(Uint8Array.from(chunk));
      return;
    }
    const n = dst.write(chunk);
    if (n < chunk.length) {
      this.queue.push(Uint8Array.from(chunk.subarray(Math.max(n, 0))));
      this.src()?.pause();
    }
  }

  /** The destination can take more (it drained, or just connected). */
  flush() {
    const dst = this.dst();
    if (!dst) return;
    while (this.queue.length) {
      const head = this.queue[0];
      const n = dst.write(head);
      if (n < head.length) {
        this.queue[0] = head.subarray(Math.max(n, 0));
        this.src()?.pause();
        return;
      }
      this.queue.shift();
    }
    if (this.ending) dst.end();
    else this.src()?.resume();
  }

  /** The source is done: end the destination once what is queued has gone. */
  end() {
    this.ending = true;
    const dst = this.dst();
    if (dst && !this.queue.length) dst.end();
  }
}
