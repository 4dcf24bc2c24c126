// A container's process, from its spec: argv, environment and working directory, or the reason the
// process runtime cannot run it yet (a CreateContainerConfigError waiting reason's message).
import { join } from "node:path";
import { parseQuantity } from "../../util/quantity.ts";
import type { Obj } from "../node.ts";
import type { Limits } from "./cgroups.ts";
import { DEFAULT_PATH, type ProcessSpec } from "./process.ts";
import { containerDir } from "./records.ts";

export type ContainerConfig = { spec: ProcessSpec } | { error: string };

/** Where a container's output goes: one file per run, under the pod's folder of --root-dir. */
export function logPath(rootDir: string, podUid: string, container: string, restartCount: number): string {
  return join(containerDir(rootDir, podUid, container), `${restartCount}.log`);
}

/** Expands `$(NAME)` from `vars` as upstream does: `$$` is a literal `$`, unknown references stay as written. */
export function expand(s: string, vars: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([^)]*)\)/g, (m, name: string | undefined) => {
    if (m === "$$") return "$";
    return vars.has(name!) ? vars.get(name!)! : m;
  });
}

/** A container's resources.limits as the cgroups enforce them (cpu in millicores, rounded up as upstream). */
export function containerLimits(c: Obj): Limits {
  const limits: Limits = {};
  const memory = parseQuantity(c.resources?.limits?.memory), cpu = parseQuantity(c.resources?.limits?.cpu);
  if (memory !== null && memory > 0) limits.memoryBytes = Math.ceil(memory);
  if (cpu !== null && cpu > 0) limits.cpuMilli = Math.ceil(cpu * 1000);
  return limits;
}

/** The pod's hostname: spec.hostname, else its name (at most 63 characters, as upstream truncates it). */
export const podHostname = (pod: Obj): string => (pod.spec?.hostname || pod.metadata.name).slice(0, 63).replace(/[-.]+$/, "");

export function containerConfig(pod: Obj, c: Obj, rootDir: string, restartCount: number): ContainerConfig {
  if (!c.command?.length) return { error: `container "${c.name}" has no command: the process runtime runs command + args and cannot know the entrypoint of image "${c.image}"` };
  const valueFrom = (c.env ?? []).find((e: Obj) => e.valueFrom);
  if (valueFrom) return { error: `env "${valueFrom.name}" of container "${c.name}" uses valueFrom, which the process runtime does not support yet` };
  if (c.envFrom?.length) return { error: `container "${c.name}" uses envFrom, which the process runtime does not support yet` };
  if (c.volumeMounts?.length) return { error: `container "${c.name}" mounts volumes, which the process runtime does not support yet` };
  const vars = new Map<string, string>([["PATH", DEFAULT_PATH], ["HOSTNAME", podHostname(pod)]]);
  for (const e of c.env ?? []) vars.set(e.name, expand(e.value ?? "", vars));
  return {
    spec: {
      argv: [...c.command, ...(c.args ?? [])].map((s: string) => expand(s, vars)),
      env: Object.fromEntries(vars),
      workingDir: c.workingDir || "/",
      logPath: logPath(rootDir, pod.metadata.uid, c.name, restartCount),
      mounts: [],
      hostname: podHostname(pod),
      limits: containerLimits(c),
    },
  };
}
