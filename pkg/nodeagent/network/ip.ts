// iproute2's `ip`, one process per batch of commands (`ip -batch -`). Each `ip` process reads the whole
// link table, so many pods' processes at once cost the square of their number: the host-side commands of
// every pod asking at the same time share one batch (IpQueue), grouped by step.

/** Runs `lines` as one batch inside the named network namespace; rejects with what `ip` printed. */
export async function ipBatchIn(netns: string, lines: string[]): Promise<void> {
  const { code, failed, stderr } = await runBatch(["-n", netns], lines);
  if (code !== 0) throw new Error(`ip: ${[...failed.values()].join("; ") || stderr.trim() || `exit status ${code}`}`);
}

/** What `ip ARGS` prints, or undefined when it fails (e.g. the device does not exist). */
export async function ipOutput(args: string[]): Promise<string | undefined> {
  const p = Bun.spawn(["ip", ...args], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  return code === 0 ? out : undefined;
}

/** `ip -force -batch -`: every line runs; the message of each failed line by its (1-based) number. */
async function runBatch(opts: string[], lines: string[]): Promise<{ code: number; failed: Map<number, string>; stderr: string }> {
  const p = Bun.spawn(["ip", ...opts, "-force", "-batch", "-"], { stdin: new Blob([`${lines.join("\n")}\n`]), stdout: "ignore", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  const failed = new Map<number, string>();
  let said: string[] = [];
  for (const line of stderr.split("\n")) {
    const m = /^Command failed -:(\d+)$/.exec(line);
    if (!m) { if (line.trim()) said.push(line.trim()); continue; }
    failed.set(Number(m[1]), said.join(" ") || "failed");
    said = [];
  }
  return { code, failed, stderr };
}

interface Request { steps: string[][]; resolve: () => void; reject: (e: Error) => void }

/** Host-side commands of many callers in as few `ip` processes as possible, one batch at a time. */
export class IpQueue {
  private waiting: Request[] = [];
  private busy = false;

  /** Runs each step's lines after every caller's earlier steps; rejects with the messages of this caller's failed lines. */
  run(steps: string[][]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ steps, resolve, reject });
      // callers of the same tick join one batch
      if (!this.busy) { this.busy = true; setTimeout(() => void this.flush(), 0); }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    const lines: string[] = [], owner: number[] = [];
    const depth = Math.max(...batch.map((r) => r.steps.length));
    for (let step = 0; step < depth; step++) {
      batch.forEach((r, i) => { for (const l of r.steps[step] ?? []) { lines.push(l); owner.push(i); } });
    }
    try {
      const { code, failed, stderr } = await runBatch([], lines);
      const errors = new Map<number, string[]>();
      for (const [n, message] of failed) errors.set(owner[n - 1], [...(errors.get(owner[n - 1]) ?? []), message]);
      if (code !== 0 && !failed.size) throw new Error(stderr.trim() || `exit status ${code}`);
      batch.forEach((r, i) => (errors.has(i) ? r.reject(new Error(`ip: ${errors.get(i)!.join("; ")}`)) : r.resolve()));
    } catch (e) {
      for (const r of batch) r.reject(new Error(`ip: ${(e as Error).message}`));
    }
    if (this.waiting.length) void this.flush();
    else this.busy = false;
  }
}
