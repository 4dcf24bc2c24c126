// Issue 3 item 7: real clients watching the server. Stock kubectl `get -w`, the Debian Python client's
// watch.Watch().stream(...), and the @kubernetes/client-node informer each follow a namespace while the
// test changes objects; what each client shows or calls back is what a user would see.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startServer, type TestServer } from "../helpers/server.ts";

const PYTHON = "/usr/bin/python3";
const WATCH_PY = join(import.meta.dir, "clients", "watch.py");
const INFORMER_TS = join(import.meta.dir, "clients", "informer.ts");
const merge = { "content-type": "application/merge-patch+json" };

let s: TestServer;
let serverLog = "";
async function drain(stream: ReadableStream<Uint8Array>) {
  const dec = new TextDecoder();
  for await (const c of stream) serverLog = (serverLog + dec.decode(c, { stream: true })).slice(-8_000);
}
/** Added to failure messages: whether the apiserver is still running, and its last output. */
const serverState = () => (s.proc.exitCode !== null || s.proc.signalCode
  ? `\n(the apiserver process EXITED: code ${s.proc.exitCode}, signal ${s.proc.signalCode}${s.proc.exitCode === 0 ? "; it exits 0 only on SIGTERM/SIGINT, so something outside the test stopped it" : ""}; last output: ${serverLog || "(none)"})`
  : "");

beforeAll(async () => {
  s = await startServer();
  void drain(s.proc.stdout as ReadableStream<Uint8Array>);
  void drain(s.proc.stderr as ReadableStream<Uint8Array>);
});
afterAll(async () => { await s?.stop(); });

/** The ConfigMap the server keeps in every namespace: the clients see it too, these tests follow their own objects. */
const ROOT_CA = "kube-root-ca.crt";

async function namespace(name: string) {
  const r = await s.call("POST", "/api/v1/namespaces", { metadata: { name } }).catch((e: Error) => { throw new Error(`POST /api/v1/namespaces: ${e.message}${serverState()}`); });
  if (r.status !== 201) throw new Error(`POST /api/v1/namespaces ${name}: expected 201, got ${r.status}: ${JSON.stringify(r.body)}`);
}

async function write(method: string, path: string, body: unknown, want: number, headers?: Record<string, string>) {
  const r = await s.call(method, path, body, headers).catch((e: Error) => { throw new Error(`${method} ${path}: ${e.message}${serverState()}`); });
  if (r.status !== want) throw new Error(`${method} ${path}: expected ${want}, got ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body;
}

/** Collects a process's output line by line and lets a test wait for a line. */
class Lines {
  lines: string[] = [];
  text = "";
  readonly done: Promise<void>;
  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = (async () => {
      const dec = new TextDecoder();
      let buf = "";
      for await (const chunk of stream) {
        const t = dec.decode(chunk, { stream: true });
        this.text += t;
        buf += t;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) { this.lines.push(buf.slice(0, i)); buf = buf.slice(i + 1); }
      }
      if (buf) this.lines.push(buf);
    })();
  }
  async waitFor(pred: (lines: string[]) => boolean, what: string, ms: number, stderr?: Lines): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred(this.lines)) {
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${ms} ms waiting for ${what}; output so far:\n${this.text || "(none)"}${stderr ? `\nstderr:\n${stderr.text || "(none)"}` : ""}${serverState()}`);
      }
      await Bun.sleep(50);
    }
  }
}

function spawnWatched(cmd: string[]): { proc: Subprocess<"ignore", "pipe", "pipe">; out: Lines; err: Lines } {
  const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { proc, out: new Lines(proc.stdout), err: new Lines(proc.stderr) };
}

describe("kubectl get -w", () => {
  const NS = "kubectl-watch";
  const base = `/api/v1/namespaces/${NS}/configmaps`;
  // kubectl asks for Table lists and Table watch events. Until the server serves Tables a plain object
  // is acceptable (issue 3): kubectl then prints only NAME and AGE. With Tables it prints NAME DATA AGE.
  let tables = false;
  beforeAll(async () => {
    await namespace(NS);
    const r = await s.call("GET", `${base}?limit=500`, undefined, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" });
    tables = r.body?.kind === "Table";
  });
  const kubectlWatch = (...extra: string[]) => spawnWatched(["kubectl", `--kubeconfig=${s.kubeconfig}`, "get", "configmaps", "-n", NS, "-w", ...extra]);
  /** The first columns of a row: NAME (and DATA when the server serves Tables), after `skip` leading columns. */
  const cols = (line: string, skip = 0) => line.trim().split(/\s+/).slice(0, skip + (tables ? 2 : 1)).join(" ");

  test("plain -w prints the header and a row per change as configmaps are created, updated and deleted", async () => {
    await write("POST", base, { metadata: { name: "first" }, data: { a: "1" } }, 201);
    const { proc, out, err } = kubectlWatch();
    const rows = () => out.lines.slice(1).filter((l) => l.trim() && l.split(/\s+/)[0] !== ROOT_CA);
    const count = (name: string) => rows().filter((l) => l.split(/\s+/)[0] === name).length;
    try {
      await out.waitFor(() => count("first") >= 1, "the row of configmap first (the initial list)", 15_000, err);
      expect(out.lines[0]).toMatch(tables ? /^NAME\s+DATA\s+AGE\s*$/ : /^NAME\s+AGE\s*$/);

      await write("POST", base, { metadata: { name: "second" }, data: { a: "1" } }, 201);
      await out.waitFor(() => count("second") >= 1, "a row for the created configmap second", 10_000, err);
      await write("PATCH", `${base}/second`, { data: { b: "2" } }, 200, merge);
      await out.waitFor(() => count("second") >= 2, "a second row for second after its update", 10_000, err);
      await write("DELETE", `${base}/first`, undefined, 200);
      await out.waitFor(() => count("first") >= 2, "a row for first after its deletion", 10_000, err);

      expect(rows().map((l) => cols(l))).toEqual(tables ? ["first 1", "second 1", "second 2", "first 1"] : ["first", "second", "second", "first"]);
      expect(proc.exitCode).toBeNull(); // still watching
    } finally {
      proc.kill();
      await proc.exited;
    }
    expect(err.text).toBe("");
  }, 30_000);

  test("--output-watch-events shows ADDED, MODIFIED and DELETED in order", async () => {
    await write("POST", base, { metadata: { name: "third" }, data: { a: "1" } }, 201);
    const { proc, out, err } = kubectlWatch("--output-watch-events");
    const events = () => out.lines.slice(1).filter((l) => l.trim() && l.trim().split(/\s+/)[1] !== ROOT_CA).map((l) => cols(l, 1));
    try {
      await out.waitFor(() => events().some((e) => e.split(" ")[1] === "third"), "the initial ADDED row of third", 15_000, err);
      expect(out.lines[0]).toMatch(tables ? /^EVENT\s+NAME\s+DATA\s+AGE\s*$/ : /^EVENT\s+NAME\s+AGE\s*$/);
      await write("PATCH", `${base}/third`, { data: { b: "2", c: "3" } }, 200, merge);
      await write("POST", base, { metadata: { name: "fourth" } }, 201);
      await write("DELETE", `${base}/third`, undefined, 200);
      await write("DELETE", `${base}/second`, undefined, 200);
      await out.waitFor(() => events().length >= 6, "six event rows", 10_000, err);
      await Bun.sleep(200); // nothing more may follow
      const want = [
        ["ADDED second", "2"], ["ADDED third", "1"], // the initial list, in name order
        ["MODIFIED third", "3"], ["ADDED fourth", "0"], ["DELETED third", "3"], ["DELETED second", "2"],
      ];
      expect(events()).toEqual(want.map(([e, data]) => (tables ? `${e} ${data}` : e)));
    } finally {
      proc.kill();
      await proc.exited;
    }
    expect(err.text).toBe("");
  }, 30_000);
});

describe("Python client (python3-kubernetes) watch.Watch().stream", () => {
  const NS = "python-watch";
  const base = `/api/v1/namespaces/${NS}/configmaps`;
  beforeAll(() => namespace(NS));

  test("streams ADDED, MODIFIED and DELETED in order, with and without a label selector, and ends at timeout_seconds", async () => {
    let why = "";
    try {
      const probe = Bun.spawnSync([PYTHON, "-c", "import kubernetes"], { stdout: "pipe", stderr: "pipe" });
      if (probe.exitCode !== 0) why = `exit ${probe.exitCode}: ${probe.stderr.toString().trim() || "no output"}`;
    } catch (e) {
      why = (e as Error).message;
    }
    if (why) {
      throw new Error(`the Python Kubernetes client is required for this test, but "${PYTHON} -c 'import kubernetes'" failed (${why}). ` +
        "Install it with: apt-get install python3-kubernetes");
    }

    await write("POST", base, { metadata: { name: "first", labels: { color: "red" } }, data: { v: "1" } }, 201);
    const TIMEOUT = 8;
    const all = spawnWatched([PYTHON, WATCH_PY, s.kubeconfig, NS, String(TIMEOUT)]);
    const red = spawnWatched([PYTHON, WATCH_PY, s.kubeconfig, NS, String(TIMEOUT), "color=red"]);
    const started = Date.now();
    const parsed = (l: Lines) => l.lines.filter((x) => x.trim()).map((x) => { try { return JSON.parse(x); } catch { return { unparsed: x }; } }).filter((e) => e.name !== ROOT_CA);
    const events = (l: Lines) => parsed(l).filter((e) => e.type).map((e) => `${e.type} ${e.name}`);
    try {
      for (const w of [all, red]) {
        await w.out.waitFor(() => events(w.out).includes("ADDED first"), "ADDED first (the initial state, as the watch has no resourceVersion)", 15_000, w.err);
      }
      await write("POST", base, { metadata: { name: "second", labels: { color: "blue" } }, data: { v: "1" } }, 201);
      await write("PATCH", `${base}/second`, { data: { v: "2" } }, 200, merge);
      await write("PATCH", `${base}/second`, { metadata: { labels: { color: "red" } } }, 200, merge); // enters color=red
      await write("PATCH", `${base}/second`, { metadata: { labels: { color: "green" } } }, 200, merge); // leaves it
      await write("DELETE", `${base}/second`, undefined, 200);
      await write("DELETE", `${base}/first`, undefined, 200);

      const exitCodes = await Promise.race([
        Promise.all([all.proc.exited, red.proc.exited]),
        Bun.sleep((TIMEOUT + 10) * 1000).then(() => null),
      ]);
      await Promise.all([all.out.done, red.out.done, all.err.done, red.err.done]);
      const show = (w: typeof all) => `stdout:\n${w.out.text}\nstderr:\n${w.err.text}${serverState()}`;
      if (exitCodes === null) throw new Error(`the Python watch did not end within ${TIMEOUT + 10} s of timeout_seconds=${TIMEOUT}:\n${show(all)}\n${show(red)}`);
      const elapsed = (Date.now() - started) / 1000;
      expect(exitCodes, `exit codes; all: ${show(all)}; red: ${show(red)}`).toEqual([0, 0]);

      expect(events(all.out)).toEqual([
        "ADDED first", "ADDED second", "MODIFIED second", "MODIFIED second", "MODIFIED second", "DELETED second", "DELETED first",
      ]);
      expect(events(red.out)).toEqual(["ADDED first", "ADDED second", "DELETED second", "DELETED first"]);
      for (const w of [all, red]) {
        const evs = parsed(w.out).filter((e) => e.type);
        const rvs = evs.map((e) => Number(e.resourceVersion));
        for (let i = 1; i < rvs.length; i++) expect(rvs[i]).toBeGreaterThan(rvs[i - 1]);
        expect(parsed(w.out).at(-1)).toEqual({ end: true });
        expect(parsed(w.out).some((e) => e.error)).toBe(false);
      }
      // The MODIFIED after the data change carries the new state.
      expect(parsed(all.out).filter((e) => e.type === "MODIFIED")[0].data).toEqual({ v: "2" });
      // The server closed the stream because of timeout_seconds, not long after it.
      expect(elapsed).toBeLessThan(TIMEOUT + 8);
    } finally {
      all.proc.kill();
      red.proc.kill();
    }
  }, 30_000);
});

describe("@kubernetes/client-node informer", () => {
  const NS = "js-informer";
  const base = `/api/v1/namespaces/${NS}/configmaps`;
  beforeAll(() => namespace(NS));

  type Informer = ReturnType<typeof spawnInformer>;
  function spawnInformer(selector?: string) {
    const proc = Bun.spawn([process.execPath, INFORMER_TS, s.kubeconfig, NS, ...(selector ? [selector] : [])], {
      stdin: "pipe", stdout: "pipe", stderr: "pipe",
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(s.dataDir, "pki", "ca.crt") },
    });
    const out = new Lines(proc.stdout), err = new Lines(proc.stderr);
    const msgs = () => out.lines.filter((l) => l.trim()).map((l) => { try { return JSON.parse(l); } catch { return { unparsed: l }; } })
      .filter((m) => m.name !== ROOT_CA)
      .map((m) => (m.cache ? { ...m, cache: m.cache.filter((c: { name: string }) => c.name !== ROOT_CA) } : m));
    return {
      proc, out, err, msgs,
      events: () => msgs().filter((m) => m.event).map((m) => `${m.event} ${m.name}`),
      errors: () => msgs().filter((m) => m.error || m.unparsed).map((m) => m.error ?? m.unparsed),
      show: () => `stdout:\n${out.text || "(none)"}\nstderr:\n${err.text || "(none)"}${serverState()}`,
    };
  }
  async function finish(inf: Informer) {
    inf.proc.stdin.write("dump\n");
    inf.proc.stdin.end();
    const code = await Promise.race([inf.proc.exited, Bun.sleep(10_000).then(() => null)]);
    if (code === null) inf.proc.kill();
    await inf.out.done;
    return code;
  }

  test("lists, then calls add, update and delete as objects change; a label-selected informer sees objects enter and leave", async () => {
    await write("POST", base, { metadata: { name: "first", labels: { color: "red" } }, data: { v: "1" } }, 201);
    const all = spawnInformer(), red = spawnInformer("color=red");
    try {
      for (const inf of [all, red]) await inf.out.waitFor(() => inf.events().includes("add first"), "the informer's add callback for first (from its list)", 15_000, inf.err);
      // The informer watches from its list's resourceVersion, so changes made from here on all reach it.
      await write("POST", base, { metadata: { name: "second", labels: { color: "blue" } }, data: { v: "1" } }, 201);
      await write("PATCH", `${base}/second`, { data: { v: "2" } }, 200, merge);
      await write("PATCH", `${base}/second`, { metadata: { labels: { color: "red" } } }, 200, merge); // second enters color=red
      await write("PATCH", `${base}/first`, { metadata: { labels: { color: "green" } } }, 200, merge); // first leaves it
      await write("DELETE", `${base}/second`, undefined, 200);
      for (const inf of [all, red]) await inf.out.waitFor(() => inf.events().includes("delete second"), "the delete callback for second", 15_000, inf.err);

      expect(all.events()).toEqual(["add first", "add second", "update second", "update second", "update first", "delete second"]);
      expect(red.events()).toEqual(["add first", "add second", "delete first", "delete second"]);
      const updates = all.msgs().filter((m) => m.event === "update");
      expect(updates.map((m) => [m.name, m.data.v, m.labels.color])).toEqual([["second", "2", "blue"], ["second", "2", "red"], ["first", "1", "green"]]);

      const codes = [await finish(all), await finish(red)];
      expect(codes, `exit codes; all informer: ${all.show()}\ncolor=red informer: ${red.show()}`).toEqual([0, 0]);
      // The informers' stores agree with the server.
      expect(all.msgs().find((m) => m.cache)?.cache).toEqual([{ name: "first", labels: { color: "green" }, data: { v: "1" } }]);
      expect(red.msgs().find((m) => m.cache)?.cache).toEqual([]);
      for (const inf of [all, red]) {
        expect(inf.errors(), inf.show()).toEqual([]);
        expect(inf.msgs().filter((m) => m.listed).length, `the informer listed more than once (it lost its watch): ${inf.show()}`).toBe(1);
        expect(inf.msgs().at(-1)).toEqual({ stopped: true });
      }
    } finally {
      all.proc.kill();
      red.proc.kill();
    }
  }, 30_000);

  test("informer.start() resolves promptly on a quiet collection (the watch is answered before any event)", async () => {
    await write("POST", base, { metadata: { name: "quiet" } }, 201);
    const inf = spawnInformer();
    try {
      await inf.out.waitFor(() => inf.events().includes("add quiet"), "the add callback for quiet (from the list)", 15_000, inf.err);
      const listedAt = Date.now();
      // start() resolves once the watch request has its response headers. Upstream flushes them as soon
      // as the watch is set up; a server that holds them back until the first event leaves start() pending.
      const started = await inf.out.waitFor(() => inf.msgs().some((m) => m.started), "", 5_000).then(() => true, () => false);
      if (!started) {
        throw new Error(`informer.start() had not resolved ${Date.now() - listedAt} ms after its list, with no changes in the namespace: ` +
          `GET ${base}?watch=true&resourceVersion=<list RV> got no response headers yet (expected an immediate 200 and a chunked stream). ${inf.show()}`);
      }
      expect(await finish(inf)).toBe(0);
      expect(inf.errors()).toEqual([]);
    } finally {
      inf.proc.kill();
    }
  }, 30_000);
});
