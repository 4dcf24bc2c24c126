// One server per data dir: a server on the embedded store holds an exclusive flock(2) on DIR/kite.lock for
// its whole life. The kernel drops the lock when the process ends, however it ends (kill -9 included), so
// a stale file never keeps a data dir locked. The file holds the holder's pid and port for whoever finds
// it locked. It is never deleted: a lock is on an inode, and a new file at the path would be a second lock.
import { dlopen, FFIType } from "bun:ffi";
import { accessSync, closeSync, constants, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "./startup-errors.ts";

/** Another live kite process serves from this data dir: exit 2, as for a flag naming a busy port. */
export class DataDirInUseError extends StartupError {
  constructor(readonly dir: string, readonly holder: Holder | undefined) {
    const who = holder ? `kite pid ${holder.pid} (${holder.port ? `port ${holder.port}` : "still starting"})` : "another kite process";
    super(`data dir ${dir} is in use by ${who}`, 2);
  }
}

interface Holder { pid: number; port: number | null }

const LOCK_EX = 2, LOCK_NB = 4;
const RECORD_BYTES = 64;

/** libc's flock, or null where libc cannot be loaded (then a live pid in the file is the lock). */
const flock: ((fd: number, op: number) => number) | null = (() => {
  try {
    const libc = dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
    return libc.symbols.flock as (fd: number, op: number) => number;
  } catch {
    return null;
  }
})();

function readHolder(fd: number): Holder | undefined {
  try {
    const buf = Buffer.alloc(RECORD_BYTES);
    const h = JSON.parse(buf.toString("utf8", 0, readSync(fd, buf, 0, RECORD_BYTES, 0))) as Holder;
    return Number.isInteger(h.pid) ? h : undefined;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === "EPERM"; }
};

/** Creates the data dir (0700) if missing; refuses one that is not a directory or that this user may not use. */
export function ensureDataDir(dir: string) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw (e as NodeJS.ErrnoException).code === "EEXIST" ? new StartupError(`data dir ${dir} is not a directory`) : e;
  }
  accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
}

export class DataDirLock {
  private constructor(private fd: number) {}

  /** Takes the (existing) data dir, or throws DataDirInUseError naming its holder. */
  static acquire(dir: string): DataDirLock {
    const fd = openSync(join(dir, "kite.lock"), constants.O_RDWR | constants.O_CREAT, 0o600);
    const held = flock ? flock(fd, LOCK_EX | LOCK_NB) !== 0 : ((h) => !!h && h.pid !== process.pid && alive(h.pid))(readHolder(fd));
    if (held) {
      const holder = readHolder(fd);
      closeSync(fd);
      throw new DataDirInUseError(dir, holder);
    }
    const lock = new DataDirLock(fd);
    lock.record(null);
    return lock;
  }

  /** Records the port once the server listens, for the message a second server prints. */
  record(port: number | null) {
    // One write of a fixed size from offset 0: a reader sees the old holder or the new one, never a mix.
    const text = Buffer.from(`${JSON.stringify({ pid: process.pid, port } satisfies Holder).padEnd(RECORD_BYTES - 1)}\n`);
    writeSync(this.fd, text, 0, text.length, 0);
    ftruncateSync(this.fd, text.length);
  }

  release() {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}
