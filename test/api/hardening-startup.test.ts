// Issue 12, start-up checks and file safety: a damaged state.db is refused with one line naming the file
// and the recovery (which then works); the data dir, the store, keys and kubeconfigs are private to
// their owner; the WAL is emptied after compaction and at shutdown. The store checks are SQLite's; the
// modes of keys and kubeconfigs apply on both backends.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { BACKEND, freePort, startServer, type TestServer } from "../helpers/server.ts";
import { kiteUp as up, runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import { expectCode } from "./fixtures.ts";

setDefaultTimeout(90_000);

const CMS = "/api/v1/namespaces/default/configmaps";
const mode = (f: string) => (statSync(f).mode & 0o777).toString(8);
const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);

/** Creates `n` ConfigMaps of `bytes` each, `width` at a time. */
async function fill(s: TestServer, n: number, bytes: number, width = 32) {
  const v = "x".repeat(bytes);
  for (let i = 0; i < n; i += width) {
    await Promise.all(Array.from({ length: Math.min(width, n - i) }, async (_, j) => {
      expectCode(await s.call("POST", CMS, { metadata: { name: `cm-${i + j}` }, data: { v } }), 201, `create cm-${i + j}`);
    }));
  }
}

/** Writes random bytes over `pages` 4 KiB pages from `at` (a fraction of the file). */
function damage(file: string, at: number, pages: number) {
  const fd = openSync(file, "r+");
  const start = Math.floor((size(file) / 4096) * at) * 4096;
  for (let i = 0; i < pages; i++) writeSync(fd, crypto.getRandomValues(new Uint8Array(4096)), 0, 4096, start + i * 4096);
  closeSync(fd);
}

describe.skipIf(BACKEND === "etcd")("a damaged state.db (SQLite only: etcd checks its own files)", () => {
  test("the server refuses it with one line naming the file and the export, which saves what is readable", async () => {
    const s = await startServer();
    await fill(s, 400, 2000);
    expect(await s.stop()).toBe(0);
    const db = join(s.dataDir, "state.db");
    damage(db, 0.5, 4);

    const t0 = performance.now();
    const r = await runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${await freePort()}`, `--data-dir=${s.dataDir}`]);
    expect(r.timedOut).toBe(false);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(db);
    expect(lines[0]).toContain(`kite datastore export --data-dir ${s.dataDir}`);

    // The recovery it names: every readable object comes out, and the damaged pages cost only theirs.
    const out = join(tempDir("kite-salvage-"), "x.jsonl");
    const x = await runKite(["datastore", "export", `--data-dir=${s.dataDir}`, "-o", out]);
    expect(x.code).toBe(0);
    expect(x.err).toContain("exporting what can still be read");
    const saved = readFileSync(out, "utf8").trim().split("\n").filter((l) => l.includes("/configmaps/default/cm-"));
    expect(saved.length).toBeGreaterThan(300);
    expect(saved.length).toBeLessThanOrEqual(400);
  });

  test("kite up refuses a store that is not a database at all, with the same line", async () => {
    const dir = tempDir("kite-up-damaged-");
    mkdirSync(join(dir, "server"));
    writeFileSync(join(dir, "server", "state.db"), crypto.getRandomValues(new Uint8Array(64 * 1024)));
    const r = await runKite(["up", `--data-dir=${dir}`, `--secure-port=${await freePort()}`]);
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(join(dir, "server", "state.db"));
    expect(lines[0]).toContain("kite datastore export");
  });
});

describe("files are private to their owner", () => {
  test("kite apiserver: a new data dir is 0700, its keys 0600 (and on SQLite state.db and its -wal/-shm)", async () => {
    const dir = join(tempDir("kite-modes-"), "data");
    const s = await startServer([], dir);
    expectCode(await s.call("POST", CMS, { metadata: { name: "m" }, data: { a: "b" } }), 201, "create");
    expect(mode(dir)).toBe("700");
    expect(mode(join(dir, "pki"))).toBe("700");
    for (const key of ["ca.key", "apiserver.key"]) expect(`${key} ${mode(join(dir, "pki", key))}`).toBe(`${key} 600`);
    if (BACKEND === "sqlite") {
      for (const f of ["state.db", "state.db-wal", "state.db-shm"]) expect(`${f} ${mode(join(dir, f))}`).toBe(`${f} 600`);
    }
    await s.stop();
  });

  test.skipIf(BACKEND === "etcd")("a state.db an older version left readable by others is tightened when the server opens it", async () => {
    const s = await startServer();
    await s.stop();
    const db = join(s.dataDir, "state.db");
    chmodSync(db, 0o644);
    const again = await startServer([], s.dataDir);
    expect(mode(db)).toBe("600");
    await again.stop();
  });

  test("kite up: its data dir is 0700; kubeconfig, admin and serving keys 0600, also over an older readable kubeconfig", async () => {
    const dir = join(tempDir("kite-up-modes-"), "kite");
    const kubeconfig = join(dir, "kubeconfig.yaml");
    const first = await up(dir);
    expect(mode(dir)).toBe("700");
    expect(mode(join(dir, "server"))).toBe("700");
    for (const f of ["kubeconfig.yaml", "server/pki/admin.key", "server/state.db", "server/pki/ca.key", "server/pki/apiserver.key"]) {
      expect(`${f} ${mode(join(dir, f))}`).toBe(`${f} 600`);
    }
    first.kill("SIGINT");
    expect(await first.exited).toBe(0);

    chmodSync(kubeconfig, 0o644);
    const second = await up(dir);
    expect(mode(kubeconfig)).toBe("600");
    second.kill("SIGINT");
    expect(await second.exited).toBe(0);
  });
});

describe.skipIf(BACKEND === "etcd")("the WAL (SQLite only)", () => {
  test("is emptied after compaction and gone after SIGTERM, with every write kept", async () => {
    const s = await startServer(["--etcd-compaction-interval=1s"]);
    const db = join(s.dataDir, "state.db");
    await fill(s, 1500, 4000);
    for (let i = 0; i < 1500; i += 32) {
      await Promise.all(Array.from({ length: Math.min(32, 1500 - i) }, async (_, j) => {
        expectCode(await s.call("DELETE", `${CMS}/cm-${i + j}`), 200, `delete cm-${i + j}`);
      }));
    }
    // Compaction keeps one interval of history: two ticks after the last write it has dropped all of it
    // and given the space back (the file is back under 2 MB).
    const settled = () => size(db) < 2 * 1024 * 1024 && size(`${db}-wal`) <= 64 * 1024;
    const end = Date.now() + 20_000;
    while (!settled() && Date.now() < end) await Bun.sleep(250);
    expect(size(`${db}-wal`)).toBeLessThanOrEqual(64 * 1024);
    expect(size(db)).toBeLessThan(2 * 1024 * 1024);

    expectCode(await s.call("POST", CMS, { metadata: { name: "last" }, data: { a: "b" } }), 201, "create after compaction");
    expect(await s.stop()).toBe(0);
    expect(size(`${db}-wal`)).toBe(0);
    const again = await startServer([], s.dataDir);
    expectCode(await again.call("GET", `${CMS}/last`), 200, "the last write after a restart");
    await again.stop();
  });
});
