// Runs the fuzz classes of fuzz.ts against a live `kite apiserver` and checks, around and after each
// class, what must hold whatever the input: the process stays alive, /readyz answers within its limit,
// RSS stays bounded, protobuf watches and reads keep working, and the objects made before are unchanged.
// Shared by test/api/fuzz.test.ts (a bounded run) and test/bench/fuzz.bench.ts (a long one).
import { CLASSES, type Case, FuzzContext, type FuzzClass, KINDS, type Outcome, Rng, classSeed, isScenario, serverError } from "./fuzz.ts";
import type { FromMonitor, ToMonitor, WatchPair } from "./fuzzmonitor.ts";
import { type RawResponse, exchange, requestBytes } from "./rawhttp.ts";
import { type TestServer, startServer } from "./server.ts";

export interface FuzzOptions {
  /** The server is killed (and the class fails) above this RSS. */
  rssLimitMb: number;
  readyzLimitMs: number;
  /** Inputs in flight at once. */
  concurrency: number;
  requestTimeoutMs: number;
  log: (line: string) => void;
  /**
   * Each class on a server of its own. A class's own work then decides its /readyz and RSS, not the heap
   * (and its garbage collection pauses) that the classes before it left behind.
   */
  serverPerClass?: boolean;
}

interface Failure { n: number; what: string; show: string; problem: string; answer?: string }

export interface ClassReport {
  cls: string;
  seed: number;
  round: number;
  sent: number;
  ms: number;
  /** Answers by status code (or "no answer", "closed"). */
  statuses: Map<string, number>;
  /** Inputs whose answer was wrong. */
  failures: Failure[];
  /** What broke around the inputs: crash, stalls, memory, watches, protobuf reads, stored data. */
  problems: string[];
  readyzWorstMs: number;
  rssPeakMb: number;
}

interface InFlight { n: number; what: string; show: string }

const PROTOBUF = "application/vnd.kubernetes.protobuf";
const preview = (b: string | Uint8Array | undefined, n = 300): string => {
  if (b === undefined) return "(none)";
  const text = typeof b === "string" ? b : Buffer.from(b).toString("latin1");
  const printable = /^[\x09\x0a\x0d\x20-\x7e\u00a0-\uffff]*$/.test(text.slice(0, n));
  const shown = printable ? JSON.stringify(text.slice(0, n)) : `hex ${Buffer.from(typeof b === "string" ? Buffer.from(b) : b).subarray(0, n / 3).toString("hex")}`;
  return `${shown}${text.length > n ? `… (${typeof b === "string" ? Buffer.byteLength(b) : b.length} bytes)` : ""}`;
};

/** How an input reads in a report: enough to send it again by hand. */
function describe(c: Case): string {
  if (isScenario(c)) return c.describe;
  const headers = Object.entries(c.headers ?? {}).map(([k, v]) => `${k}: ${preview(v, 120)}`).join(", ");
  return `${c.method} ${preview(c.path, 240)}${headers ? ` [${headers}]` : ""}${c.noHost ? " [no Host]" : ""} body ${preview(c.body)}`;
}

/** Whether a watch request asked to stay open (no timeoutSeconds, or one of 2 s or more). */
function shouldLast(path: string): boolean {
  const q = new URLSearchParams(path.split("?")[1] ?? "");
  const t = q.get("timeoutSeconds");
  return t === null || t === "" || (/^\d+$/.test(t) && Number(t) >= 2);
}

export class FuzzHarness {
  s!: TestServer;
  readonly ctx = new FuzzContext();
  /** Servers started so far (a class that breaks the server gets a fresh one after it). */
  boots = 0;
  /** The class in progress, for progress lines. */
  current?: ClassReport;
  private output = "";
  private before = new Map<string, string>();
  private watches: WatchPair[] = [];
  private inflight = new Set<InFlight>();
  private recent: InFlight[] = [];
  /** Writes of this class answered 2xx outside the fuzz namespace: the suspects if stored data changed. */
  private suspects: string[] = [];
  private dead?: string;
  private worst = 0;
  private slow: string[] = [];
  private rssPeak = 0;
  private rssNow = 0;
  /** When the /readyz probe now pending was sent (0: none pending), and what was in flight then. */
  private probeSince = 0;
  private probeDuring: string[] = [];
  private closed = false;
  private monitor = new Worker(new URL("./fuzzmonitor.ts", import.meta.url).href);

  constructor(private o: FuzzOptions) {}

  /** Starts the server, seeds it, opens the watches and starts the monitors. */
  async start(): Promise<void> {
    // Every variant once on a throwaway context, so the large bodies are built before anything is timed.
    for (const cls of CLASSES) for (const v of cls.variants) v.make(new Rng(0), new FuzzContext());
    this.monitor.onmessage = (e: MessageEvent<FromMonitor>) => this.heard(e.data);
    await this.boot();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.monitor.terminate();
    if (this.s?.proc.exitCode === null) await this.s.stop();
  }

  rssMb(): number { return this.rssNow; }

  private async boot(): Promise<void> {
    this.boots++;
    this.output = "";
    this.rssNow = 0;
    const s = (this.s = await startServer());
    this.dead = undefined;
    for (const stream of [s.proc.stdout, s.proc.stderr]) void this.drain(stream as ReadableStream<Uint8Array>);
    s.proc.exited.then((code) => {
      if (this.s === s && !this.dead && !this.closed) this.dead = `the server exited (code ${code}, signal ${s.proc.signalCode ?? "none"}) ${this.context()}\n    its last output: ${this.output.slice(-1500)}`;
    });
    const ns = (name: string) => s.call("POST", "/api/v1/namespaces", { metadata: { name } });
    for (const name of [this.ctx.ns, this.ctx.keepNs]) if ((await ns(name)).status !== 201) throw new Error(`cannot create namespace ${name}`);
    this.before.clear();
    for (const k of KINDS) {
      const name = k.def.namespaced ? "keep" : "fuzz-keep";
      const r = await s.call("POST", k.path(this.ctx.keepNs), k.body(name, this.ctx.keepNs));
      if (r.status !== 201) throw new Error(`cannot create ${k.def.plural}/${name}: ${r.status} ${JSON.stringify(r.body)}`);
      this.before.set(k.path(this.ctx.keepNs, name), "");
    }
    const nss = await s.call("GET", "/api/v1/namespaces");
    for (const n of nss.body.items) this.before.set(`/api/v1/namespaces/${n.metadata.name}`, "");
    for (const path of this.before.keys()) this.before.set(path, (await this.get(path))?.body.toString() ?? "");
    await this.ensureTargets();
    await this.startMonitor();
  }

  /** Whether a class has run on the current server. */
  private ran = false;

  /** Restarts on a fresh data dir after a class broke the server, its watches or its data. */
  private async reboot(): Promise<void> {
    this.monitor.postMessage({ type: "stop" } satisfies ToMonitor);
    const old = this.s;
    this.o.log(`fuzz: starting a fresh server (${this.dead?.split("\n")[0]})`);
    this.dead = "rebooting";
    if (old.proc.exitCode === null) await old.stop(9);
    await this.boot();
  }

  private async drain(stream: ReadableStream<Uint8Array>) {
    const dec = new TextDecoder();
    for await (const chunk of stream) this.output = (this.output + dec.decode(chunk, { stream: true })).slice(-20_000);
  }

  /** The inputs in flight and the last ones answered: the suspects when something breaks. */
  private context(): string {
    const fmt = (x: InFlight) => `\n      #${x.n} ${x.what}: ${x.show.slice(0, 600)}`;
    return `\n    in flight:${[...this.inflight].map(fmt).join("") || " none"}\n    answered just before:${this.recent.slice(-5).map(fmt).join("") || " none"}`;
  }

  /** What the monitor thread reports about the current server. */
  private heard(m: FromMonitor) {
    if (m.session !== this.boots || this.dead) return;
    if (m.type === "state") {
      this.rssNow = m.rssMb;
      this.rssPeak = Math.max(this.rssPeak, m.rssMb);
      this.watches = m.watches;
    } else if (m.type === "killed") {
      this.dead = `RSS reached ${Math.round(m.rssMb)} MB (limit ${this.o.rssLimitMb} MB); the suite killed the server ${this.context()}`;
    } else if (m.sent) {
      this.probeSince = performance.now();
      this.probeDuring = [...this.inflight].map((x) => `#${x.n} ${x.what}`);
    } else {
      this.probeSince = 0;
      this.worst = Math.max(this.worst, m.ms);
      if (m.ms > this.o.readyzLimitMs || m.status !== 200) {
        this.slow.push(`/readyz ${m.status ? `answered ${m.status}` : "failed"} after ${Math.round(m.ms)} ms; in flight when it was sent: ${this.probeDuring.slice(0, 12).join(", ") || "nothing"}`);
      }
    }
  }

  /** The server has not answered /readyz for a request timeout: more input would only pile up behind it. */
  private stalled(): boolean {
    return this.probeSince > 0 && performance.now() - this.probeSince > this.o.requestTimeoutMs;
  }

  /** Recreates the target objects the classes update, patch and delete. */
  private async ensureTargets() {
    for (const k of KINDS) {
      for (let i = 0; i < this.ctx.targets.length; i++) {
        const name = this.ctx.targetName(k, i);
        await this.s.call("POST", k.path(this.ctx.ns), k.body(name, this.ctx.ns));
      }
    }
  }

  /** Hands the monitor thread the new server: its watches start at the current revision of each collection. */
  private async startMonitor() {
    const watches: { path: string; rv: string }[] = [];
    for (const k of KINDS) {
      const path = k.path(k.def.namespaced ? this.ctx.ns : "");
      watches.push({ path, rv: (await this.s.call("GET", path)).body.metadata.resourceVersion });
    }
    this.watches = [];
    this.monitor.postMessage({ type: "start", session: this.boots, port: this.s.port, ca: this.s.ca, pid: this.s.proc.pid, rssLimitMb: this.o.rssLimitMb, watches } satisfies ToMonitor);
  }

  /** A plain GET on a fresh connection, its whole body kept. */
  private async get(path: string, accept = "application/json"): Promise<RawResponse | undefined> {
    const x = await exchange({ port: this.s.port, ca: this.s.ca, parts: [requestBytes("GET", path, { Accept: accept })], timeoutMs: this.o.requestTimeoutMs, want: 1, keep: 1 << 30 });
    return x.responses[0];
  }

  /** Whether a named object is in its collection (a LIST, as a broken object may fail its own GET). */
  private async exists(o: { collection: string; name: string }): Promise<boolean> {
    const res = await this.get(`${o.collection}?fieldSelector=metadata.name%3D${encodeURIComponent(o.name)}`, "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
    return /"items":\[\{/.test(res?.body.toString() ?? "");
  }

  private async exec(c: Case): Promise<Outcome> {
    const io = { port: this.s.port, ca: this.s.ca, timeoutMs: this.o.requestTimeoutMs, get: (p: string) => this.get(p) };
    if (isScenario(c)) return c.run(io);
    const x = await exchange({
      port: io.port, ca: io.ca, timeoutMs: io.timeoutMs, want: 1, methods: [c.method], holdMs: c.stream ? 1_000 : undefined,
      parts: [requestBytes(c.method, c.path, c.headers ?? {}, c.body, { host: !c.noHost })],
    });
    const res = x.responses[0];
    if (!res) {
      const problem = x.timedOut ? `no answer in ${io.timeoutMs} ms${this.stalled() ? " (the server was stalled)" : ""}` : `connection closed without an answer${x.error ? ` (${x.error})` : ""}`;
      return { statuses: [x.timedOut ? "no answer" : "closed"], problems: [problem] };
    }
    const body = res.body.toString();
    const problems: string[] = [];
    if (serverError(res.status)) problems.push(`server error ${res.status}${c.creates && (await this.exists(c.creates)) ? `, yet ${c.creates.name} was stored` : ""}`);
    if (c.expect && !c.expect.ok(res.status)) problems.push(`expected ${c.expect.want}, got ${res.status}`);
    const watchLike = body === "" || body.startsWith(`{"type"`) || /watch|protobuf/.test(res.headers["content-type"] ?? "");
    if (c.stream && res.status === 200 && !x.held && watchLike && !body.includes("ERROR") && shouldLast(c.path)) {
      problems.push(`the watch ended after ${Math.round(x.ms)} ms without an ERROR event`);
    }
    if (!c.stream && !res.complete && !problems.length) {
      problems.push(`answer cut short after ${res.bodyBytes} bytes (${x.timedOut ? `no more in ${io.timeoutMs} ms` : `connection closed${x.error ? `: ${x.error}` : ""}`})`);
    }
    return { statuses: [res.status], problems, answer: `${res.status} ${preview(body)}` };
  }

  /** Runs one class for ms (every variant at least once), then checks what must hold. */
  async run(cls: FuzzClass, o: { ms: number; seed: number; round: number }): Promise<ClassReport> {
    if (this.o.serverPerClass && !this.dead && this.ran) this.dead = "a server for each class";
    this.ran = true;
    if (this.dead || this.s.proc.exitCode !== null) await this.reboot();
    const r = new Rng(classSeed(o.seed, `${cls.name}#${o.round}`));
    this.ctx.reset(`fz${o.round}-${cls.name.slice(0, 4)}-`);
    await this.ensureTargets();
    this.worst = 0;
    this.slow = [];
    this.suspects = [];
    this.rssPeak = this.rssMb();
    const rep: ClassReport = (this.current = { cls: cls.name, seed: o.seed, round: o.round, sent: 0, ms: 0, statuses: new Map(), failures: [], problems: [], readyzWorstMs: 0, rssPeakMb: 0 });
    const sweep = [...cls.variants];
    const total = cls.variants.reduce((t, v) => t + (v.weight ?? 1), 0);
    const weighted = () => {
      let x = r.next() * total;
      for (const v of cls.variants) if ((x -= v.weight ?? 1) < 0) return v;
      return cls.variants[0];
    };
    const t0 = performance.now();
    const hard = t0 + Math.max(3 * o.ms, o.ms + 30_000);
    const lane = async () => {
      while (!this.dead && !this.stalled() && performance.now() < hard && (sweep.length || performance.now() < t0 + o.ms)) {
        const v = sweep.shift() ?? weighted();
        const n = rep.sent++;
        const c = v.make(r, this.ctx);
        const me: InFlight = { n, what: v.what, show: describe(c) };
        this.inflight.add(me);
        let out: Outcome;
        try {
          out = await this.exec(c);
        } catch (e) {
          out = { statuses: ["client error"], problems: [`the suite could not send it: ${(e as Error).message}`] };
        }
        this.inflight.delete(me);
        this.recent = [...this.recent.slice(-9), me];
        if (this.dead) break; // answers after a crash say nothing about their input
        const write = isScenario(c) || c.method !== "GET";
        if (write && out.statuses.some((st) => typeof st === "number" && st < 300) && (me.show.includes(this.ctx.keepNs) || !me.show.includes(`/namespaces/${this.ctx.ns}/`))) {
          this.suspects.push(`#${n} ${v.what}: ${me.show.slice(0, 400)} → ${out.answer?.slice(0, 200)}`);
        }
        for (const st of out.statuses) rep.statuses.set(String(st), (rep.statuses.get(String(st)) ?? 0) + 1);
        for (const p of out.problems) rep.failures.push({ n, what: v.what, show: me.show, problem: p, answer: out.answer });
      }
    };
    await Promise.all(Array.from({ length: this.o.concurrency }, lane));
    rep.ms = performance.now() - t0;
    if (sweep.length && !this.dead) rep.problems.push(`${sweep.length} of ${cls.variants.length} variants were never sent: the server stalled or the class reached its hard limit of ${Math.round((hard - t0) / 1000)} s`);
    // A server that does not recover is replaced unchecked: every check would only time out.
    const broken = (await this.settle(rep)) || (!this.dead && (await this.verify(rep)));
    rep.readyzWorstMs = this.worst;
    rep.rssPeakMb = this.rssPeak;
    if (this.slow.length) rep.problems.push(`/readyz over ${this.o.readyzLimitMs} ms ${this.slow.length} times (worst ${Math.round(this.worst)} ms):\n    ${this.slow.slice(0, 5).join("\n    ")}`);
    if (this.rssPeak > this.o.rssLimitMb && !this.dead) rep.problems.push(`RSS peaked at ${Math.round(this.rssPeak)} MB (limit ${this.o.rssLimitMb} MB)`);
    if (this.dead) rep.problems.unshift(this.dead);
    if (broken && !this.dead) this.dead = "broken by the class (see its problems)";
    this.current = undefined;
    return rep;
  }

  /** Waits for the server to answer /readyz in time again; true if it does not within 30 s. */
  private async settle(rep: ClassReport): Promise<boolean> {
    const deadline = performance.now() + 30_000;
    while (!this.dead && performance.now() < deadline) {
      const t0 = performance.now();
      const ok = await this.s.req("/readyz", { signal: AbortSignal.timeout(30_000) }).then((r) => r.status === 200, () => false);
      if (ok && performance.now() - t0 <= this.o.readyzLimitMs) return false;
      await Bun.sleep(100);
    }
    if (!this.dead) rep.problems.push(`the server did not answer /readyz within ${this.o.readyzLimitMs} ms again for 30 s after the class ${this.context()}`);
    return true;
  }

  /** Checks watches, reads and stored data; true if any failed (the next class then gets a fresh server). */
  private async verify(rep: ClassReport): Promise<boolean> {
    const before = rep.problems.length;
    // Both watches of a collection started at one revision: once writes stop they must agree.
    const sig = () => this.watches.map((w) => `${w.json.events}/${w.pb.events}`).join(" ");
    const deadline = performance.now() + 5_000;
    for (let last = ""; performance.now() < deadline; await Bun.sleep(300)) {
      const now = sig();
      if (now === last && this.watches.every((w) => w.json.events === w.pb.events)) break;
      last = now;
    }
    for (const w of this.watches) {
      for (const [name, side] of [["JSON", w.json], ["protobuf", w.pb]] as const) {
        if (side.closed) rep.problems.push(`the ${name} watch of ${w.path} was closed by the server (${side.closed})`);
        if (side.errors.length) rep.problems.push(`the ${name} watch of ${w.path} got ${side.errors.length} ERROR events, first: ${side.errors[0]}`);
      }
      if (w.json.events !== w.pb.events) rep.problems.push(`the protobuf watch of ${w.path} delivered ${w.pb.events} events, the JSON watch of the same revision ${w.json.events}`);
    }
    // Whatever was stored must still read back: every collection as JSON and protobuf, and every object.
    const meta = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io";
    const until = performance.now() + 15_000;
    for (const k of KINDS) {
      for (const path of k.def.namespaced ? [k.path(this.ctx.ns), k.path("")] : [k.path("")]) {
        for (const accept of ["application/json", PROTOBUF]) {
          const res = await this.get(path, accept);
          if (res?.status !== 200) rep.problems.push(`LIST ${path} as ${accept} answered ${res?.status ?? "nothing"}: ${preview(res?.body.toString(), 300)}`);
        }
      }
      // Object by object (names from the metadata-only list, which reads no field but metadata).
      const listPath = k.path(k.def.namespaced ? this.ctx.ns : "");
      const list = await this.get(listPath, meta);
      let items: any[] = [];
      try {
        items = JSON.parse(list?.body.toString() ?? "").items ?? [];
      } catch {
        rep.problems.push(`LIST ${listPath} as ${meta} answered ${list?.status ?? "nothing"}: ${preview(list?.body.toString(), 300)}`);
      }
      const bad: string[] = [];
      await Promise.all(Array.from({ length: this.o.concurrency }, async () => {
        for (let o = items.pop(); o && performance.now() < until && bad.length < 5; o = items.pop()) {
          const path = k.path(o.metadata.namespace ?? "", o.metadata.name);
          for (const accept of ["application/json", PROTOBUF]) {
            const one = await this.get(path, accept);
            if (one?.status !== 200) bad.push(`GET ${path} as ${accept} → ${one?.status ?? "nothing"}: ${preview(one?.body.toString(), 200)}`);
          }
        }
      }));
      if (bad.length) rep.problems.push(`stored objects that no longer read back:\n    ${bad.join("\n    ")}`);
    }
    // The objects made before the fuzzing, and every namespace, byte for byte.
    const damaged: string[] = [];
    for (const [path, text] of this.before) {
      const res = await this.get(path);
      const now = res?.body.toString() ?? "(no answer)";
      if (now !== text) damaged.push(`${path}: was ${preview(text, 200)}, now ${res?.status ?? ""} ${preview(now, 300)}`);
    }
    if (damaged.length) {
      const suspects = this.suspects.length ? this.suspects.slice(0, 10).join("\n      ") : "none (no write outside the fuzz namespace was answered 2xx)";
      rep.problems.push(`stored data changed:\n    ${damaged.join("\n    ")}\n    writes outside namespace ${this.ctx.ns} answered 2xx:\n      ${suspects}`);
    }
    return rep.problems.length > before;
  }
}

/** A class report as text: totals, class-level problems, and failures grouped by input and problem. */
export function formatReport(rep: ClassReport, maxGroups = 25): string {
  const statuses = [...rep.statuses].sort().map(([k, v]) => `${k}: ${v}`).join(", ");
  const lines = [`class ${rep.cls} (FUZZ_SEED=${rep.seed}, round ${rep.round}): ${rep.sent} inputs in ${(rep.ms / 1000).toFixed(1)} s; ${statuses}; worst /readyz ${Math.round(rep.readyzWorstMs)} ms; peak RSS ${Math.round(rep.rssPeakMb)} MB`];
  for (const p of rep.problems) lines.push(`  PROBLEM: ${p}`);
  const groups = new Map<string, Failure[]>();
  for (const f of rep.failures) {
    const key = `${f.what} → ${f.problem.replace(/\d+ ms/, "N ms").replace(/fz\d+-[a-z]+-\d+/g, "<name>")}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const sorted = [...groups].sort((a, b) => b[1].length - a[1].length);
  if (sorted.length) lines.push(`  ${rep.failures.length} failed inputs in ${sorted.length} groups:`);
  for (const [key, fs] of sorted.slice(0, maxGroups)) {
    const f = fs[0];
    lines.push(`  × ${fs.length}  ${key}\n      e.g. #${f.n}: ${f.show.slice(0, 700)}\n      → ${f.answer ?? f.problem}`);
  }
  if (sorted.length > maxGroups) lines.push(`  … and ${sorted.length - maxGroups} more groups`);
  return lines.join("\n");
}
