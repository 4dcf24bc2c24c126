// Seeded random JSON values built from tricky YAML words, for comparing YAML readers on many shapes.

/** A seeded generator: `rnd(n)` in [0, n), and `value()` a random nested value of `words`, numbers and collections. */
export function randomValues(seed: number, words: readonly string[]) {
  const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const value = (depth = 0): unknown => {
    const k = rnd(depth > 3 ? 3 : 6);
    if (k === 0) return words[rnd(words.length)];
    if (k === 1) return rnd(1000) - 500;
    if (k === 2) return [true, false, null, 1.25][rnd(4)];
    if (k === 3) return Array.from({ length: rnd(4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = rnd(5); i > 0; i--) o[`k${rnd(50)}${["", "-x", ".y", "/z"][rnd(4)]}`] = value(depth + 1);
    return o;
  };
  return { rnd, value };
}
