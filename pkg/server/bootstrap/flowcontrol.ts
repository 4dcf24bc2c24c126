// Priority and fairness configuration, as upstream's config producer keeps it: the suggested objects
// are made once when missing, the mandatory ones (exempt, catch-all) are made again whenever deleted.
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

/** Makes every missing object; then watches for a mandatory one deleted. Returns the watches' stops. */
export async function keepFlowControl(registry: Registry, runner: Runner): Promise<(() => void)[]> {
  for (const o of ALL) runner.run(`${o.kind}/${o.metadata.name}`);
  return Promise.all(Object.keys(RESOURCES).map((kind) => inform(store(registry, kind), "", (type, obj) => {
    const key = `${kind}/${obj.metadata.name}`;
    if (type === "DELETED" && MANDATORY.has(key)) runner.run(key);
  })));
}
