// Every server and etcd a test starts, and every temp dir it makes, is tracked here, so that none
// outlives the test run (test/setup.ts cleans up after all tests; a failed test may skip its own stop).
// Temp dirs left behind by earlier runs once filled this machine's disk (530 etcd data dirs, 66 GB).
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const live = new Set<Subprocess>();
const dirs = new Set<string>();
const cleanups = new Set<() => void>();

export function track(p: Subprocess) {
  live.add(p);
  p.exited.then(() => live.delete(p));
}

/** A new temp dir named `<prefix>XXXXXX`, removed when the test run ends. */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(d);
  return d;
}

/** Runs `f` when the test run ends, before the temp dirs go (e.g. to stop what a node agent left running). */
export function atCleanup(f: () => void) {
  cleanups.add(f);
}

/** Kills what is still running, then removes the temp dirs. */
export function killAll() {
  for (const p of live) p.kill(9);
  live.clear();
  for (const f of cleanups) f();
  cleanups.clear();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

process.on("exit", killAll);
