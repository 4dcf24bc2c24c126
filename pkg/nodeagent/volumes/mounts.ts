// A container's mounts from its volumeMounts (upstream's makeMounts): the prepared volume's host path,
// or a subPath (or subPathExpr expanded from the container's env) of it, created when missing with the
// volume's mode and refused when it would leave the volume; read-only when the mount or the volume says so.
import { chmodSync, existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Obj } from "../node.ts";
import type { Mount } from "../runtime/process.ts";
import type { PreparedVolume } from "./manager.ts";

/** upstream's ExpandContainerVolumeMounts: every referenced variable must have a non-empty value. */
function expandSubPath(expr: string, env: Map<string, string>): string {
  const missing = new Set<string>();
  const out = expr.replace(/\$\$|\$\(([^)]*)\)/g, (m, name: string | undefined) => {
    if (m === "$$") return "$";
    const v = env.get(name!);
    if (!v) missing.add(name!);
    return v ?? "";
  });
  if (missing.size) throw new Error(`missing value for ${[...missing].sort().join(", ")}`);
  return out;
}

/** Creates `sub` under `base` one element at a time with `mode` (SafeMakeDir). */
function makeSubPath(base: string, sub: string, mode: number): void {
  let at = base;
  for (const part of sub.split("/").filter(Boolean)) {
    at = join(at, part);
    if (existsSync(at)) continue;
    mkdirSync(at);
    chmodSync(at, mode);
  }
}

function subPathOf(volumePath: string, m: Obj, c: Obj, env: Map<string, string>): string {
  const sub: string = m.subPathExpr ? expandSubPath(m.subPathExpr, env) : m.subPath;
  if (isAbsolute(sub)) throw new Error(`error SubPath \`${sub}\` must not be an absolute path`);
  if (sub.split("/").includes("..")) throw new Error(`unable to provision SubPath \`${sub}\`: must not contain '..'`);
  const path = join(volumePath, sub);
  if (!existsSync(path)) {
    try { makeSubPath(volumePath, sub, statSync(volumePath).mode & 0o7777); } catch {
      throw new Error(`failed to create subPath directory for volumeMount "${m.name}" of container "${c.name}"`);
    }
  }
  const real = realpathSync(path), base = realpathSync(volumePath);
  if (real !== base && !real.startsWith(`${base}/`)) throw new Error(`subpath "${real}" not within volume path "${base}"`);
  return path;
}

export function containerMounts(c: Obj, volumes: Map<string, PreparedVolume>, env: Map<string, string>): Mount[] {
  return (c.volumeMounts ?? []).map((m: Obj) => {
    const v = volumes.get(m.name);
    if (!v) throw new Error(`cannot find volume "${m.name}" to mount into container "${c.name}"`);
    const hostPath = m.subPath || m.subPathExpr ? subPathOf(v.path, m, c, env) : v.path;
    return { hostPath, containerPath: m.mountPath, readOnly: m.readOnly === true || v.readOnly };
  });
}
