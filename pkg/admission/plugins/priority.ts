// Priority: a pod gets spec.priority and spec.preemptionPolicy from the PriorityClass it names (or the
// cluster's default class) when it is created, and a PriorityClass may be the default only while no other
// is. Classes are read from the watch cache. (Updates of a pod keep what was set on create: the pod
// strategy carries it over.)
import { forbidden } from "../../api/status.ts";
import type { ResourceStore } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";
import { cachedGet, cachedList } from "../lookup.ts";
import { type Plugin, type PluginContext, isKind } from "../types.ts";

const PODS = { group: "", resource: "pods" };
const CLASSES = { group: "scheduling.k8s.io", resource: "priorityclasses" };
/** What a pod gets when it names no class and none is the default. */
const NO_CLASS = { name: "", value: 0, preemptionPolicy: "PreemptLowerPriority" };

/** The default class; of several (two made at once), the lowest value, as upstream picks. */
async function defaultClass(classes: ResourceStore): Promise<Obj | undefined> {
  let found: Obj | undefined;
  for (const pc of await cachedList(classes)) {
    if (pc.globalDefault === true && (!found || found.value > pc.value)) found = pc;
  }
  return found;
}

/** Fills a new pod's priority in from its class, or refuses the pod (403) as upstream does. */
async function admitPodPriority(pod: Obj, classes: ResourceStore): Promise<void> {
  const spec = (pod.spec ??= {});
  const refuse = (why: string) => forbidden(PODS, pod.metadata.name, why);
  let cls: { name: string; value: number; preemptionPolicy?: string } = NO_CLASS;
  if (spec.priorityClassName) {
    const pc = await cachedGet(classes, "", spec.priorityClassName);
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
async function admitPriorityClass(pc: Obj, old: Obj | undefined, classes: ResourceStore): Promise<void> {
  if (pc.globalDefault !== true) return;
  const current = await defaultClass(classes);
  if (current && (!old || current.metadata.name !== pc.metadata.name)) {
    throw forbidden(CLASSES, pc.metadata.name, `PriorityClass ${current.metadata.name} is already marked as default. Only one default can exist`);
  }
}

export function priority(ctx: PluginContext): Plugin {
  const classes = ctx.registry.priorityClasses;
  const isPod = (a: Parameters<Plugin["handles"]>[0]) => isKind(a, "", "Pod") && a.operation === "CREATE" && !a.subresource;
  const isClass = (a: Parameters<Plugin["handles"]>[0]) => isKind(a, "scheduling.k8s.io", "PriorityClass") && (a.operation === "CREATE" || a.operation === "UPDATE");
  return {
    handles: (a) => isPod(a) || isClass(a),
    admit: (a) => (isPod(a) ? admitPodPriority(a.object!, classes) : undefined),
    validate: (a) => (isClass(a) ? admitPriorityClass(a.object!, a.oldObject, classes) : undefined),
  };
}
