// Resource quantities ("500m", "1Gi", "2e3") parsed as upstream's resource.ParseQuantity accepts
// them. Dependency-free: the API server's validation and the scheduler both read quantities.

const SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const SUFFIX: Record<string, number> = {
  "": 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The value of a quantity in base units (cores, bytes), or null when upstream would refuse it. */
export function parseQuantity(q: unknown): number | null {
  if (typeof q === "number") return Number.isFinite(q) ? q : null;
  if (typeof q !== "string") return null;
  const m = SHAPE.exec(q);
  if (!m) return null;
  const [, num, suffix] = m;
  if ((num.match(/\./g)?.length ?? 0) > 1 || !/[0-9]/.test(num)) return null;
  let scale: number;
  if (suffix in SUFFIX) scale = SUFFIX[suffix];
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) scale = 10 ** Number(suffix.slice(1));
  else return null;
  return Number(num) * scale;
}
