// --feature-gates: parsing as upstream's featuregate package does (repeatable, key=value comma-separated,
// AllAlpha/AllBeta, locked GA gates, warnings for GA and deprecated gates), and the flag's --help text.
import { ALL_ALPHA, ALL_BETA, EFFECTS, GATES } from "./gates.ts";

export type Features = Record<string, boolean>;

export class FeatureGateError extends Error {}

/** Go's strconv.ParseBool. */
function parseBool(k: string, v: string): boolean {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
  throw new FeatureGateError(`invalid value of ${k}=${v}, err: strconv.ParseBool: parsing "${JSON.stringify(v).slice(1, -1)}": invalid syntax`);
}

/** The gates one flag value sets, in order; an unknown gate or a bad value throws upstream's reason. */
function settings(value: string): [string, boolean][] {
  const out: [string, boolean][] = [];
  for (const item of value.split(",")) {
    if (!item) continue;
    const eq = item.indexOf("=");
    const k = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${k}`);
    out.push([k, parseBool(k, item.slice(eq + 1).trim())]);
  }
  return out;
}

export interface ParsedGates { features: Features; warnings: string[] }

/**
 * Every gate's value after the given --feature-gates values (each occurrence of the flag adds to the
 * ones before). AllAlpha/AllBeta set the gates of their stage that are not set by name.
 */
export function parseFeatureGates(values: string[]): ParsedGates {
  const set = new Map<string, boolean>();
  const warnings: string[] = [];
  for (const value of values) {
    for (const [k, v] of settings(value)) {
      const spec = GATES[k];
      if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${k}`);
      if (spec.lockToDefault && spec.default !== v) throw new FeatureGateError(`cannot set feature gate ${k} to ${v}, feature is locked to ${spec.default}`);
      set.set(k, v);
      if (spec.stage === "DEPRECATED") warnings.push(`Setting deprecated feature gate ${k}=${v}. It will be removed in a future release.`);
      else if (spec.stage === "GA") warnings.push(`Setting GA feature gate ${k}=${v}. It will be removed in a future release.`);
    }
  }
  const features: Features = {};
  for (const [k, spec] of Object.entries(GATES)) {
    const all = spec.stage === "ALPHA" ? set.get(ALL_ALPHA) : spec.stage === "BETA" ? set.get(ALL_BETA) : undefined;
    features[k] = set.get(k) ?? (k !== ALL_ALPHA && k !== ALL_BETA && all !== undefined ? all : spec.default);
  }
  return { features, warnings };
}

/** The ALPHA and BETA gates as upstream's --help lists them, sorted. */
export function knownFeatures(): string[] {
  return Object.entries(GATES)
    .filter(([, g]) => g.stage === "ALPHA" || g.stage === "BETA")
    .map(([k, g]) => `${k}=true|false (${g.stage} - default=${g.default})`)
    .sort();
}

export const FEATURE_GATES_HELP = `A set of key=value pairs that describe feature gates for alpha/experimental features (repeatable; comma-separated). In Kite: ${Object.entries(EFFECTS).map(([k, e]) => `${k} (${e})`).join("; ")}; every other gate is accepted without effect (Kite has no such behaviour to switch). Options are: ${knownFeatures().join(", ")}`;
