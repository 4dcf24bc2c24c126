// How a long-running component command (scheduler, node agent) ends: SIGTERM or SIGINT aborts its run
// and exits 0 once it has stopped (then `afterStop`, e.g. closing its ports); a run that ends on its own
// with an error (a lost lease) exits 1 with one line.
import { consola } from "consola";

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
    console.error(`Error: ${(e as Error).message}`);
    process.exit(1);
  }
}
