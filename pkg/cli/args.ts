// Flag handling shared by every command: unknown flags and bad values exit 2 with a one-line reason.
import { writeSync } from "node:fs";
import { flushLogs } from "../logs/sink.ts";
import type { ArgsDef } from "citty";
import { parseDuration } from "../util/duration.ts";

export class UsageError extends Error {}

/**
 * Ends a command with its one line `Error: ...` and `code`: after any log line still queued (pkg/logs
 * writes stderr once per event-loop turn), so the error is the last line.
 */
export function exitWithError(line: string, code: number): never {
  flushLogs();
  writeSync(2, `Error: ${line}\n`);
  process.exit(code);
}

/** Refuses any flag the command does not declare (citty itself ignores them). */
export function checkFlags(command: string, rawArgs: string[], def: ArgsDef) {
  const known = new Set<string>(["help", "h"]);
  for (const [name, a] of Object.entries(def)) {
    if (a.type === "positional") continue;
    known.add(name);
    if (a.type === "boolean") known.add(`no-${name}`);
    for (const al of [(a as { alias?: string | string[] }).alias ?? []].flat()) known.add(al);
  }
  for (const raw of rawArgs) {
    if (raw === "--") break;
    const m = /^--?([^=]+)/.exec(raw);
    if (!m || raw === "-") continue;
    if (!known.has(m[1])) throw new UsageError(`unknown flag: ${raw.split("=")[0]} (see 'kite ${command} --help')`);
  }
}

export function duration(flag: string, v: string): number {
  try {
    return parseDuration(v);
  } catch {
    throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: time: invalid duration "${v}"`);
  }
}

export function int(flag: string, v: string, min = -Infinity, max = Infinity): number {
  const n = Number(v);
  if (!/^-?\d+$/.test(v) || n < min || n > max) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: must be an integer${min > -Infinity ? ` >= ${min}` : ""}${max < Infinity ? ` <= ${max}` : ""}`);
  return n;
}

/** citty passes `--flag=false` through as the string "false". */
export function bool(flag: string, v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: strconv.ParseBool: parsing "${v}": invalid syntax`);
}

export function oneOf(flag: string, v: string, allowed: string[]): string {
  if (!allowed.includes(v)) throw new UsageError(`invalid argument "${v}" for "--${flag}" flag: must be one of ${allowed.join(", ")}`);
  return v;
}

/** The flags given on the command line (`--x`, `--x=v`, `--no-x`), by name. */
export function givenFlags(rawArgs: string[]): Set<string> {
  const out = new Set<string>();
  for (const a of rawArgs) {
    if (a === "--") break;
    const m = /^--([^=]+)/.exec(a);
    if (m) out.add(m[1].replace(/^no-/, ""));
  }
  return out;
}

/** Every value of a repeatable flag, in order (`--f=v` or `--f v`); citty keeps only the last. */
export function repeated(rawArgs: string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length && rawArgs[i] !== "--"; i++) {
    if (rawArgs[i].startsWith(`--${flag}=`)) out.push(rawArgs[i].slice(flag.length + 3));
    else if (rawArgs[i] === `--${flag}` && i + 1 < rawArgs.length) out.push(rawArgs[++i]);
  }
  return out;
}

/** Wraps a command's run: flags are checked first, and a UsageError exits 2 with one line. */
export function strict<T>(command: string, def: ArgsDef, run: (ctx: T & { rawArgs: string[] }) => unknown) {
  return async (ctx: T & { rawArgs: string[] }) => {
    try {
      checkFlags(command, ctx.rawArgs, def);
      return await run(ctx);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      exitWithError(e.message, 2);
    }
  };
}
