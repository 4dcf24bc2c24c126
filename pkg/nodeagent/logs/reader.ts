// A container's log as a stream: the current file from --tail's start (rotated files are not read, as
// upstream's reader reads only the current one), and with follow the lines written after, across
// rotations, until the container has stopped and everything is read. Woken by inotify (fs.watch), with a
// slow timer to notice the container's end: no busy polling.
import { closeSync, fstatSync, openSync, readSync, statSync, watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";
import { type LogOptions, formatLine, limit, parseCRILine, tailStart } from "./crilog.ts";

/** How often a follower with nothing new checks whether its container still runs. */
const RECHECK_MS = 1000;
const CHUNK = 256 * 1024;
/** After the container stopped, its stamper may still be writing its last lines for a moment. */
const LAST_WORDS_MS = 300;

/** Reads from `fd` at `pos` until its end. */
function readFrom(fd: number, pos: number): Buffer {
  const parts: Buffer[] = [];
  for (;;) {
    const buf = Buffer.allocUnsafe(CHUNK);
    const n = readSync(fd, buf, 0, CHUNK, pos);
    if (n <= 0) break;
    parts.push(buf.subarray(0, n));
    pos += n;
  }
  return Buffer.concat(parts);
}

const inode = (path: string) => { try { return statSync(path).ino; } catch { return -1; } };

/**
 * The log at `path` as `o` asks; `running()` says whether the container still writes to it. Throws
 * (ENOENT) when there is no log file.
 */
export function containerLogStream(path: string, o: LogOptions, running: () => boolean): ReadableStream<Uint8Array> {
  let fd = openSync(path, "r");
  let pos = 0, sent = 0, first = true, stopped = false;
  /** The bytes of a line not complete yet (kept as bytes: a read may end inside a character). */
  let pending = Buffer.alloc(0);
  let watcher: FSWatcher | undefined, timer: Timer | undefined, wake: (() => void) | undefined;
  const encoder = new TextEncoder();
  const cleanup = () => {
    watcher?.close();
    clearTimeout(timer);
    try { closeSync(fd); } catch { /* closed */ }
  };

  /** The next lines as output: complete lines only (a line being written waits for its newline). */
  const next = (): Uint8Array => {
    const data = readFrom(fd, pos);
    pos += data.length;
    const bytes = pending.length ? Buffer.concat([pending, data]) : data;
    const end = bytes.lastIndexOf(0x0a) + 1;
    pending = Buffer.from(bytes.subarray(end));
    let text = bytes.subarray(0, end).toString("utf8");
    if (first && o.tailLines !== undefined) text = text.slice(tailStart(text, o.tailLines));
    first = false;
    let out = "";
    for (const line of text.split("\n")) {
      const l = line && parseCRILine(line);
      if (l) out += formatLine(l, o);
    }
    return encoder.encode(out);
  };

  /** Waits for a change in the log's folder, or the recheck timer. */
  const changed = () => new Promise<void>((resolve) => {
    wake = resolve;
    watcher ??= watch(dirname(path), () => wake?.());
    timer = setTimeout(resolve, RECHECK_MS);
  });

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const chunk = limit(next(), sent, o);
        sent += chunk.length;
        const done = o.limitBytes !== undefined && sent >= o.limitBytes;
        if (chunk.length) controller.enqueue(chunk);
        if (done || !o.follow) { cleanup(); controller.close(); return; }
        if (chunk.length) return;
        // nothing new: the file was rotated (read the new one from its start), or wait for more
        if (inode(path) !== fstatSync(fd).ino && inode(path) !== -1) {
          closeSync(fd);
          fd = openSync(path, "r");
          pos = 0;
          continue;
        }
        if (stopped) { cleanup(); controller.close(); return; }
        if (running()) await changed();
        else { stopped = true; await Bun.sleep(LAST_WORDS_MS); }
        clearTimeout(timer);
      }
    },
    cancel() { cleanup(); },
  });
}
