// Reads a KubeSchedulerConfiguration file strictly, as upstream's scheduler decoder does: YAML or JSON, a
// repeated key, an unknown field or a value of the wrong type is an error naming the field.
import { checkShape as check, jsonType, StrictError, type Shape } from "../../util/strictshape.ts";
import { decodeYaml } from "../../yaml/decode.ts";
import { API_VERSION, KIND } from "./types.ts";

const strings: Shape = ["string"];
const resources: Shape = [{ name: "string", weight: "int" }];
const plugins: Shape = [{ name: "string", weight: "int" }];
const pluginSet: Shape = { enabled: plugins, disabled: plugins };
const typeMeta = { apiVersion: "string", kind: "string" } as const;

/** The fields of each in-tree plugin's Args kind (v1beta1). */
const ARGS: Record<string, { [field: string]: Shape }> = {
  DefaultPreemption: { minCandidateNodesPercentage: "int", minCandidateNodesAbsolute: "int" },
  InterPodAffinity: { hardPodAffinityWeight: "int" },
  NodeAffinity: { addedAffinity: "any" },
  NodeLabel: { presentLabels: strings, absentLabels: strings, presentLabelsPreference: strings, absentLabelsPreference: strings },
  NodeResourcesFit: { ignoredResources: strings, ignoredResourceGroups: strings },
  NodeResourcesLeastAllocated: { resources },
  NodeResourcesMostAllocated: { resources },
  RequestedToCapacityRatio: { shape: [{ utilization: "int", score: "int" }], resources },
  PodTopologySpread: { defaultConstraints: ["any"], defaultingType: "string" },
  ServiceAffinity: { affinityLabels: strings, antiAffinityLabelsPreference: strings },
  VolumeBinding: { bindTimeoutSeconds: "int" },
};

const CONFIG: Shape = {
  ...typeMeta,
  parallelism: "int",
  leaderElection: {
    leaderElect: "bool", leaseDuration: "duration", renewDeadline: "duration", retryPeriod: "duration",
    resourceLock: "string", resourceName: "string", resourceNamespace: "string",
  },
  clientConnection: { kubeconfig: "string", acceptContentTypes: "string", contentType: "string", qps: "float", burst: "int" },
  healthzBindAddress: "string",
  metricsBindAddress: "string",
  enableProfiling: "bool",
  enableContentionProfiling: "bool",
  percentageOfNodesToScore: "int",
  podInitialBackoffSeconds: "int",
  podMaxBackoffSeconds: "int",
  profiles: [{
    schedulerName: "string",
    plugins: Object.fromEntries(["queueSort", "preFilter", "filter", "postFilter", "preScore", "score", "reserve", "permit", "preBind", "bind", "postBind"].map((e) => [e, pluginSet])),
    // args are checked against their plugin's kind below
    pluginConfig: [{ name: "string", args: "any" }],
  }],
  extenders: [{
    urlPrefix: "string", filterVerb: "string", preemptVerb: "string", prioritizeVerb: "string", weight: "int", bindVerb: "string",
    enableHTTPS: "bool", httpTimeout: "duration", nodeCacheCapable: "bool", ignorable: "bool",
    tlsConfig: { insecure: "bool", serverName: "string", certFile: "string", keyFile: "string", caFile: "string", certData: "string", keyData: "string", caData: "string" },
    managedResources: [{ name: "string", ignoredByScheduler: "bool" }],
  }],
};

export class ConfigError extends Error {}

/** The args of a plugin config entry: an in-tree plugin's are of its Args kind, others are kept as given. */
function checkArgs(args: unknown, plugin: string, path: string) {
  const fields = ARGS[plugin];
  if (!fields || args === null || args === undefined) return;
  check(args, { ...typeMeta, ...fields }, path);
  const a = args as Record<string, unknown>;
  if ((a.kind !== undefined && a.kind !== `${plugin}Args`) || (a.apiVersion !== undefined && a.apiVersion !== API_VERSION)) {
    throw new ConfigError(`${path}: Invalid value: "${a.apiVersion ?? ""}, Kind=${a.kind ?? ""}": has to match plugin args (${API_VERSION}, Kind=${plugin}Args)`);
  }
}

/**
 * The configuration in a file's text (before defaulting). Only v1beta1 is served by v1.21's scheduler;
 * another version or kind is refused as upstream's scheme refuses it.
 */
export function decodeConfig(text: string): Record<string, any> {
  const repeats: string[] = [];
  let obj: unknown;
  try {
    obj = decodeYaml(text, (line, key) => repeats.push(`line ${line}: key ${JSON.stringify(key)} already set in map`));
  } catch (e) {
    throw new ConfigError(`error converting YAML to JSON: ${(e as Error).message}`);
  }
  if (repeats.length) throw new ConfigError(`error converting YAML to JSON: yaml: unmarshal errors: ${repeats.join("; ")}`);
  if (jsonType(obj) !== "object") throw new ConfigError("couldn't get version/kind; json parse error: expected an object");
  const o = obj as Record<string, any>;
  if (!o.apiVersion || !o.kind) throw new ConfigError(`Object 'Kind' is missing in '${text.trim().replace(/\s+/g, " ").slice(0, 200)}'`);
  if (o.kind !== KIND || o.apiVersion !== API_VERSION) {
    throw new ConfigError(`no kind "${o.kind}" is registered for version "${o.apiVersion}" in scheme "pkg/scheduler/apis/config/scheme/scheme.go:30"`);
  }
  try {
    check(o, CONFIG, "");
    (o.profiles ?? []).forEach((p: any, i: number) => (p?.pluginConfig ?? []).forEach((pc: any, j: number) => checkArgs(pc?.args, pc?.name, `profiles[${i}].pluginConfig[${j}].args`)));
  } catch (e) {
    if (e instanceof StrictError) throw new ConfigError(`strict decoding error: ${e.message}`);
    throw e;
  }
  return o;
}
