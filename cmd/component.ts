// How a command starts, and how a long-running component command (scheduler, node agent) ends: a start-up
// failure is one line; SIGTERM or SIGINT aborts the run and exits 0 once it has stopped (then `afterStop`,
// e.g. closing its ports); a run that ends on its own with an error (a lost lease) exits 1 with one line.
// Kept apart from cmd/apiserver.ts so that a component does not load the API server's code.
import { consola } from "consola";
import { startupFailure } from "../pkg/server/startup-errors.ts";
import { exitWithError } from "../pkg/cli/args.ts";

/** Runs a start-up step; a failure exits with one line (the code startupFailure gives), never a stack. */
export async function startOrExit<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    const { line, exitCode } = startupFailure(e);
    exitWithError(line, exitCode);
  }
}

export async function runUntilSignal(run: (signal: AbortSignal) => Promise<void>, stopping: string, afterStop?: () => Promise<void>): Promise<void> {
  const abort = new AbortController();
  const running = run(abort.signal);
  const stop = async (sig: string) => {
    consola.info(`${sig}: ${stopping}`);
    abort.abort();
    await running.catch(() => {});
    await afterStop?.();
    process.exit(0);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  try {
    await running;
  } catch (e) {
    exitWithError((e as Error).message, 1);
  }
}
