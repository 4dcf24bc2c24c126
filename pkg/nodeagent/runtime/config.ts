// A container's process, from its spec and what the pod worker resolved for it (env, mounts): argv,
// environment, working directory and mounts, or the reason the process runtime cannot run it (a
// CreateContainerConfigError waiting reason's message).
import { join } from "node:path";
import { parseQuantity } from "../../util/quantity.ts";
import type { Obj } from "../node.ts";
import type { Limits } from "./cgroups.ts";
import { DEFAULT_PATH, type Mount, type ProcessSpec } from "./process.ts";
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

/** What the pod worker resolved for a container: its environment (env-var order) and its mounts. */
export interface ContainerInputs { env: Map<string, string>; mounts: Mount[] }

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

export function containerConfig(pod: Obj, c: Obj, rootDir: string, restartCount: number, inputs: ContainerInputs): ContainerConfig {
  if (!c.command?.length) return { error: `container "${c.name}" has no command: the process runtime runs command + args and cannot know the entrypoint of image "${c.image}"` };
  // command and args see the container's own variables only, as upstream (not the image's PATH or HOSTNAME)
  const argv = [...c.command, ...(c.args ?? [])].map((s: string) => expand(s, inputs.env));
  return {
    spec: {
      argv,
      env: { PATH: DEFAULT_PATH, HOSTNAME: podHostname(pod), ...Object.fromEntries(inputs.env) },
      workingDir: c.workingDir || "/",
      logPath: logPath(rootDir, pod.metadata.uid, c.name, restartCount),
      mounts: inputs.mounts,
      hostname: podHostname(pod),
      limits: containerLimits(c),
      ...(c.stdin ? { stdin: c.stdinOnce ? "once" as const : "keep" as const } : {}),
      ...(c.tty ? { tty: true } : {}),
    },
  };
}
