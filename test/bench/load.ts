// Shared by the benchmarks: a closed-loop load generator and a progress line on stderr.

/** Runs `total` calls with `conc` workers; returns ops/s. */
export async function load(total: number, conc: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: conc }, async () => {
    for (let i = next++; i < total; i = next++) await op(i);
  }));
  return total / ((performance.now() - t0) / 1000);
}

export const progress = (s: string) => process.stderr.write(`  ${s}\n`);
