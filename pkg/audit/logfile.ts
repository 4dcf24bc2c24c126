// The log backend: one line per event (JSON or legacy) to a file or standard output (`-`), the file rotated
// by size as lumberjack (upstream's rotating writer) does: backups named NAME-<UTC time>.EXT, optionally
// gzipped, kept by count (--audit-log-maxbackup) and age in days (--audit-log-maxage).
import { closeSync, createReadStream, createWriteStream, existsSync, fstatSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { type AuditEvent, legacyLine } from "./event.ts";
import type { Backend } from "./sink.ts";

export interface LogFileOptions {
  path: string;
  format: "json" | "legacy";
  /** The apiVersion events are written in. */
  version: string;
  maxSizeMB: number;
  maxBackups: number;
  maxAgeDays: number;
  compress: boolean;
  /**
   * Lines of one event-loop turn share one write, made before the server turns to other I/O (a write
   * per event cost more than the rest of auditing a request). Off in blocking-strict mode, where each
   * event is written, or fails, before the request goes on.
   */
  coalesce?: boolean;
}

/** lumberjack's size when none is given. */
const DEFAULT_MAX_MB = 100;

export class LogBackend implements Backend {
  readonly name = "log";
  private fd?: number;
  private size = 0;
  private readonly max: number;
  private pending: string[] = [];

  constructor(private o: LogFileOptions) {
    this.max = (o.maxSizeMB > 0 ? o.maxSizeMB : DEFAULT_MAX_MB) * 1024 * 1024;
    // opened at start-up: a path that cannot be written stops the server, not the first request
    if (o.path !== "-") this.open();
  }

  private line(ev: AuditEvent): string {
    return this.o.format === "legacy" ? legacyLine({ ...ev, apiVersion: this.o.version }) : JSON.stringify({ ...ev, apiVersion: this.o.version });
  }

  send(events: AuditEvent[]) {
    const text = events.map((ev) => this.line(ev)).join("\n") + "\n";
    if (!this.o.coalesce) return this.write(text);
    if (!this.pending.length) queueMicrotask(() => this.write(this.pending.splice(0).join("")));
    this.pending.push(text);
  }

  private write(text: string) {
    if (this.o.path === "-") { process.stdout.write(text); return; }
    const bytes = Buffer.byteLength(text);
    if (this.size + bytes > this.max && this.size > 0) this.rotate();
    writeSync(this.fd!, text);
    this.size += bytes;
  }

  private open() {
    this.fd = openSync(this.o.path, "a", 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private rotate() {
    closeSync(this.fd!);
    const backup = this.backupName(new Date());
    renameSync(this.o.path, backup);
    this.open();
    void this.tidy(backup);
  }

  private backupName(t: Date): string {
    const ext = extname(this.o.path);
    const stem = basename(this.o.path, ext);
    const stamp = t.toISOString().replace(/:/g, "-").replace("Z", "");
    return join(dirname(this.o.path), `${stem}-${stamp}${ext}`);
  }

  /** Compresses the new backup, then removes backups past the count and age limits. */
  private async tidy(backup: string) {
    if (this.o.compress) {
      await pipeline(createReadStream(backup), createGzip(), createWriteStream(`${backup}.gz`));
      unlinkSync(backup);
    }
    const ext = extname(this.o.path);
    const stem = basename(this.o.path, ext);
    const dir = dirname(this.o.path);
    const pattern = new RegExp(`^${escape(stem)}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}${escape(ext)}(\\.gz)?$`);
    const backups = readdirSync(dir).filter((f) => pattern.test(f)).sort().reverse().map((f) => join(dir, f));
    const old = Date.now() - this.o.maxAgeDays * 86400_000;
    backups.forEach((f, i) => {
      const tooMany = this.o.maxBackups > 0 && i >= this.o.maxBackups;
      const tooOld = this.o.maxAgeDays > 0 && existsSync(f) && statSync(f).mtimeMs < old;
      if (tooMany || tooOld) unlinkSync(f);
    });
  }

  close() {
    if (this.pending.length) this.write(this.pending.splice(0).join(""));
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
