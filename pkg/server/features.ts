// Feature gates (--feature-gates key=value,...): the gates the spec names, with their defaults.
// Gates marked `effect` change what the server does; the others are accepted for compatibility.

export interface FeatureGate { default: boolean; stage: "ALPHA" | "BETA"; effect?: string }

export const GATES: Record<string, FeatureGate> = {
  ServerSideApply: { default: true, stage: "BETA", effect: "apply patches and managedFields" },
  APIResponseCompression: { default: true, stage: "BETA", effect: "gzip of responses over 128 KB" },
  APIListChunking: { default: true, stage: "BETA", effect: "limit/continue on lists" },
  RemainingItemCount: { default: true, stage: "BETA", effect: "metadata.remainingItemCount on chunked lists" },
  APIPriorityAndFairness: { default: true, stage: "BETA" },
  WarningHeaders: { default: true, stage: "BETA" },
  RemoveSelfLink: { default: true, stage: "BETA" },
  EndpointSlice: { default: true, stage: "BETA" },
  EndpointSliceProxying: { default: true, stage: "BETA" },
  CPUManager: { default: true, stage: "BETA" },
  TopologyManager: { default: true, stage: "BETA" },
  APIServerIdentity: { default: false, stage: "ALPHA" },
  AllAlpha: { default: false, stage: "ALPHA" },
  AllBeta: { default: false, stage: "BETA" },
};

export type Features = Record<string, boolean>;

/** Parses `A=true,B=false`; throws with a one-line reason on an unknown gate or a bad value. */
export function parseFeatureGates(v: string): Features {
  const set: Features = {};
  for (const item of v.split(",").map((x) => x.trim()).filter(Boolean)) {
    const [k, val] = item.split("=");
    if (!(k in GATES)) throw new Error(`unrecognized feature gate: ${k}`);
    if (val !== "true" && val !== "false") throw new Error(`invalid value of ${k}=${val ?? ""}, err: strconv.ParseBool: parsing "${val ?? ""}": invalid syntax`);
    set[k] = val === "true";
  }
  const out: Features = {};
  for (const [k, g] of Object.entries(GATES)) {
    const all = g.stage === "ALPHA" ? set.AllAlpha : set.AllBeta;
    out[k] = set[k] ?? (k !== "AllAlpha" && k !== "AllBeta" && all !== undefined ? all : g.default);
  }
  return out;
}

export const DEFAULT_FEATURES: Features = parseFeatureGates("");
