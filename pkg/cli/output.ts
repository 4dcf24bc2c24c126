// Buffered stdout/stderr for the client commands, written with Bun.write so nothing is lost on exit.

let buf = "";

/** Queues text for stdout (written by flush, or when the buffer grows large). */
export function out(text: string): void {
  buf += text;
}

export async function flush(): Promise<void> {
  if (!buf) return;
  const text = buf;
  buf = "";
  await Bun.write(Bun.stdout, text);
}

/** Writes a line to stderr, after what stdout has queued. */
export async function errLine(text: string): Promise<void> {
  await flush();
  await Bun.write(Bun.stderr, text.endsWith("\n") ? text : `${text}\n`);
}

/** Flushes, prints a last error line if any, and exits with code. */
export async function finish(code: number, message?: string): Promise<never> {
  await flush();
  if (message) await Bun.write(Bun.stderr, `${message}\n`);
  process.exit(code);
}

/** Runs tasks with a concurrency limit and reports results in task order as soon as they are known. */
export async function inOrder<T>(tasks: (() => Promise<T>)[], limit: number, report: (r: T) => Promise<void> | void): Promise<void> {
  const results: (T | undefined)[] = new Array(tasks.length);
  const done: boolean[] = new Array(tasks.length).fill(false);
  let next = 0, reported = 0, reporting = false;
  const ready = async () => {
    if (reporting) return; // the worker already reporting picks this result up too
    reporting = true;
    while (reported < tasks.length && done[reported]) {
      const r = results[reported]!;
      results[reported++] = undefined;
      await report(r);
    }
    reporting = false;
  };
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
      done[i] = true;
      await ready();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  await ready();
}

const warned = new Set<string>();
/** Prints a server's warning once per command, at once, as kubectl does (`Warning: ...` on stderr). */
export function printWarning(text: string): void {
  if (warned.has(text)) return;
  warned.add(text);
  process.stderr.write(`Warning: ${text}\n`);
}
