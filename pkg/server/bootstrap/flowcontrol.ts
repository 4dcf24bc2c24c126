// Priority and fairness configuration, as upstream's config producer keeps it: the suggested objects
// are made once when missing, the mandatory ones (exempt, catch-all) are made again whenever deleted,
// and each FlowSchema's Dangling condition says whether its priority level exists.
import type { Registry } from "../../registry/registry.ts";
import type { Obj } from "../../registry/types.ts";
import { GROUP } from "../../flowcontrol/apf.ts";
import { MANDATORY_LEVELS, MANDATORY_SCHEMAS, SUGGESTED_LEVELS, SUGGESTED_SCHEMAS } from "../../flowcontrol/bootstrap.ts";
import { type Runner, current, inform, settled } from "./informer.ts";

const MANAGER = "api-priority-and-fairness-config-producer-v1";
const RESOURCES = { PriorityLevelConfiguration: "prioritylevelconfigurations", FlowSchema: "flowschemas" } as Record<string, string>;
const MANDATORY = new Map([...MANDATORY_LEVELS, ...MANDATORY_SCHEMAS].map((o) => [`${o.kind}/${o.metadata.name}`, o]));
const ALL = [...MANDATORY_LEVELS, ...SUGGESTED_LEVELS, ...MANDATORY_SCHEMAS, ...SUGGESTED_SCHEMAS];

const store = (registry: Registry, kind: string) => registry.lookup(GROUP, "v1beta1", RESOURCES[kind]!)!;

/** Job of a Runner, keyed Kind/name: makes the object when it is missing. */
export function ensureFlowControlObject(registry: Registry, key: string): Promise<void> {
  const obj = MANDATORY.get(key) ?? ALL.find((o) => `${o.kind}/${o.metadata.name}` === key)!;
  return ensure(registry, obj);
}

async function ensure(registry: Registry, obj: Obj): Promise<void> {
  const rs = store(registry, obj.kind);
  if (await current(rs, "", obj.metadata.name)) return;
  await rs.create("", structuredClone(obj), { fieldManager: MANAGER }).catch((e) => { if (!settled(e)) throw e; });
}

/** The Dangling condition a FlowSchema should carry, in upstream's words. */
function dangling(level: string, exists: boolean): Obj {
  return exists
    ? { type: "Dangling", status: "False", reason: "Found", message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists` }
    : { type: "Dangling", status: "True", reason: "NotFound", message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object` };
}

/** Job of a Runner, keyed by FlowSchema name: writes its Dangling condition when it changed. */
export async function markDangling(registry: Registry, name: string): Promise<void> {
  const fs = await current(store(registry, "FlowSchema"), "", name);
  if (!fs) return;
  const level = fs.spec?.priorityLevelConfiguration?.name ?? "";
  const want = dangling(level, !!(await current(store(registry, "PriorityLevelConfiguration"), "", level)));
  const conditions: Obj[] = fs.status?.conditions ?? [];
  const had = conditions.find((c) => c.type === "Dangling");
  if (had && had.status === want.status && had.message === want.message) return;
  const next = structuredClone(fs);
  next.status = { ...fs.status, conditions: [...conditions.filter((c) => c.type !== "Dangling"), { ...want, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z") }] };
  await store(registry, "FlowSchema").update("", name, next, "status", { fieldManager: MANAGER }).catch((e) => { if (!settled(e)) throw e; });
}

/**
 * Makes every missing object; then watches both kinds: a mandatory object deleted is made again, and a
 * FlowSchema's Dangling condition follows its level. Returns the watches' stops.
 */
export async function keepFlowControl(registry: Registry, runner: Runner, conditions: Runner): Promise<(() => void)[]> {
  for (const o of ALL) runner.run(`${o.kind}/${o.metadata.name}`);
  /** FlowSchema name → the level it names. */
  const levelOf = new Map<string, string>();
  return Promise.all(Object.keys(RESOURCES).map((kind) => inform(store(registry, kind), "", (type, obj) => {
    const name = obj.metadata.name;
    if (type === "DELETED" && MANDATORY.has(`${kind}/${name}`)) runner.run(`${kind}/${name}`);
    if (kind === "FlowSchema") {
      if (type === "DELETED") levelOf.delete(name);
      else { levelOf.set(name, obj.spec?.priorityLevelConfiguration?.name); conditions.run(name); }
    } else if (type !== "MODIFIED") {
      for (const [fs, level] of levelOf) if (level === name) conditions.run(fs);
    }
  })));
}

