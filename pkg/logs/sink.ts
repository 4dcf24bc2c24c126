// Where log lines go, as klog v2 sends them: to stderr only (--logtostderr, the default), or to files
// (--log-file, else one file per severity in --log-dir) with the lines at or above --stderrthreshold
// (every line with --alsologtostderr) also on stderr. Files start over past --log-file-max-size.
import { closeSync, openSync, rmSync, statSync, symlinkSync, writeSync } from "node:fs";
import { hostname, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { KITE_VERSION } from "../version.ts";
import { type Entry, jsonLine, textLine } from "./format.ts";
import { type LogOptions, SEVERITIES } from "./options.ts";

interface OpenFile { fd: number; bytes: number }

/**
 * Lines for stderr wait for the end of the event loop's turn and go out in one write: a burst of lines
 * (a node agent starting 100 pods logs a few each) is one system call, not one per line. What is still
 * queued when the process exits is written then.
 */
let queued = "";
const flush = () => {
  const lines = queued;
  queued = "";
  if (lines) process.stderr.write(lines);
};
function toStderr(line: string): void {
  if (!queued) setImmediate(flush);
  queued += line;
}
/** Writes what is queued now, before a line printed directly (a command's one-line `Error: ...`) follows it. */
export function flushLogs(): void {
  if (queued) writeSync(2, queued);
  queued = "";
}
process.on("exit", flushLogs);

export class Sink {
  private files = new Map<string, OpenFile>();

  constructor(private readonly o: LogOptions, private readonly program: string) {}

  /** Whether a line logged at verbosity v from `source` is written (--v, or a matching --vmodule). */
  enabled(v: number, source: string): boolean {
    const m = this.o.vmodule.find((x) => x.pattern.test(source));
    return v <= (m ? m.level : this.o.verbosity);
  }

  write(e: Entry) {
    if (this.o.format === "json") return toStderr(jsonLine(e));
    const line = textLine(e, process.pid, this.o.skipHeaders);
    if (this.o.toStderr) return toStderr(line);
    if (this.o.alsoToStderr || e.severity >= this.o.stderrThreshold) toStderr(line);
    if (this.o.logFile) return this.append(this.o.logFile, line, true);
    // one file per severity: a line goes to its own and (without --one-output) every lower one's
    for (let s = e.severity; s >= (this.o.oneOutput ? e.severity : 0); s--) this.append(SEVERITIES[s], line, false);
  }

  private append(key: string, line: string, single: boolean) {
    let f = this.files.get(key);
    if (f && this.o.maxSize > 0 && f.bytes + Buffer.byteLength(line) >= this.o.maxSize) {
      closeSync(f.fd);
      f = undefined;
    }
    if (!f) {
      f = single ? this.openSingle(key, this.files.has(key)) : this.openInDir(key);
      this.files.set(key, f);
    }
    f.bytes += writeSync(f.fd, line);
  }

  /** --log-file: appended to at start, started over when it is full. */
  private openSingle(path: string, full: boolean): OpenFile {
    const fd = openSync(path, full ? "w" : "a");
    const f = { fd, bytes: full ? 0 : statSync(path).size };
    if (!this.o.skipLogHeaders) f.bytes += writeSync(fd, this.fileHeader());
    return f;
  }

  /** --log-dir (default: the temporary directory): a new file each time, and PROGRAM.SEVERITY pointing at it. */
  private openInDir(severity: string): OpenFile {
    const dir = this.o.logDir || tmpdir();
    const t = new Date();
    const p = (n: number) => String(n).padStart(2, "0");
    const stamp = `${t.getFullYear()}${p(t.getMonth() + 1)}${p(t.getDate())}-${p(t.getHours())}${p(t.getMinutes())}${p(t.getSeconds())}`;
    const name = `${this.program}.${hostname()}.${userInfo().username}.log.${severity}.${stamp}.${process.pid}`;
    const fd = openSync(join(dir, name), "w");
    const link = join(dir, `${this.program}.${severity}`);
    rmSync(link, { force: true });
    try { symlinkSync(name, link); } catch { /* a link is a convenience */ }
    return { fd, bytes: this.o.skipLogHeaders ? 0 : writeSync(fd, this.fileHeader()) };
  }

  private fileHeader(): string {
    const t = new Date().toISOString().replace("T", " ").replace(/-/g, "/").slice(0, 19);
    return `Log file created at: ${t}\nRunning on machine: ${hostname()}\nBinary: kite ${KITE_VERSION} (Bun ${Bun.version} for ${process.platform}/${process.arch})\nLog line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n`;
  }
}
