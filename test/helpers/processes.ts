// Every server and etcd a test starts is tracked here, so that none outlives the test run
// (test/setup.ts kills what is left after all tests; a failed test may skip its own stop).
import type { Subprocess } from "bun";

const live = new Set<Subprocess>();

export function track(p: Subprocess) {
  live.add(p);
  p.exited.then(() => live.delete(p));
}

export function killAll() {
  for (const p of live) p.kill(9);
  live.clear();
}

process.on("exit", killAll);
