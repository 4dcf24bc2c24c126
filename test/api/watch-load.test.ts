// Issue 3 item 6: watch correctness under load. 50 watchers (some with label selectors, some that drop
// and resume from the last resourceVersion they saw) follow one namespace's configmaps while 8 writers
// create, relabel, update and delete for 10 s. Each watcher's sequence must equal what the store's own
// history says a watcher of that selection sees: same (type, name, resourceVersion) list, strictly
// increasing revisions, nothing missing, nothing twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { createNamespace } from "./fixtures.ts";

const NS = "watch-load";
const BASE = `/api/v1/namespaces/${NS}/configmaps`;
const WATCHERS = 50;
const RECONNECTING = 10;
const WRITERS = 8;
const WRITE_MS = 10_000;
const MAX_OPS_PER_WRITER = 1_500;

// A seeded generator so a failing run can be replayed: WATCH_LOAD_SEED=<seed>.
const SEED = Number(process.env.WATCH_LOAD_SEED ?? Date.now() % 1_000_000_007);
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo));

// ---- label selectors, matched here independently of the server's parser
type Labels = Record<string, string>;
const SELECTORS = [
  "", "color=red", "color in (red,blue)", "!color", "color!=red", "color", "color notin (red,green)",
  "color=blue,tier=a", "tier in (a)", "color==green",
] as const;

function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0, cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) { out.push(cur); cur = ""; } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter(Boolean);
}

function labelMatcher(sel: string): (l: Labels) => boolean {
  const terms = splitTerms(sel).map((t) => {
    let m = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(t);
    if (m) {
      const [, key, op, list] = m;
      const vals = list.split(",").map((v) => v.trim());
      return (l: Labels) => (op === "in" ? key in l && vals.includes(l[key]) : !(key in l) || !vals.includes(l[key]));
    }
    if (t.startsWith("!")) { const key = t.slice(1).trim(); return (l: Labels) => !(key in l); }
    m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(t);
    if (m) {
      const [, key, op, v] = m;
      return op === "!=" ? (l: Labels) => l[key] !== v : (l: Labels) => key in l && l[key] === v;
    }
    return (l: Labels) => t in l;
  });
  return (l) => terms.every((f) => f(l));
}

// ---- watch streams
interface Ev { type: string; name: string; rv: number; labels: Labels; raw: any }
const evOf = (e: any): Ev => ({
  type: e.type,
  name: e.object?.metadata?.name,
  rv: Number(e.object?.metadata?.resourceVersion),
  labels: e.object?.metadata?.labels ?? {},
  raw: e,
});

/** Reads line-delimited JSON events until the stream ends or the signal aborts it. */
async function readEvents(res: Response, onEvent: (e: any) => void): Promise<"ended" | "aborted"> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return "ended";
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) onEvent(JSON.parse(line));
      }
    }
  } catch (e) {
    if ((e as Error)?.name === "AbortError") return "aborted";
    throw e;
  }
}

interface Session { from: number; status?: number; end?: string; events: number }
interface Watcher {
  id: number;
  selector: string;
  reconnects: boolean;
  events: Ev[];
  sessions: Session[];
  problems: string[];
  lastRV: number;
  ctl?: AbortController;
  done?: Promise<void>;
}

let s: TestServer;
let serverLog = "";
/** Keeps the tail of the server's output (read, so a full pipe never blocks it) for failure messages. */
async function drain(stream: ReadableStream<Uint8Array>) {
  const dec = new TextDecoder();
  for await (const c of stream) serverLog = (serverLog + dec.decode(c, { stream: true })).slice(-8_000);
}
/** What to add to a failure: whether the server process is still alive, and its last output. */
const serverState = () => (s.proc.exitCode !== null || s.proc.signalCode
  ? `\nthe apiserver process EXITED (code ${s.proc.exitCode}, signal ${s.proc.signalCode}${s.proc.exitCode === 0 ? "; it exits 0 only on SIGTERM/SIGINT, so something outside the test stopped it" : ""}); its last output:\n${serverLog || "(none)"}`
  : serverLog ? `\napiserver output (tail):\n${serverLog.slice(-2_000)}` : "");

beforeAll(async () => {
  s = await startServer(["--default-watch-cache-size=100"]);
  void drain(s.proc.stdout as ReadableStream<Uint8Array>);
  void drain(s.proc.stderr as ReadableStream<Uint8Array>);
});
afterAll(async () => { await s?.stop(); });

test("50 watchers and 8 writers for 10 s: every watcher sees exactly its selection of the store's history", async () => {
  const t0 = Date.now();
  // the namespace's built-in kube-root-ca.crt exists before the history starts: the writers' objects follow
  await createNamespace(s, NS);
  const start = await s.call("GET", BASE);
  expect(start.status).toBe(200);
  expect(start.body.items.map((o: any) => o.metadata.name)).toEqual(["kube-root-ca.crt"]);
  const startRV = Number(start.body.metadata.resourceVersion);
  expect(startRV).toBeGreaterThan(0);

  let writing = true;
  let stopping = false;

  // ---- watchers
  const watchers: Watcher[] = Array.from({ length: WATCHERS }, (_, id) => ({
    id, selector: SELECTORS[id % SELECTORS.length], reconnects: id < RECONNECTING,
    events: [], sessions: [], problems: [], lastRV: startRV,
  }));

  async function session(w: Watcher) {
    const q = new URLSearchParams({ watch: "true", resourceVersion: String(w.lastRV) });
    if (w.selector) q.set("labelSelector", w.selector);
    const ctl = new AbortController();
    w.ctl = ctl;
    const sess: Session = { from: w.lastRV, events: 0 };
    w.sessions.push(sess);
    // Reconnecting watchers drop the connection at a random moment while the writers run.
    let timer: Timer | undefined;
    if (w.reconnects) timer = setTimeout(() => { if (writing) ctl.abort(); }, between(300, 3_000));
    try {
      const res = await s.req(`${BASE}?${q}`, { signal: ctl.signal });
      sess.status = res.status;
      if (res.status !== 200) {
        w.problems.push(`GET ${BASE}?${q} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        return;
      }
      sess.end = await readEvents(res, (raw) => {
        if (raw.type === "ERROR") { w.problems.push(`ERROR event on GET ${BASE}?${q}: ${JSON.stringify(raw.object)}`); return; }
        if (raw.type === "BOOKMARK") return; // not requested; tolerated, not counted
        const e = evOf(raw);
        if (!["ADDED", "MODIFIED", "DELETED"].includes(e.type)) w.problems.push(`unexpected event type ${JSON.stringify(raw).slice(0, 200)}`);
        w.events.push(e);
        sess.events++;
        w.lastRV = e.rv;
      });
    } catch (e) {
      if ((e as Error)?.name === "AbortError") sess.end = "aborted";
      else { sess.end = `failed: ${(e as Error).message}`; w.problems.push(`GET ${BASE}?${q} failed: ${(e as Error).message}`); }
    } finally {
      clearTimeout(timer);
    }
  }

  for (const w of watchers) {
    w.done = (async () => {
      while (!stopping) {
        await session(w);
        const last = w.sessions.at(-1)!;
        if (stopping) break;
        if (last.end !== "aborted") {
          // The server ended a stream nobody asked it to end: note it, then resume like a client would.
          w.problems.push(`stream from resourceVersion ${last.from} ended by the server (${last.end ?? `status ${last.status}`}) after ${last.events} events`);
          if (last.status !== 200) break;
        }
      }
    })();
  }
  await Bun.sleep(300); // let the watches register; they start from startRV, so nothing is lost either way

  // ---- writers: each owns its objects, so every write is expected to succeed
  interface Op { writer: number; kind: "create" | "relabel" | "update" | "delete"; name: string; rv?: number; labels?: Labels }
  const ops: Op[] = [];
  const writeFailures: string[] = [];
  const COLORS = ["red", "blue", "green", undefined] as const;
  const TIERS = ["a", "b", undefined] as const;
  const mkLabels = (): Labels => {
    const l: Labels = {};
    const c = pick(COLORS), t = pick(TIERS);
    if (c) l.color = c;
    if (t) l.tier = t;
    return l;
  };
  const sameLabels = (a: Labels, b: Labels) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
  const merge = { "content-type": "application/merge-patch+json" };
  const writeEnd = Date.now() + WRITE_MS;

  /** A write; a network failure (server gone) is a failed write, reported with the rest. */
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    s.call(method, path, body, headers).catch((e: Error) => ({ status: 0, body: `request failed: ${e.message}`, headers: new Headers() }));

  async function writer(id: number) {
    const live = new Map<string, Labels>();
    let seq = 0;
    for (let n = 0; n < MAX_OPS_PER_WRITER && Date.now() < writeEnd; n++) {
      if (n) await Bun.sleep(between(10, 40));
      const r = rand();
      const names = [...live.keys()];
      if (live.size < 3 || r < 0.25) {
        const name = `w${id}-${seq++}`;
        const labels = mkLabels();
        const res = await call("POST", BASE, { metadata: { name, labels }, data: { v: "0" } });
        if (res.status !== 201) { writeFailures.push(`POST ${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`); continue; }
        live.set(name, labels);
        ops.push({ writer: id, kind: "create", name, rv: Number(res.body.metadata.resourceVersion), labels });
      } else if (r < 0.55) {
        const name = pick(names);
        const old = live.get(name)!;
        let labels = mkLabels();
        while (sameLabels(labels, old)) labels = mkLabels(); // every write changes something
        const patch: Record<string, string | null> = { color: labels.color ?? null, tier: labels.tier ?? null };
        const res = await call("PATCH", `${BASE}/${name}`, { metadata: { labels: patch } }, merge);
        if (res.status !== 200) { writeFailures.push(`PATCH labels ${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`); continue; }
        live.set(name, labels);
        ops.push({ writer: id, kind: "relabel", name, rv: Number(res.body.metadata.resourceVersion), labels });
      } else if (r < 0.8) {
        const name = pick(names);
        const res = await call("PATCH", `${BASE}/${name}`, { data: { v: `${id}-${n}` } }, merge);
        if (res.status !== 200) { writeFailures.push(`PATCH data ${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`); continue; }
        ops.push({ writer: id, kind: "update", name, rv: Number(res.body.metadata.resourceVersion), labels: live.get(name) });
      } else {
        const name = pick(names);
        const res = await call("DELETE", `${BASE}/${name}`);
        if (res.status !== 200) { writeFailures.push(`DELETE ${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`); continue; }
        live.delete(name);
        ops.push({ writer: id, kind: "delete", name });
      }
    }
  }
  await Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i)));
  writing = false;
  const writeDone = Date.now();
  // Every write is expected to succeed; failures are reported at the end, after the watchers are checked.
  const writeProblems = writeFailures.length ? [`${writeFailures.length} of ${writeFailures.length + ops.length} writes failed, e.g.:\n${writeFailures.slice(0, 5).join("\n")}`] : [];
  if (ops.length < 500) writeProblems.push(`only ${ops.length} writes succeeded in ${WRITE_MS} ms (expected > 500)`);

  // ---- the full history, independently: a fresh watch from the start revision, replayed from the store
  const hq = `${BASE}?watch=true&resourceVersion=${startRV}&timeoutSeconds=2`;
  const hres = await s.req(hq).catch((e: Error) => { throw new Error(`GET ${hq} failed: ${e.message}${writeFailures.length ? `\nwrite failures, e.g.: ${writeFailures.slice(0, 3).join("\n")}` : ""}${serverState()}`); });
  expect(hres.status).toBe(200);
  const history: Ev[] = [];
  const historyErrors: string[] = [];
  const hend = await readEvents(hres, (raw) => {
    if (raw.type === "ERROR") historyErrors.push(JSON.stringify(raw.object));
    else if (raw.type !== "BOOKMARK") history.push(evOf(raw));
  });
  expect(hend).toBe("ended");
  expect(historyErrors).toEqual([]);

  // The history is what the writers did: every acknowledged write is in it, once, with its revision.
  const historyProblems: string[] = [];
  for (let i = 1; i < history.length; i++) {
    if (!(history[i].rv > history[i - 1].rv)) historyProblems.push(`history not strictly increasing at ${i}: ${history[i - 1].rv} then ${history[i].rv}`);
  }
  if (history.length !== ops.length) historyProblems.push(`history has ${history.length} events, the writers made ${ops.length} acknowledged writes`);
  const byRV = new Map(history.map((e) => [e.rv, e]));
  const wantType = { create: "ADDED", relabel: "MODIFIED", update: "MODIFIED" } as const;
  for (const op of ops) {
    if (op.kind === "delete") continue;
    const e = byRV.get(op.rv!);
    if (!e) historyProblems.push(`${op.kind} of ${op.name} acknowledged at resourceVersion ${op.rv} is missing from the history`);
    else if (e.type !== wantType[op.kind] || e.name !== op.name || !sameLabels(e.labels, op.labels!)) {
      historyProblems.push(`${op.kind} of ${op.name} at ${op.rv} (labels ${JSON.stringify(op.labels)}): history has ${e.type} ${e.name} labels ${JSON.stringify(e.labels)}`);
    }
  }
  const deletes = ops.filter((o) => o.kind === "delete").length;
  const historyDeletes = history.filter((e) => e.type === "DELETED").length;
  if (deletes !== historyDeletes) historyProblems.push(`${deletes} deletes acknowledged, ${historyDeletes} DELETED events in the history`);
  if (historyProblems.length && !writeProblems.length) throw new Error(`the history watch (GET ${hq}) does not match the writes:\n${historyProblems.slice(0, 20).join("\n")}`);
  const lastRV = history.at(-1)?.rv ?? startRV;

  // ---- what each watcher should have seen
  function expectedFor(selector: string): Ev[] {
    const match = labelMatcher(selector);
    const state = new Map<string, Labels>();
    const out: Ev[] = [];
    for (const e of history) {
      const before = state.has(e.name) && match(state.get(e.name)!);
      const now = match(e.labels);
      if (e.type === "ADDED") {
        if (now) out.push({ ...e, type: "ADDED" });
        state.set(e.name, e.labels);
      } else if (e.type === "MODIFIED") {
        if (now && !before) out.push({ ...e, type: "ADDED" });
        else if (now && before) out.push({ ...e, type: "MODIFIED" });
        else if (!now && before) out.push({ ...e, type: "DELETED" });
        state.set(e.name, e.labels);
      } else if (e.type === "DELETED") {
        if (before) out.push({ ...e, type: "DELETED" });
        state.delete(e.name);
      }
    }
    return out;
  }
  const expected = new Map(watchers.map((w) => [w.id, expectedFor(w.selector)]));

  // Wait (bounded) until every watcher got as far as its last expected event, then a little longer for strays.
  const drainDeadline = Date.now() + 10_000;
  while (Date.now() < drainDeadline) {
    const behind = watchers.filter((w) => { const exp = expected.get(w.id)!; return exp.length > 0 && w.lastRV < exp.at(-1)!.rv; });
    if (!behind.length) break;
    await Bun.sleep(50);
  }
  await Bun.sleep(300);
  stopping = true;
  for (const w of watchers) w.ctl?.abort();
  await Promise.all(watchers.map((w) => w.done));

  // ---- compare
  const key = (e: Ev) => `${e.type} ${e.name} ${e.rv}`;
  const failures: string[] = [];
  for (const w of watchers) {
    const exp = expected.get(w.id)!;
    const got = w.events;
    const label = `watcher ${w.id} (labelSelector=${JSON.stringify(w.selector)}${w.reconnects ? `, ${w.sessions.length} connections from resourceVersions ${w.sessions.map((x) => x.from).join(",")}` : ""})`;
    const problems = [...w.problems];
    for (const sess of w.sessions) if (sess.status !== undefined && sess.status !== 200) problems.push(`a watch from ${sess.from} answered ${sess.status}`);
    const seen = new Set<number>();
    for (let i = 0; i < got.length; i++) {
      if (seen.has(got[i].rv)) problems.push(`duplicate resourceVersion ${got[i].rv} (${key(got[i])})`);
      seen.add(got[i].rv);
      if (i > 0 && !(got[i].rv > got[i - 1].rv)) problems.push(`resourceVersion not increasing at event ${i}: ${key(got[i - 1])} then ${key(got[i])}`);
    }
    const expKeys = exp.map(key), gotKeys = got.map(key);
    if (expKeys.join("\n") !== gotKeys.join("\n")) {
      let i = 0;
      while (i < expKeys.length && i < gotKeys.length && expKeys[i] === gotKeys[i]) i++;
      const gotSet = new Set(gotKeys), expSet = new Set(expKeys);
      const missing = expKeys.filter((k) => !gotSet.has(k));
      const extra = gotKeys.filter((k) => !expSet.has(k));
      problems.push(`expected ${expKeys.length} events, got ${gotKeys.length}; first difference at index ${i}: expected ${JSON.stringify(expKeys.slice(i, i + 3))}, got ${JSON.stringify(gotKeys.slice(i, i + 3))}; ` +
        `${missing.length} missing (e.g. ${JSON.stringify(missing.slice(0, 3))}), ${extra.length} unexpected (e.g. ${JSON.stringify(extra.slice(0, 3))})`);
    }
    // The object in each event is the new state: its labels are those of the history at that revision.
    for (const e of got) {
      const h = byRV.get(e.rv);
      if (h && !sameLabels(h.labels, e.labels)) { problems.push(`${key(e)} carries labels ${JSON.stringify(e.labels)}, the history has ${JSON.stringify(h.labels)}`); break; }
    }
    if (problems.length) failures.push(`${label}:\n  ${problems.slice(0, 6).join("\n  ")}`);
  }

  const reconnectCount = watchers.filter((w) => w.reconnects).reduce((n, w) => n + w.sessions.length - 1, 0);
  const total = watchers.reduce((n, w) => n + w.events.length, 0);
  console.log(`seed ${SEED}: ${ops.length} writes in ${writeDone - t0} ms, history ${history.length} events (start ${startRV}, last ${lastRV}), ` +
    `${total} events delivered to ${WATCHERS} watchers, ${reconnectCount} reconnects, total ${Date.now() - t0} ms`);
  const report: string[] = [];
  if (writeProblems.length) report.push(`writes (${BASE}):\n${writeProblems.join("\n")}`);
  if (historyProblems.length) report.push(`the history watch (GET ${hq}) does not match the writes:\n${historyProblems.slice(0, 20).join("\n")}`);
  if (failures.length) report.push(`${failures.length} of ${WATCHERS} watchers saw something other than their selection of the history:\n${failures.slice(0, 10).join("\n")}`);
  if (report.length) throw new Error(`seed ${SEED}:\n${report.join("\n\n")}${serverState()}`);
  expect(reconnectCount).toBeGreaterThanOrEqual(RECONNECTING); // the resume path really was exercised
  for (const w of watchers) expect(w.events.length).toBe(expected.get(w.id)!.length);
}, 60_000);
