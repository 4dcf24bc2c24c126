// A quantity printed as upstream's Quantity.String() prints it: the canonical form that messages show
// ("2000m" is "2", "1.5" is "1500m", "1536Mi" stays "1536Mi", "0.5Gi" is "512Mi", "12e2" is "1200").
// Exact arithmetic on BigInt, so large and small values print as Go's inf.Dec does.

const SHAPE = /^([+-]?)([0-9]*)\.?([0-9]*)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const DECIMAL: Record<string, number> = { "": 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_SUFFIX = Object.fromEntries(Object.entries(DECIMAL).map(([k, v]) => [v, k]));
const BINARY_SUFFIX = ["", ...Object.keys(BINARY)];

/** Digits and a power of ten with no trailing zeros in the digits, the power moved to a multiple of 3. */
function engineering(digits: bigint, exp: number): [bigint, number] {
  while (digits >= 10n && digits % 10n === 0n) { digits /= 10n; exp++; }
  const r = exp % 3;
  if (r === 1 || r === -2) return [digits * 10n, exp - 1];
  if (r === 2 || r === -1) return [digits * 100n, exp - 2];
  return [digits, exp];
}

/** The canonical text of a quantity (a string or a JSON number), or undefined when it does not parse. */
export function canonicalQuantity(v: unknown): string | undefined {
  const text = typeof v === "number" ? String(v) : v;
  if (typeof text !== "string") return undefined;
  const m = SHAPE.exec(text);
  if (!m || !(m[2] + m[3])) return undefined;
  const [, sign, whole, frac, suffix] = m;
  let digits = BigInt(whole + frac || "0");
  let exp = -frac.length;
  let format: "DecimalSI" | "BinarySI" | "DecimalExponent";
  if (suffix in DECIMAL) { format = "DecimalSI"; exp += DECIMAL[suffix]; }
  else if (suffix in BINARY) { format = "BinarySI"; digits *= 1024n ** BigInt(BINARY[suffix]); }
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) { format = "DecimalExponent"; exp += Number(suffix.slice(1)); }
  else return undefined;
  // what is finer than a nano-unit is rounded up to one, as upstream's parser does
  if (exp < -9) {
    const f = 10n ** BigInt(-9 - exp);
    digits = (digits + f - 1n) / f;
    exp = -9;
  }
  if (digits === 0n) return "0";
  const minus = sign === "-" ? "-" : "";
  if (format === "BinarySI") {
    const whole = exp >= 0 ? digits * 10n ** BigInt(exp) : undefined;
    const exact = whole ?? (digits % 10n ** BigInt(-exp) === 0n ? digits / 10n ** BigInt(-exp) : undefined);
    if (exact !== undefined && exact >= 1024n) {
      let n = exact, k = 0;
      while (n >= 1024n && n % 1024n === 0n) { n /= 1024n; k++; }
      return `${minus}${n}${BINARY_SUFFIX[k]}`;
    }
    format = "DecimalSI";
  }
  const [n, e] = engineering(digits, exp);
  if (format === "DecimalSI" && e in DECIMAL_SUFFIX) return `${minus}${n}${DECIMAL_SUFFIX[e]}`;
  return `${minus}${n}${e === 0 ? "" : `e${e}`}`;
}
