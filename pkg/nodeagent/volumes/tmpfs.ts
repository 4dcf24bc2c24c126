// Folders of a pod's volumes, plain or memory-backed: emptyDir's setupDir (mode 0777) and setupTmpfs (a
// tmpfs mounted on it, `size=` from sizeLimit), which only root may mount; and the unmounting of every
// tmpfs under a pod's folder when the pod goes.
import { readFileSync, statSync } from "node:fs";
import { chmod, mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { consola } from "consola";
import { parseQuantity } from "../../util/quantity.ts";
import { mount, umount } from "../runtime/libc.ts";

export const canMount = () => process.getuid?.() === 0;

export async function setupDir(dir: string): Promise<void> {
  // off the event loop: a busy disk's metadata writes would hold every other pod's start
  await mkdir(dir, { recursive: true });
  if (((await stat(dir)).mode & 0o7777) !== 0o777) await chmod(dir, 0o777);
}

/** The mount points at or under `dir`, deepest first (/proc/self/mountinfo escapes spaces as \040). */
export function mountPointsUnder(dir: string): string[] {
  const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  const points = readFileSync("/proc/self/mountinfo", "utf8").split("\n").filter(Boolean).map((l) => unescape(l.split(" ")[4]));
  return points.filter((p) => p === dir || p.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length);
}

/** A mount or unmount by system call (no `mount` process: a spawn blocks the event loop), failing in upstream's shape. */
function run(argv: string[], call: () => void): void {
  try {
    call();
  } catch (e) {
    throw new Error(`mount failed: ${(e as Error).message}\nMounting command: ${argv[0]}\nMounting arguments: ${argv.slice(1).join(" ")}`);
  }
}

/** A folder something is mounted on: its device differs from its parent's (no read of the whole mount table). */
const isMountPoint = (dir: string) => statSync(dir).dev !== statSync(dirname(dir)).dev;

let saidNoTmpfs = false;

/** The folder, with a tmpfs on it when this agent may mount (else a plain folder, said once in the log). */
export async function setupTmpfs(dir: string, sizeLimit?: string): Promise<void> {
  await setupDir(dir);
  if (!canMount()) {
    if (!saidNoTmpfs) consola.warn("memory-backed volumes (emptyDir medium Memory, secret, projected) are plain folders: only root may mount a tmpfs");
    saidNoTmpfs = true;
    return;
  }
  if (isMountPoint(dir)) return;
  const bytes = parseQuantity(sizeLimit);
  const data = bytes ? `size=${Math.ceil(bytes)}` : "";
  run(["mount", "-t", "tmpfs", ...(data ? ["-o", data] : []), "tmpfs", dir], () => mount("tmpfs", dir, "tmpfs", data));
}

/** Unmounts every mount under `dir` (a pod's volumes folder) before it is removed. */
export async function unmountUnder(dir: string): Promise<void> {
  if (!canMount()) return;
  for (const p of mountPointsUnder(dir)) run(["umount", p], () => umount(p));
}
