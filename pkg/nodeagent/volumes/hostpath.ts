// hostPath's type check, as upstream's hostpath plugin: the OrCreate types create what is missing
// (a folder 0755, an empty file 0644); the others require the path to be of their type.
import { closeSync, mkdirSync, openSync, statSync, type Stats } from "node:fs";

type Check = { is: (s: Stats) => boolean; what: string; create?: (path: string) => void };

const DIRECTORY: Check = { is: (s) => s.isDirectory(), what: "a directory" };
const FILE: Check = { is: (s) => s.isFile(), what: "a file" };

const CHECKS: Record<string, Check> = {
  DirectoryOrCreate: { ...DIRECTORY, create: (p) => mkdirSync(p, { recursive: true, mode: 0o755 }) },
  Directory: DIRECTORY,
  FileOrCreate: { ...FILE, create: (p) => closeSync(openSync(p, "a", 0o644)) },
  File: FILE,
  Socket: { is: (s) => s.isSocket(), what: "a socket file" },
  CharDevice: { is: (s) => s.isCharacterDevice(), what: "a character device" },
  BlockDevice: { is: (s) => s.isBlockDevice(), what: "a block device" },
};

const statOf = (p: string) => { try { return statSync(p); } catch { return undefined; } };

/** Throws upstream's message when `path` is not of `type` ("" or unset: no check). */
export function checkHostPath(path: string, type: string | undefined): void {
  if (!type) return;
  const check = CHECKS[type];
  if (!check) throw new Error(`${type} is an invalid volume type`);
  const s = statOf(path);
  if (!s && check.create) return check.create(path);
  if (!s || !check.is(s)) throw new Error(`hostPath type check failed: ${path} is not ${check.what}`);
}
