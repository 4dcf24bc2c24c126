// Upstream's Priority admission: a pod gets spec.priority and spec.preemptionPolicy from the PriorityClass
// it names (or the cluster's default class) when it is created, and a PriorityClass may be the default
// only while no other is. Classes are read from the watch cache, as upstream reads its informer; a class
// the cache does not hold yet is confirmed with a consistent read. (Updates of a pod keep what was set
// on create: the pod strategy carries it over.)
import { forbidden } from "../api/status.ts";
import type { ResourceStore } from "./generic.ts";
import type { Obj } from "./types.ts";

const PODS = { group: "", resource: "pods" };
const CLASSES = { group: "scheduling.k8s.io", resource: "priorityclasses" };
/** What a pod gets when it names no class and none is the default. */
const NO_CLASS = { name: "", value: 0, preemptionPolicy: "PreemptLowerPriority" };

async function named(classes: ResourceStore, name: string): Promise<Obj | undefined> {
  const read = (rv: string) => classes.get("", name, rv).catch((e) => {
    if (e.code === 404) return undefined;
    throw e;
  });
  return (await read("0")) ?? (await read(""));
}

/** The default class; of several (two made at once), the lowest value, as upstream picks. */
async function defaultClass(classes: ResourceStore): Promise<Obj | undefined> {
  let found: Obj | undefined;
  for (const pc of (await classes.list("", { resourceVersion: "0" })).items as Obj[]) {
    if (pc.globalDefault === true && (!found || found.value > pc.value)) found = pc;
  }
  return found;
}

/** Fills a new pod's priority in from its class, or refuses the pod (403) as upstream does. */
export async function admitPodPriority(pod: Obj, classes: ResourceStore): Promise<void> {
  const spec = (pod.spec ??= {});
  const refuse = (why: string) => forbidden(PODS, pod.metadata.name, why);
  let cls: { name: string; value: number; preemptionPolicy?: string } = NO_CLASS;
  if (spec.priorityClassName) {
    const pc = await named(classes, spec.priorityClassName);
    if (!pc) throw refuse(`no PriorityClass with name ${spec.priorityClassName} was found`);
    cls = { name: pc.metadata.name, value: pc.value ?? 0, preemptionPolicy: pc.preemptionPolicy };
  } else {
    const pc = await defaultClass(classes);
    if (pc) cls = { name: pc.metadata.name, value: pc.value ?? 0, preemptionPolicy: pc.preemptionPolicy };
    if (cls.name) spec.priorityClassName = cls.name;
  }
  if (spec.priority !== undefined && spec.priority !== null && spec.priority !== cls.value) {
    throw refuse(`the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${cls.value} from the given PriorityClass name`);
  }
  spec.priority = cls.value;
  if (cls.preemptionPolicy) {
    if (spec.preemptionPolicy && spec.preemptionPolicy !== cls.preemptionPolicy) {
      throw refuse(`the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${cls.preemptionPolicy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = cls.preemptionPolicy;
  }
}

/** Refuses a second default class: on create, or an update marking another class default. */
export async function admitPriorityClass(pc: Obj, old: Obj | undefined, classes: ResourceStore): Promise<void> {
  if (pc.globalDefault !== true) return;
  const current = await defaultClass(classes);
  if (current && (!old || current.metadata.name !== pc.metadata.name)) {
    throw forbidden(CLASSES, pc.metadata.name, `PriorityClass ${current.metadata.name} is already marked as default. Only one default can exist`);
  }
}
