// Upstream's AtomicWriter: a volume's files live in a timestamped folder `..2006_01_02_15_04_05.NNN`,
// `..data` is a symlink to it and every top-level name is a symlink through `..data`. A new set is
// written beside the old one and `..data` is swapped by rename, so a reader sees the old set or the new,
// never a mix. Unchanged content is not rewritten.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

export interface FileProjection { data: Uint8Array | string; mode: number }
export type Payload = Map<string, FileProjection>;

const DATA = "..data";
const DATA_TMP = "..data_tmp";

/** upstream's validatePath: relative, no `..` element, not starting with `..`. */
function checkPath(p: string): void {
  if (!p) throw new Error("invalid path: must not be empty");
  if (isAbsolute(p)) throw new Error(`invalid path: must be relative path: ${p}`);
  if (p.split("/").includes("..")) throw new Error(`invalid path: must not contain '..': ${p}`);
  if (p.startsWith("..")) throw new Error(`invalid path: must not start with '..': ${p}`);
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(dir, rel));
    else out.push(rel);
  }
  return out;
}

function sameContent(tsDir: string, payload: Payload): boolean {
  const present = filesUnder(tsDir);
  if (present.length !== payload.size || present.some((p) => !payload.has(p))) return false;
  for (const [p, f] of payload) {
    const path = join(tsDir, p);
    if ((statSync(path).mode & 0o7777) !== f.mode || !Buffer.from(f.data).equals(readFileSync(path))) return false;
  }
  return true;
}

const exists = (p: string) => { try { lstatSync(p); return true; } catch { return false; } };
const top = (p: string) => p.split("/")[0];

/** `..2006_01_02_15_04_05.` of now, UTC, as upstream names the timestamped folder. */
function tsPrefix(d = new Date()): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `..${d.getUTCFullYear()}_${two(d.getUTCMonth() + 1)}_${two(d.getUTCDate())}_${two(d.getUTCHours())}_${two(d.getUTCMinutes())}_${two(d.getUTCSeconds())}.`;
}

/** Writes `payload` under `dir`; returns whether anything changed. */
export function writeAtomically(dir: string, payload: Payload): boolean {
  for (const p of payload.keys()) checkPath(p);
  mkdirSync(dir, { recursive: true });
  let oldTs: string | undefined;
  try { oldTs = readlinkSync(join(dir, DATA)); } catch { /* first write */ }
  if (oldTs && exists(join(dir, oldTs)) && sameContent(join(dir, oldTs), payload)) return false;

  const tsDir = mkdtempSync(join(dir, tsPrefix()));
  chmodSync(tsDir, 0o755);
  for (const [p, f] of payload) {
    const path = join(tsDir, p);
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    writeFileSync(path, f.data, { mode: f.mode });
    chmodSync(path, f.mode);
  }
  const tops = new Set([...payload.keys()].map(top));
  for (const t of tops) if (!exists(join(dir, t))) symlinkSync(join(DATA, t), join(dir, t));
  rmSync(join(dir, DATA_TMP), { force: true });
  symlinkSync(tsDir.slice(dir.length + 1), join(dir, DATA_TMP));
  renameSync(join(dir, DATA_TMP), join(dir, DATA));

  if (oldTs) {
    if (exists(join(dir, oldTs))) {
      for (const t of new Set(filesUnder(join(dir, oldTs)).map(top))) if (!tops.has(t)) rmSync(join(dir, t), { force: true });
    }
    rmSync(join(dir, oldTs), { recursive: true, force: true });
  }
  return true;
}
