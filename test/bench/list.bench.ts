// Issue 5 item 7: what the representations cost, through HTTPS to a real `kite apiserver`.
//  1. LIST of 10,000 running pods (~2 KB of JSON each) as JSON, Table (kubectl's Accept) and protobuf,
//     with and without gzip: bytes on the wire, wall time and server CPU, best of 5.
//  2. Watch fan-out: W watchers of one collection, U updates of one pod; server CPU (utime + stime from
//     /proc/<pid>/stat) per event written and per event delivered, for 1 and 200 watchers, next to what
//     encoding that event once costs in-process. If each event were encoded per watcher, each extra
//     delivery would cost at least one encoding.
// Run: node_modules/.bin/bun test/bench/list.bench.ts   (KITE_BIN=dist/kite to bench the compiled binary;
//      N_PODS, WATCHERS, UPDATES, ROUNDS override the sizes). Prints a Markdown report on stdout.
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { encodeObject } from "../../pkg/protobuf/index.ts";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import { tableFor } from "../../pkg/table/index.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

const N_PODS = Number(process.env.N_PODS ?? 10_000);
const WATCHERS = Number(process.env.WATCHERS ?? 200);
const UPDATES = Number(process.env.UPDATES ?? 500);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const NS = "bench";
const FAN_NS = "fanout";
const progress = (s: string) => process.stderr.write(`  ${s}\n`);

const PB = "application/vnd.kubernetes.protobuf";
const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const REPS = [
  { name: "JSON", accept: "application/json" },
  { name: "Table", accept: TABLE_ACCEPT },
  { name: "protobuf", accept: PB },
] as const;

// ---- server CPU from /proc

const CLK_TCK = 100; // USER_HZ on Linux
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from 3 (state) on
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK; // utime (14), stime (15)
}

// ---- a realistic pod: a Deployment's replica, scheduled and running

function pod(i: number, ns = NS) {
  const hash = (i * 2654435761 >>> 0).toString(16).padStart(8, "0").slice(0, 5);
  const app = `svc-${i % 50}`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${app}-7d9f8c6b5-${hash}${i}`,
      namespace: ns,
      labels: { app, "pod-template-hash": "7d9f8c6b5", tier: i % 3 ? "backend" : "frontend" },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: `${app}-7d9f8c6b5`, uid: "6f1c2a3e-8b7d-4e5f-9a0b-1c2d3e4f5a6b", controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [{
        name: "app",
        image: `registry.example.com/team/${app}:1.4.2`,
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
        env: [{ name: "POD_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } }],
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
        volumeMounts: [{ name: "config", mountPath: "/etc/app", readOnly: true }],
        imagePullPolicy: "IfNotPresent",
      }],
      volumes: [{ name: "config", configMap: { name: `${app}-config`, defaultMode: 420 } }],
      nodeName: `node-${i % 20}`,
      serviceAccountName: "default",
    },
  };
}

function runningStatus(i: number) {
  const t = "2024-05-01T10:00:00Z";
  return {
    phase: "Running",
    conditions: ["Ready", "PodScheduled"].map((type) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: t })),
    hostIP: `10.0.0.${i % 20}`,
    podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
    startTime: t,
    qosClass: "Burstable",
    containerStatuses: [{
      name: "app", ready: true, restartCount: i % 4, started: true,
      image: `registry.example.com/team/svc-${i % 50}:1.4.2`,
      imageID: "registry.example.com/team/app@sha256:4f1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b",
      containerID: `containerd://${(i * 7919).toString(16).padStart(12, "0")}`,
      state: { running: { startedAt: t } },
    }],
  };
}

/** Runs `total` calls with `conc` workers. */
async function load(total: number, conc: number, op: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: conc }, async () => {
    for (let i = next++; i < total; i = next++) await op(i);
  }));
}

async function must(r: Promise<Response>, code: number, what: string): Promise<any> {
  const res = await r;
  const text = await res.text();
  if (res.status !== code) throw new Error(`${what}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

// ---- 1. LIST

interface ListRow { rep: string; gzip: boolean; bytes: number; ms: number; cpu: number; items: number }

async function listBench(s: TestServer): Promise<{ rows: ListRow[]; podBytes: number; mfBytes: number }> {
  progress(`creating ${N_PODS} pods and setting them Running`);
  const t0 = performance.now();
  await load(N_PODS, 32, async (i) => {
    const created = await must(s.req(`/api/v1/namespaces/${NS}/pods`, { method: "POST", json: pod(i) }), 201, `create pod ${i}`);
    created.status = runningStatus(i);
    await must(s.req(`/api/v1/namespaces/${NS}/pods/${created.metadata.name}/status`, { method: "PUT", json: created }), 200, `status of pod ${i}`);
  });
  progress(`  ${(performance.now() - t0).toFixed(0)} ms`);
  const one = await must(s.req(`/api/v1/namespaces/${NS}/pods/${pod(0).metadata.name}`), 200, "get pod 0");
  const podBytes = JSON.stringify(one).length;
  const mfBytes = one.metadata.managedFields ? JSON.stringify(one.metadata.managedFields).length : 0;

  const rows: ListRow[] = [];
  for (const gzip of [false, true]) {
    for (const rep of REPS) {
      progress(`LIST ${N_PODS} pods as ${rep.name}${gzip ? " (gzip)" : ""}`);
      let best: ListRow | null = null;
      for (let r = 0; r < ROUNDS; r++) {
        const c0 = cpuMs(s.proc.pid);
        const t = performance.now();
        const res = await s.req(`/api/v1/namespaces/${NS}/pods`, {
          headers: { Accept: rep.accept, "Accept-Encoding": gzip ? "gzip" : "identity" }, decompress: false,
        } as RequestInit);
        const body = new Uint8Array(await res.arrayBuffer());
        const ms = performance.now() - t;
        const cpu = cpuMs(s.proc.pid) - c0;
        if (res.status !== 200) throw new Error(`LIST as ${rep.name}: HTTP ${res.status}`);
        if (gzip !== (res.headers.get("content-encoding") === "gzip")) throw new Error(`LIST as ${rep.name}: Content-Encoding ${res.headers.get("content-encoding")}`);
        const row: ListRow = { rep: rep.name, gzip, bytes: body.length, ms, cpu, items: 0 };
        if (r === 0) {
          // Check once that the reply is the whole list in the asked form.
          const plain = gzip ? Bun.gunzipSync(body as Uint8Array<ArrayBuffer>) : body;
          if (rep.name === "protobuf") row.items = (await import("../../pkg/protobuf/index.ts")).decodeObject(plain).items.length;
          else {
            const o = JSON.parse(new TextDecoder().decode(plain));
            row.items = rep.name === "Table" ? o.rows.length : o.items.length;
          }
          if (row.items !== N_PODS) throw new Error(`LIST as ${rep.name}: ${row.items} items, expected ${N_PODS}`);
        }
        if (!best || ms < best.ms) best = { ...row, items: N_PODS, cpu: best ? Math.min(best.cpu, cpu) : cpu };
        else best.cpu = Math.min(best.cpu, cpu);
      }
      rows.push(best!);
    }
  }
  return { rows, podBytes, mfBytes };
}

// ---- 2. watch fan-out

interface FanRow { rep: string; watchers: number; delivered: number; cpu: number; perWrite: number; perDelivery: number; wallMs: number }

/** Opens a watch and counts the events it receives (JSON lines or length-prefixed frames). */
function watcher(s: TestServer, path: string, accept: string, binary: boolean) {
  const ac = new AbortController();
  const st = { events: 0, closed: false, error: "" };
  (async () => {
    const res = await s.req(path, { headers: { Accept: accept, "Accept-Encoding": "identity" }, signal: ac.signal });
    if (res.status !== 200) throw new Error(`watch: HTTP ${res.status}`);
    const reader = res.body!.getReader();
    let pending = new Uint8Array(0);
    let atLineStart = true; // a JSON stream may open with a bare newline: count non-empty lines only
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!binary) {
        for (let i = 0; i < value.length; i++) {
          if (value[i] === 10) { if (!atLineStart) st.events++; atLineStart = true; } else atLineStart = false;
        }
        continue;
      }
      const buf = pending.length ? new Uint8Array([...pending, ...value]) : value;
      let pos = 0;
      while (buf.length - pos >= 4) {
        const len = new DataView(buf.buffer, buf.byteOffset + pos, 4).getUint32(0, false);
        if (buf.length - pos - 4 < len) break;
        pos += 4 + len;
        st.events++;
      }
      pending = buf.slice(pos);
    }
  })().catch((e) => { if (!ac.signal.aborted) st.error = String(e); }).finally(() => { st.closed = true; });
  return { st, stop: () => ac.abort() };
}

async function waitFor(cond: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

async function fanout(s: TestServer, rep: (typeof REPS)[number], watchers: number, target: any): Promise<FanRow> {
  const path = `/api/v1/namespaces/${FAN_NS}/pods`;
  const patch = (v: string) => must(s.req(`${path}/${target.metadata.name}`, {
    method: "PATCH", headers: { "Content-Type": "application/merge-patch+json" }, json: { metadata: { labels: { rev: v } } },
  }), 200, "patch");
  const rv = (await must(s.req(path), 200, "list fanout")).metadata.resourceVersion;
  const binary = rep.name === "protobuf";
  const ws = Array.from({ length: watchers }, () => watcher(s, `${path}?watch=true&resourceVersion=${rv}&timeoutSeconds=600`, rep.accept, binary));
  await patch(`warm-${rep.name}-${watchers}`);
  await waitFor(() => ws.every((w) => w.st.events >= 1), `${watchers} ${rep.name} watchers to see the first event`);
  await Bun.sleep(200);
  const base = ws.map((w) => w.st.events);
  const c0 = cpuMs(s.proc.pid);
  const t0 = performance.now();
  await load(UPDATES, 1, (i) => patch(`${rep.name}-${watchers}-${i}`));
  await waitFor(() => ws.every((w, i) => w.st.events - base[i] >= UPDATES || w.st.error !== ""), `${watchers} ${rep.name} watchers to see ${UPDATES} events`);
  const wallMs = performance.now() - t0;
  const cpu = cpuMs(s.proc.pid) - c0;
  const errors = ws.map((w) => w.st.error).filter(Boolean);
  ws.forEach((w) => w.stop());
  if (errors.length) throw new Error(`${errors.length} ${rep.name} watchers failed: ${errors[0]}`);
  const delivered = ws.reduce((n, w, i) => n + w.st.events - base[i], 0);
  await Bun.sleep(300);
  return { rep: rep.name, watchers, delivered, cpu, perWrite: cpu / UPDATES, perDelivery: cpu / delivered, wallMs };
}

/** What encoding the target pod's event costs in this process (µs), per representation. */
function encodeCost(obj: any): Record<string, number> {
  const def = BUILTIN.find((d) => d.kind === "Pod" && d.group === "")!;
  const n = 2000;
  const time = (f: () => unknown) => {
    for (let i = 0; i < 200; i++) f();
    const t = performance.now();
    for (let i = 0; i < n; i++) f();
    return ((performance.now() - t) * 1000) / n;
  };
  const enc = new TextEncoder();
  // A fresh copy each time, as the server sees a new object per update.
  return {
    JSON: time(() => enc.encode(`{"type":"MODIFIED","object":${JSON.stringify({ ...obj })}}\n`)),
    Table: time(() => enc.encode(JSON.stringify({ type: "MODIFIED", object: tableFor(def, [{ ...obj }], { group: "meta.k8s.io", version: "v1", listMeta: { resourceVersion: "1" } }) }))),
    protobuf: time(() => encodeObject({ ...obj })),
  };
}

// ---- report

const fmtBytes = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

async function main() {
  const s = await startServer(["--etcd-compaction-interval=0"]);
  try {
    for (const ns of [NS, FAN_NS]) await must(s.req("/api/v1/namespaces", { method: "POST", json: { metadata: { name: ns } } }), 201, `namespace ${ns}`);
    const { rows, podBytes, mfBytes } = await listBench(s);

    progress("watch fan-out");
    const created = await must(s.req(`/api/v1/namespaces/${FAN_NS}/pods`, { method: "POST", json: pod(1, FAN_NS) }), 201, "fanout pod");
    created.status = runningStatus(1);
    const target = await must(s.req(`/api/v1/namespaces/${FAN_NS}/pods/${created.metadata.name}/status`, { method: "PUT", json: created }), 200, "fanout status");
    const fan: FanRow[] = [];
    for (const rep of REPS) {
      for (const w of [1, WATCHERS]) {
        progress(`  ${rep.name}, ${w} watcher(s), ${UPDATES} updates`);
        fan.push(await fanout(s, rep, w, target));
      }
    }
    const cost = encodeCost(target);

    const cmd = `${process.env.KITE_BIN ? `KITE_BIN=${process.env.KITE_BIN} ` : ""}node_modules/.bin/bun test/bench/list.bench.ts`;
    const out: string[] = [];
    out.push(`### LIST and watch fan-out by representation`, "");
    out.push(`Command: \`${cmd}\` — server: \`${KITE.map((p) => p.replace(/^.*\//, "")).join(" ")} apiserver\` over HTTPS on loopback; ` +
      `${cpus().length} × ${cpus()[0]?.model ?? "CPU"}; Bun ${Bun.version}; ${new Date().toISOString().slice(0, 10)}.`, "");
    out.push(`**LIST of ${N_PODS.toLocaleString("en-US")} running pods** (${podBytes.toLocaleString("en-US")} bytes of JSON each: ` +
      `${(podBytes - mfBytes).toLocaleString("en-US")} of object and ${mfBytes.toLocaleString("en-US")} of the managedFields the server adds), ` +
      `one request, best of ${ROUNDS}; time is until the last byte is read; server CPU is utime + stime from /proc/<pid>/stat (10 ms ticks).`, "");
    out.push("| Representation | Accept-Encoding | Bytes on the wire | Time (ms) | Server CPU (ms) |", "|---|---|---:|---:|---:|");
    for (const r of rows) out.push(`| ${r.rep} | ${r.gzip ? "gzip" : "identity"} | ${fmtBytes(r.bytes)} (${r.bytes.toLocaleString("en-US")}) | ${r.ms.toFixed(0)} | ${r.cpu.toFixed(0)} |`);
    out.push("");
    out.push(`**Watch fan-out**: W watchers of one namespace's pods, ${UPDATES} merge patches of one pod (one at a time), server CPU over the ` +
      `window from the first patch until every watcher has read every event. Encode = what one event costs to encode in-process ` +
      `(JSON line, Table line, protobuf envelope) for this pod.`, "");
    out.push("| Representation | Watchers | Events delivered | Server CPU (ms) | CPU per event written (ms) | CPU per event delivered (µs) | Extra CPU per extra delivery (µs) | Encode once (µs) |",
      "|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const rep of REPS) {
      const [one, many] = [fan.find((f) => f.rep === rep.name && f.watchers === 1)!, fan.find((f) => f.rep === rep.name && f.watchers === WATCHERS)!];
      const marginal = ((many.cpu - one.cpu) * 1000) / (many.delivered - one.delivered);
      for (const f of [one, many]) {
        out.push(`| ${f.rep} | ${f.watchers} | ${f.delivered.toLocaleString("en-US")} | ${f.cpu.toFixed(0)} | ${f.perWrite.toFixed(2)} | ${(f.perDelivery * 1000).toFixed(1)} | ` +
          `${f === many ? marginal.toFixed(1) : "—"} | ${f === many ? cost[rep.name].toFixed(1) : "—"} |`);
      }
    }
    out.push("");
    console.log(out.join("\n"));
  } finally {
    await s.stop();
  }
}

await main();
