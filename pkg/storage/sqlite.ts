// The embedded store: an append-only MVCC log in one SQLite table (as kine keeps one),
// one writer connection with group commit, and an in-process change feed.
//
// Commits are made durable off the event loop: SQLite writes each batch to its WAL without syncing
// (synchronous = NORMAL), then the WAL file is fsynced on a worker thread; only then are the batch's
// writes acknowledged, published to watchers and visible to readers (`durableRev`). A write is
// acknowledged exactly when it would be under synchronous = FULL, but the server keeps serving while
// the disk syncs; writes that arrive during an fsync commit together after it (one commit per fsync).
import { Database, type Statement } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, fsync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import {
  type KeyValue, type ListOptions, type ListResult, type Store, StoreError, type Value, type WatchEvent, type Watcher, prefixEnd,
} from "./store.ts";

// value is TEXT for JSON and a BLOB for the binary media type; SQLite keeps whichever it is given.
interface Row { rev: number; key: string; create_rev: number; prev_rev: number; deleted: number; value: Value }

type Op =
  | { kind: "create"; key: string; value: Value }
  | { kind: "update"; key: string; value: Value; expected: number }
  | { kind: "delete"; key: string; expected?: number };

interface Pending { op: Op; resolve: (kv: KeyValue) => void; reject: (e: Error) => void }

interface Listener { prefix: string; onEvent: (ev: WatchEvent) => void }

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  rev INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  create_rev INTEGER NOT NULL,
  prev_rev INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kv_key_rev ON kv(key, rev);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

/** Pages given back to the file system per step of a compaction (4 MB: one step's WAL writes). */
const VACUUM_STEP_PAGES = 1000;
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
/** How long SQLite waits for another connection's lock (an export reading a live store). */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The store holds every object, Secrets included: its directory is created 0700, and the file 0600
 * before SQLite opens it, since SQLite gives the -wal and -shm files the database file's mode. Files an
 * older version left readable by others are tightened.
 */
function makePrivate(path: string) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const f of [path, `${path}-wal`, `${path}-shm`]) {
    const st = existsSync(f) ? statSync(f) : undefined;
    // Another user's file (read by an export) is not ours to change.
    if (st && st.mode & 0o077 && st.uid === process.getuid?.()) chmodSync(f, 0o600);
  }
}

/** The most loop turns a commit waits for more writes. */
const GATHER_TURNS = 4;

const toKV = (r: Row): KeyValue => ({ key: r.key, value: r.value, modRevision: r.rev, createRevision: r.create_rev });

export class SqliteStore implements Store {
  readonly name = "sqlite";
  private db: Database;
  /** The newest committed revision (the next write builds on it). */
  private rev: number;
  /** The newest revision on disk: readers and watchers see the store as of this revision. */
  private durableRev: number;
  private walFd: number | null = null;
  private syncing = false;
  private afterSync: (() => void)[] = [];
  private broken: Error | null = null;
  private compacted: number;
  private queue: Pending[] = [];
  private flushScheduled = false;
  private listeners = new Set<Listener>();
  private closed = false;
  private q: Record<string, Statement<any, any[]>>;

  constructor(readonly path: string) {
    if (path !== ":memory:") makePrivate(path);
    this.db = new Database(path, { create: true, strict: true });
    // auto_vacuum must be chosen before the first table exists.
    this.db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    this.db.exec("PRAGMA journal_mode = WAL");
    // When SQLite restarts a WAL that a burst grew, it cuts the file back to this (compaction empties it).
    this.db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    // The WAL is fsynced by this store before a write is acknowledged (see the top of this file).
    this.db.exec("PRAGMA synchronous = NORMAL");
    this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.db.exec(SCHEMA);
    this.q = {
      latest: this.db.prepare("SELECT * FROM kv WHERE key = ? ORDER BY rev DESC LIMIT 1"),
      // `latest` without its ORDER BY, which costs bun:sqlite several times the rest of the read:
      // whether a key has any row, a row by revision, whether a key has a row after a revision
      anyRow: this.db.prepare("SELECT rev FROM kv WHERE key = ? LIMIT 1"),
      byRev: this.db.prepare("SELECT * FROM kv WHERE rev = ?"),
      newer: this.db.prepare("SELECT rev FROM kv WHERE key = ? AND rev > ? LIMIT 1"),
      atRev: this.db.prepare("SELECT * FROM kv WHERE key = ? AND rev <= ? ORDER BY rev DESC LIMIT 1"),
      insert: this.db.prepare("INSERT INTO kv (rev, key, create_rev, prev_rev, deleted, value) VALUES (?, ?, ?, ?, ?, ?)"),
      // Walks the (key, rev) index in key order and keeps each key's newest row at or below the
      // revision, so a page costs its own rows, not the rest of the range.
      list: this.db.prepare(
        `SELECT * FROM kv k WHERE k.key >= ?1 AND k.key < ?2 AND k.deleted = 0
           AND k.rev = (SELECT MAX(rev) FROM kv WHERE key = k.key AND rev <= ?3) ORDER BY k.key LIMIT ?4`,
      ),
      count: this.db.prepare(
        `SELECT COUNT(*) AS n FROM kv k WHERE k.key >= ?1 AND k.key < ?2 AND k.deleted = 0
           AND k.rev = (SELECT MAX(rev) FROM kv WHERE key = k.key AND rev <= ?3)`,
      ),
      since: this.db.prepare(
        `SELECT kv.*, p.value AS prev_value, p.rev AS p_rev, p.create_rev AS p_create_rev
         FROM kv LEFT JOIN kv p ON p.rev = kv.prev_rev AND kv.prev_rev > 0
         WHERE kv.rev > ? AND kv.rev <= ? AND kv.key >= ? AND kv.key < ? ORDER BY kv.rev`,
      ),
      maxRev: this.db.prepare("SELECT COALESCE(MAX(rev), 0) AS r FROM kv"),
      getMeta: this.db.prepare("SELECT value FROM meta WHERE name = ?"),
      setMeta: this.db.prepare("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value"),
      superseded: this.db.prepare(
        `SELECT rev FROM kv WHERE rev <= ?1 AND rev < ?2 AND (deleted = 1 OR EXISTS
           (SELECT 1 FROM kv n WHERE n.key = kv.key AND n.rev > kv.rev AND n.rev <= ?1)) LIMIT 2000`,
      ),
      del: this.db.prepare("DELETE FROM kv WHERE rev = ?"),
      freePages: this.db.prepare("PRAGMA freelist_count"),
    };
    this.rev = (this.q.maxRev.get() as { r: number }).r;
    this.compacted = (this.q.getMeta.get("compact_rev") as { value: number } | null)?.value ?? 0;
    // Revision 0 means "no data"; a fresh store starts at 1 like etcd.
    if (this.rev === 0) this.rev = 1;
    this.durableRev = this.rev;
  }

  async currentRevision() { return this.durableRev; }
  async compactedRevision() { return this.compacted; }

  private checkRevision(revision: number) {
    if (revision > 0 && revision < this.compacted) throw new StoreError("Compacted", "", `revision ${revision} has been compacted`);
    if (revision > this.durableRev) throw new StoreError("FutureRevision", "", `revision ${revision} is newer than ${this.durableRev}`);
  }

  async get(key: string, revision = 0): Promise<KeyValue | null> {
    this.checkRevision(revision);
    const row = this.q.atRev.get(key, revision > 0 ? revision : this.durableRev) as Row | null;
    return row && !row.deleted ? toKV(row) : null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const revision = opts.revision || this.durableRev;
    this.checkRevision(revision);
    const start = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    const end = prefixEnd(prefix);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const rows = this.q.list.all(start, end, revision, limit > 0 ? limit + 1 : -1) as Row[];
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    let remaining = 0;
    if (more && opts.countRemaining !== false) {
      const after = rows[rows.length - 1].key + "\x00";
      remaining = (this.q.count.get(after, end, revision) as { n: number }).n;
    }
    return { items: rows.map(toKV), revision, more, remaining };
  }

  async count(prefix: string): Promise<number> {
    return (this.q.count.get(prefix, prefixEnd(prefix), this.durableRev) as { n: number }).n;
  }

  create(key: string, value: Value) { return this.enqueue({ kind: "create", key, value }); }
  update(key: string, value: Value, expected: number) { return this.enqueue({ kind: "update", key, value, expected }); }
  delete(key: string, expected?: number) { return this.enqueue({ kind: "delete", key, expected }); }

  private enqueue(op: Op): Promise<KeyValue> {
    if (this.closed) return Promise.reject(new StoreError("Unavailable", op.key, "store is closed"));
    if (this.broken) return Promise.reject(new StoreError("Unavailable", op.key, this.broken.message));
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      this.scheduleFlush();
    });
  }

  /**
   * setImmediate runs after a loop turn's I/O: the commit waits for the turn in which no write arrived
   * (at most GATHER_TURNS turns), so requests that arrive over a few turns of a busy loop share one commit
   * (each commit costs an fsync and ~50 µs of this thread), while on an idle loop the extra turn is
   * immediate; while an fsync runs, writes wait for it and then commit together (one commit per fsync).
   */
  private scheduleFlush() {
    if (this.flushScheduled || this.syncing || this.queue.length === 0) return;
    this.flushScheduled = true;
    let seen = 0;
    let turns = 0;
    const gather = () => {
      if (this.queue.length > seen && ++turns < GATHER_TURNS) {
        seen = this.queue.length;
        return void setImmediate(gather);
      }
      this.flush();
    };
    setImmediate(gather);
  }

  /** Group commit: apply every queued write in one transaction; once it is on disk, acknowledge and publish in revision order. */
  private flush() {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    const done: { p: Pending; kv: KeyValue; ev: WatchEvent }[] = [];
    const failed: { p: Pending; err: Error }[] = [];
    const startRev = this.rev;
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          try {
            const r = this.apply(p.op);
            done.push({ p, ...r });
          } catch (e) {
            failed.push({ p, err: e as Error });
          }
        }
      }).immediate();
    } catch (e) {
      this.rev = startRev;
      for (const p of batch) p.reject(new StoreError("Unavailable", p.op.key, `commit failed: ${(e as Error).message}`));
      return;
    }
    for (const { p, err } of failed) p.reject(err);
    if (done.length === 0) return;
    const rev = this.rev;
    this.whenDurable(() => {
      this.durableRev = rev;
      for (const { p, kv, ev } of done) {
        p.resolve(kv);
        this.publish(ev);
      }
    }, (err) => { for (const { p } of done) p.reject(err); });
  }

  /** Runs `then` once an fsync of the WAL that began after this call has finished, in call order. */
  private whenDurable(then: () => void, fail: (e: Error) => void) {
    if (this.path === ":memory:") return then();
    this.afterSync.push(() => (this.broken ? fail(new StoreError("Unavailable", "", this.broken.message)) : then()));
    if (!this.syncing) this.sync();
  }

  private sync() {
    const due = this.afterSync;
    this.afterSync = [];
    this.syncing = true;
    this.walFd ??= openSync(`${this.path}-wal`, "r");
    fsync(this.walFd, (err) => {
      // A failed fsync leaves the disk's state unknown: no later write is accepted (as etcd and
      // PostgreSQL stop); a restart recovers what SQLite finds on disk.
      if (err) this.broken ??= new Error(`the store could not sync its log to disk: ${err.message}`);
      this.syncing = false;
      due.forEach((f) => f());
      if (this.afterSync.length) this.sync();
      else this.scheduleFlush();
    });
  }

  private apply(op: Op): { kv: KeyValue; ev: WatchEvent } {
    const cur = this.newest(op);
    const live = cur && !cur.deleted ? cur : null;
    if (op.kind === "create") {
      if (live) throw new StoreError("KeyExists", op.key);
    } else {
      if (!live) throw new StoreError("NotFound", op.key);
      const expected = op.expected;
      if (expected !== undefined && expected !== 0 && expected !== live.rev) {
        throw new StoreError("Conflict", op.key, `revision ${expected} is not the current ${live.rev}`, live.rev);
      }
    }
    const rev = this.rev + 1;
    const createRev = op.kind === "create" ? rev : live!.create_rev;
    const value = op.kind === "delete" ? live!.value : op.value;
    this.q.insert.run(rev, op.key, createRev, live ? live.rev : 0, op.kind === "delete" ? 1 : 0, value);
    this.rev = rev;
    const kv: KeyValue = { key: op.key, value, modRevision: rev, createRevision: createRev };
    const prev = live ? toKV(live) : undefined;
    const ev: WatchEvent = { type: op.kind === "delete" ? "DELETE" : "PUT", kv, prev, created: op.kind === "create" };
    return { kv, ev };
  }

  /** The key's newest row, found the cheap way when the write says what it expects. */
  private newest(op: Op): Row | null {
    // most creates are of a key the store has never held; most updates and deletes name the revision they replace
    if (op.kind === "create" && this.q.anyRow.get(op.key) === null) return null;
    if (op.kind !== "create" && op.expected) {
      const row = this.q.byRev.get(op.expected) as Row | null;
      if (row && row.key === op.key && this.q.newer.get(op.key, op.expected) === null) return row;
    }
    return this.q.latest.get(op.key) as Row | null;
  }

  private publish(ev: WatchEvent) {
    for (const l of this.listeners) if (ev.kv.key.startsWith(l.prefix)) l.onEvent(ev);
  }

  async watch(prefix: string, afterRevision: number, onEvent: (ev: WatchEvent) => void): Promise<Watcher> {
    if (afterRevision > 0 && afterRevision < this.compacted) {
      throw new StoreError("Compacted", prefix, `revision ${afterRevision} has been compacted`);
    }
    // Replay and subscribe in one synchronous step, so no commit can fall between them.
    const rows = this.q.since.all(afterRevision, this.durableRev, prefix, prefixEnd(prefix)) as (Row & { prev_value: Value | null; p_rev: number | null; p_create_rev: number | null })[];
    for (const r of rows) {
      const prev = r.prev_value !== null ? { key: r.key, value: r.prev_value, modRevision: r.p_rev!, createRevision: r.p_create_rev! } : undefined;
      onEvent({ type: r.deleted ? "DELETE" : "PUT", kv: toKV(r), prev, created: !r.deleted && r.prev_rev === 0 });
    }
    const l: Listener = { prefix, onEvent };
    this.listeners.add(l);
    // Listeners run synchronously as a batch becomes durable, so every event up to durableRev is delivered.
    return { close: () => this.listeners.delete(l), progress: async () => this.durableRev };
  }

  /** Remove superseded rows and tombstones at or below revision, in small steps, then give the space back. */
  async compact(revision: number): Promise<void> {
    if (revision <= this.compacted) return;
    revision = Math.min(revision, this.durableRev);
    for (;;) {
      const revs = this.q.superseded.all(revision, this.durableRev) as { rev: number }[];
      if (revs.length === 0) break;
      this.db.transaction(() => { for (const r of revs) this.q.del.run(r.rev); })();
      if (!(await this.nextTurn())) return;
    }
    this.compacted = revision;
    this.q.setMeta.run("compact_rev", revision);
    // Moving pages writes them to the WAL: give them back first, in steps (SQLite's automatic
    // checkpoint keeps the WAL to about one step), then empty the WAL.
    for (let free = this.freePages(); free > 0;) {
      this.db.exec(`PRAGMA incremental_vacuum(${VACUUM_STEP_PAGES})`);
      if (!(await this.nextTurn())) return;
      const left = this.freePages();
      // A file made without auto_vacuum gives nothing back: stop rather than spin.
      if (left >= free) break;
      free = left;
    }
    this.truncateWal();
  }

  /** Lets requests run between compaction steps; false when the store was closed meanwhile. */
  private async nextTurn(): Promise<boolean> {
    await new Promise((r) => setImmediate(r));
    return !this.closed;
  }

  private freePages(): number {
    return (this.q.freePages.get() as { freelist_count: number }).freelist_count;
  }

  /**
   * Copies the WAL into the database file and truncates it to 0 bytes. SQLite syncs the WAL before
   * and the database after, so a batch whose own fsync is still running is durable all the same.
   * A reader in another process (an export) holds the WAL: then this gives up at once rather than
   * block the event loop, and the next compaction tries again.
   */
  private truncateWal() {
    this.db.exec("PRAGMA busy_timeout = 0");
    try {
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  async close() {
    if (this.closed) return;
    // Let queued writes finish before closing.
    while (this.queue.length || this.flushScheduled || this.syncing) await new Promise((r) => setImmediate(r));
    this.closed = true;
    this.listeners.clear();
    if (this.walFd !== null) closeSync(this.walFd);
    // Closing the last connection (no statement left open) also checkpoints the WAL and removes it; with
    // another one open (an export), this still leaves the WAL empty when that one is not reading.
    this.truncateWal();
    for (const st of Object.values(this.q)) st.finalize();
    this.db.close();
  }
}
