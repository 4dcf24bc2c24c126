// A container's stdin for attach (spec.stdin): a FIFO per run (`${prefix}.stdin`) that the container reads.
// The agent holds a writer, through which attached clients type; so does the shim with "keep", so that the
// container never sees the end of its input while it runs, even across agent restarts. With "once"
// (stdinOnce) the agent's is the only writer, closed when the first attach ends: the container reads EOF.
import { closeSync, constants, existsSync, openSync, write } from "node:fs";
import type { StdinMode } from "./process.ts";
import { HIGH_WATER } from "../../streaming/flow.ts";

export class ContainerStdin {
  private fd?: number;
  /** Writes in order (each in the thread pool: a full pipe blocks no one else). */
  private queue: Promise<void> = Promise.resolve();
  /** Bytes in `queue` not yet written. */
  private pending = 0;

  /** Opens the FIFO for writing (read-write: never waits for a reader). */
  constructor(readonly path: string, readonly mode: StdinMode) {
    this.fd = openSync(path, constants.O_RDWR);
  }

  /** The writer of a run a previous agent started, when its stdin stays open. */
  static reopen(path: string, mode: StdinMode | undefined): ContainerStdin | undefined {
    return mode === "keep" && existsSync(path) ? new ContainerStdin(path, mode) : undefined;
  }

  get open(): boolean { return this.fd !== undefined; }

  /** Queues `data`; past the flow control bound, a promise of the moment all queued is written. */
  write(data: Uint8Array): Promise<void> | undefined {
    const bytes = data.slice();
    this.pending += bytes.length;
    this.queue = this.queue.then(() => new Promise<void>((resolve) => {
      const done = () => { this.pending -= bytes.length; resolve(); };
      if (this.fd === undefined) return done();
      write(this.fd, bytes, done);
    }));
    return this.pending > HIGH_WATER ? this.queue : undefined;
  }

  /** An attached client is done with stdin: with stdinOnce, the container's input ends. */
  detached(): void {
    if (this.mode === "once") this.close();
  }

  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) void this.queue.then(() => { try { closeSync(fd); } catch { /* closed */ } });
  }
}
