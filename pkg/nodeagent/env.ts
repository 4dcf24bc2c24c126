// A container's environment as upstream's kubelet makes it (makeEnvironmentVariables): envFrom first
// (later sources win, invalid names skipped), then env in order — a value with $(VAR) expanded from the
// variables so far and the service variables, or a valueFrom resolved — then the service variables no
// other variable named. A missing non-optional source fails with the kubelet's message.
import { envVarName } from "../validation/names.ts";
import type { Obj } from "./node.ts";
import { expand } from "./runtime/config.ts";
import { containerResourceValue, podFieldValue, type Allocatable, type PodAddresses } from "./volumes/downward.ts";
import { orEmpty, type PodObjects } from "./volumes/objects.ts";

export interface EnvSources {
  objects: PodObjects;
  addresses: PodAddresses;
  /** The node's allocatable: the limits a resourceFieldRef reads when the container sets none. */
  allocatable: () => Allocatable;
  /** The service variables of the pod's namespace (env-services.ts). */
  serviceEnv: Map<string, string>;
  /** Told of what upstream reports as a Warning event (reason, message). */
  warn: (reason: string, message: string) => void;
}

const secretValue = (b64: string) => Buffer.from(b64, "base64").toString();

/** The two kinds of object env reads, each with its words and how its values read. */
const KINDS = {
  configMap: { word: "ConfigMap", event: "configMap", get: (o: PodObjects) => o.configMap.bind(o), data: (obj: Obj) => Object.entries<string>(obj.data ?? {}) },
  secret: { word: "Secret", event: "secret", get: (o: PodObjects) => o.secret.bind(o), data: (obj: Obj) => Object.entries<string>(obj.data ?? {}).map(([k, v]) => [k, secretValue(v)] as [string, string]) },
};

export async function containerEnv(pod: Obj, c: Obj, src: EnvSources): Promise<Map<string, string>> {
  const ns = pod.metadata.namespace;
  // each object is read once per container, as upstream's per-call maps
  const read = new Map<string, Promise<Obj | undefined>>();
  const object = (kind: keyof typeof KINDS, name: string, optional: boolean) => {
    const k = `${kind}/${name}`;
    if (!read.has(k)) read.set(k, orEmpty(KINDS[kind].get(src.objects)(ns, name), false));
    return orEmpty(read.get(k)! as Promise<Obj>, optional);
  };
  const env = new Map<string, string>();
  for (const from of c.envFrom ?? []) {
    const kind = from.configMapRef ? "configMap" : from.secretRef ? "secret" : undefined;
    if (!kind) continue;
    const ref = from.configMapRef ?? from.secretRef;
    const obj = await object(kind, ref.name, ref.optional === true);
    if (!obj) continue;
    const invalid: string[] = [];
    for (const [key, value] of KINDS[kind].data(obj)) {
      const name = `${from.prefix ?? ""}${key}`;
      if (envVarName(name).length) invalid.push(name);
      else env.set(name, value);
    }
    if (invalid.length) {
      src.warn("InvalidEnvironmentVariableNames", `Keys [${invalid.sort().join(", ")}] from the EnvFrom ${KINDS[kind].event} ${ns}/${ref.name} were skipped since they are considered invalid environment variable names.`);
    }
  }
  // what $(VAR) sees: the service variables, overridden by the container's own so far
  const visible = new Map([...src.serviceEnv, ...env]);
  for (const e of c.env ?? []) {
    const value = e.value ? expand(e.value, visible) : e.valueFrom ? await valueFrom(pod, c, e.valueFrom, object, src) : "";
    if (value === undefined) continue;
    env.set(e.name, value);
    visible.set(e.name, value);
  }
  for (const [k, v] of src.serviceEnv) if (!env.has(k)) env.set(k, v);
  return env;
}

type ObjectReader = (kind: keyof typeof KINDS, name: string, optional: boolean) => Promise<Obj | undefined>;

/** One valueFrom; undefined when an optional source or key is missing (the variable is left out). */
async function valueFrom(pod: Obj, c: Obj, from: Obj, object: ObjectReader, src: EnvSources): Promise<string | undefined> {
  if (from.fieldRef) return podFieldValue(pod, from.fieldRef.fieldPath, src.addresses);
  if (from.resourceFieldRef) return containerResourceValue(from.resourceFieldRef, c, src.allocatable());
  const kind = from.configMapKeyRef ? "configMap" : from.secretKeyRef ? "secret" : undefined;
  if (!kind) return "";
  const ref = from.configMapKeyRef ?? from.secretKeyRef, optional = ref.optional === true;
  const obj = await object(kind, ref.name, optional);
  if (!obj) return undefined;
  const found = KINDS[kind].data(obj).find(([k]) => k === ref.key);
  if (found) return found[1];
  if (optional) return undefined;
  throw new Error(`couldn't find key ${ref.key} in ${KINDS[kind].word} ${pod.metadata.namespace}/${ref.name}`);
}
