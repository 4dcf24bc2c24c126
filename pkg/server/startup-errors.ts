// Why a server could not start, in one line: what it was using (data dir, store, certificate, port) and
// what went wrong, never a stack. Exit status 2 when the command line asks for something another process
// holds (the data dir, the port: pick another); 1 when a file, the store or etcd failed.
import { dirname } from "node:path";
import { StartupError, reason } from "../serving/listen.ts";
import { CorruptStoreError } from "../storage/sqlitecheck.ts";

export { StartupError, listening, reason } from "../serving/listen.ts";

/** Errors that wrap another often repeat its prefix (`etcd: etcd: url: url: refused`): said once. */
const once = (line: string) => line.replace(/(\S+): (\1: )+/g, "$1: ");

/** Runs one start-up step; a failure becomes one line naming what the step was using. */
export async function step<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof StartupError || e instanceof CorruptStoreError) throw e;
    throw new StartupError(once(`${what}: ${reason(e)}`));
  }
}

/** The line a failed start prints (after `Error: `) and the process's exit status. */
export function startupFailure(e: unknown): { line: string; exitCode: number } {
  if (e instanceof StartupError) return { line: e.message, exitCode: e.exitCode };
  if (e instanceof CorruptStoreError) {
    const dir = dirname(e.file);
    return {
      line: `${e.message}; not serving from a damaged store. Recover what is readable with 'kite datastore export --data-dir ${dir} -o kite-export.jsonl', then 'kite datastore import --data-dir NEW_DIR -f kite-export.jsonl' and start on NEW_DIR`,
      exitCode: 1,
    };
  }
  return { line: once(reason(e)), exitCode: 1 };
}
