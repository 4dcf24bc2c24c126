// The reservation and eviction flags' values: `cpu=200m,memory=1Gi` maps and `memory.available<100Mi`
// thresholds (a quantity or a percentage of capacity), refused as upstream's parsers refuse them.
import { UsageError } from "../../cli/args.ts";
import { parseDuration } from "../../util/duration.ts";
import { parseQuantity } from "../../util/quantity.ts";
import { commaList } from "../../util/commalist.ts";

/** The signals an eviction threshold may name (upstream's evictionapi signals on Linux). */
export const SIGNALS = ["memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "allocatableMemory.available", "pid.available"] as const;
export type Signal = (typeof SIGNALS)[number];

export interface Threshold {
  signal: Signal;
  /** An absolute amount (bytes, inodes, pids) or a fraction of capacity. */
  quantity?: number;
  percentage?: number;
  /** Soft thresholds only: how long it must hold. */
  gracePeriodMs?: number;
  minimumReclaim?: { quantity?: number; percentage?: number };
}

const RESERVABLE = ["cpu", "memory", "ephemeral-storage", "pid"];

const bad = (flag: string, v: string, why: string) => new UsageError(`invalid argument "${v}" for "--${flag}" flag: ${why}`);

/** `k=v,k2=v2` → a map (empty for an empty value). */
export function keyValues(flag: string, v: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of commaList(v)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw bad(flag, v!, `malformed pair, expect string=string`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

/** --kube-reserved / --system-reserved: cpu, memory, ephemeral-storage and pid amounts, never negative. */
export function reserved(flag: string, v: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(keyValues(flag, v))) {
    if (!RESERVABLE.includes(name)) throw bad(flag, v!, `${name} is not a supported resource`);
    const n = parseQuantity(q);
    if (n === null) throw bad(flag, v!, `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    if (n < 0) throw bad(flag, v!, `resource quantity for ${name} cannot be negative: ${q}`);
    out[name] = n;
  }
  return out;
}

const isSignal = (s: string): s is Signal => (SIGNALS as readonly string[]).includes(s);

function amount(signal: string, value: string): { quantity?: number; percentage?: number } {
  if (value.endsWith("%")) {
    const p = Number(value.slice(0, -1));
    if (!Number.isFinite(p) || value.length === 1) throw new Error(`invalid percentage: ${value}`);
    if (p < 0 || p > 100) throw new Error(`eviction percentage threshold ${signal} must be >= 0% and <= 100%: ${value}`);
    return { percentage: p / 100 };
  }
  const q = parseQuantity(value);
  if (q === null) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  if (q < 0) throw new Error(`eviction threshold ${signal} must be positive: ${value}`);
  return { quantity: q };
}

/** --eviction-hard / --eviction-soft: `signal<amount` pairs; a 0 amount means no threshold, as upstream. */
export function thresholds(flag: string, v: string | undefined): Threshold[] {
  const out: Threshold[] = [];
  for (const expr of commaList(v)) {
    const lt = expr.indexOf("<");
    if (lt <= 0) throw bad(flag, v!, `invalid eviction threshold syntax ${expr}, expected <signal><operator><value>`);
    const signal = expr.slice(0, lt), value = expr.slice(lt + 1);
    if (!isSignal(signal)) throw bad(flag, v!, `unsupported eviction signal ${signal}`);
    if (out.some((t) => t.signal === signal)) throw bad(flag, v!, `found duplicate eviction threshold for signal ${signal}`);
    let a;
    try { a = amount(signal, value); } catch (e) { throw bad(flag, v!, (e as Error).message); }
    if (a.quantity === 0 || a.percentage === 0) continue;
    out.push({ signal, ...a });
  }
  return out;
}

/** Soft thresholds with their grace periods (each must have one) and minimum reclaims attached. */
export function softThresholds(soft: Threshold[], graceFlag: string, grace: string | undefined): Threshold[] {
  const periods = keyValues(graceFlag, grace);
  return soft.map((t) => {
    const p = periods[t.signal];
    if (p === undefined) throw new UsageError(`grace period must be specified for the soft eviction threshold ${t.signal}`);
    let ms: number;
    try { ms = parseDuration(p); } catch { throw bad(graceFlag, grace!, `time: invalid duration "${p}"`); }
    if (ms < 0) throw bad(graceFlag, grace!, `grace period must be non-negative for the soft eviction threshold ${t.signal}`);
    return { ...t, gracePeriodMs: ms };
  });
}

/** --eviction-minimum-reclaim: attached to the thresholds of the same signal. */
export function withMinimumReclaim(ts: Threshold[], flag: string, v: string | undefined): Threshold[] {
  const reclaim = keyValues(flag, v);
  for (const s of Object.keys(reclaim)) if (!isSignal(s)) throw bad(flag, v!, `unsupported eviction signal ${s}`);
  return ts.map((t) => {
    if (reclaim[t.signal] === undefined) return t;
    try { return { ...t, minimumReclaim: amount(t.signal, reclaim[t.signal]) }; } catch (e) { throw bad(flag, v!, (e as Error).message); }
  });
}

/** The threshold's amount in base units against a capacity. */
export const thresholdValue = (t: { quantity?: number; percentage?: number }, capacity: number) =>
  t.quantity ?? (t.percentage ?? 0) * capacity;
