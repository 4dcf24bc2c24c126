// A container's process, from its spec and what the pod worker resolved for it (env, mounts): argv,
// environment, working directory and mounts, or the reason the process runtime cannot run it (a
// CreateContainerConfigError waiting reason's message).
import { join } from "node:path";
import type { Obj } from "../node.ts";
import { DEFAULT_PATH, type Mount, type ProcessSpec } from "./process.ts";

export type ContainerConfig = { spec: ProcessSpec } | { error: string };

/** Where a container's output goes: one file per run, under the pod's folder of --root-dir. */
export function logPath(rootDir: string, podUid: string, container: string, restartCount: number): string {
  return join(rootDir, "pods", podUid, "containers", container, `${restartCount}.log`);
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

export function containerConfig(pod: Obj, c: Obj, rootDir: string, restartCount: number, inputs: ContainerInputs): ContainerConfig {
  if (!c.command?.length) return { error: `container "${c.name}" has no command: the process runtime runs command + args and cannot know the entrypoint of image "${c.image}"` };
  // command and args see the container's own variables only, as upstream (not the image's PATH or HOSTNAME)
  const argv = [...c.command, ...(c.args ?? [])].map((s: string) => expand(s, inputs.env));
  return {
    spec: {
      argv,
      env: { PATH: DEFAULT_PATH, HOSTNAME: pod.metadata.name, ...Object.fromEntries(inputs.env) },
      workingDir: c.workingDir || "/",
      logPath: logPath(rootDir, pod.metadata.uid, c.name, restartCount),
      mounts: inputs.mounts,
    },
  };
}
