// Why issue 12's pipelining finding stays open: Bun.serve (which Kite serves with) closes a connection on
// which a request is pipelined behind one still being answered, while Bun's node:http server answers both;
// this measures what node:http would cost per request instead. Each HTTP server runs alone in a child
// process (this file with `serve KIND`); per kind: the answer to a POST with a GET pipelined behind it in
// one write, then keep-alive GETs of a 1 KB JSON answer at concurrency 64, with the server's CPU per request.
//   bun test/bench/pipelining.bench.ts          (ROUNDS=3 N=20000)
// Kinds: "bun-serve" (Bun.serve, fetch-style handler), "node-http" (node:http, answering directly), and
// "node-http-fetch" (node:http with a Request built and a Response written per request: what Kite's
// fetch-style handlers would need on it).
import http from "node:http";
import net from "node:net";
import { cpuOf, load, progress } from "./load.ts";
import { track } from "../helpers/processes.ts";

const BODY = JSON.stringify({ kind: "ConfigMap", apiVersion: "v1", data: { a: "x".repeat(1000) } });
const KINDS = ["bun-serve", "node-http", "node-http-fetch"] as const;
type Kind = (typeof KINDS)[number];

/** A fetch-style handler that awaits, as every Kite handler does (authentication, the store). */
async function answer(req: Request): Promise<Response> {
  const body = req.method === "POST" ? await req.text() : "";
  await Bun.sleep(1);
  return new Response(body ? `posted ${body}` : BODY, { headers: { "content-type": "application/json" } });
}

async function serve(kind: Kind): Promise<number> {
  if (kind === "bun-serve") return Bun.serve({ port: 0, hostname: "127.0.0.1", development: false, fetch: answer }).port!;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (kind === "node-http") {
      await Bun.sleep(1);
      const body = req.method === "POST" ? `posted ${Buffer.concat(chunks)}` : BODY;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      return res.end(body);
    }
    const r = await answer(new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method, headers: req.headers as Record<string, string>, body: chunks.length ? Buffer.concat(chunks) : undefined,
    }));
    const bytes = new Uint8Array(await r.arrayBuffer());
    const headers: Record<string, string> = { "content-length": String(bytes.length) };
    r.headers.forEach((v, k) => (headers[k] = v));
    res.writeHead(r.status, headers);
    res.end(bytes);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return (server.address() as net.AddressInfo).port;
}

/** The status lines answered to a POST and a GET sent in one write, or "closed, no answer". */
async function pipelined(port: number): Promise<string> {
  const sock = net.connect(port, "127.0.0.1");
  let got = "";
  sock.on("data", (d) => (got += d));
  const closed = new Promise((ok) => sock.on("close", ok));
  sock.write("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
  await Promise.race([closed, Bun.sleep(500)]);
  sock.destroy();
  const lines = got.match(/HTTP\/1\.1 \d{3}/g) ?? [];
  return lines.length ? lines.join(", ") : "closed, no answer";
}

if (process.argv[2] === "serve") {
  process.stdout.write(`${await serve(process.argv[3] as Kind)}\n`);
} else {
  const ROUNDS = Number(process.env.ROUNDS ?? 3), N = Number(process.env.N ?? 20000), CONC = 64;
  const rows = new Map<Kind, { rate: number[]; cpuUs: number[]; pipelining: string }>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of KINDS) {
      const p = Bun.spawn([process.execPath, import.meta.path, "serve", kind], { stdout: "pipe", stderr: "inherit" });
      track(p);
      const reader = p.stdout.getReader();
      const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
      const row = rows.get(kind) ?? { rate: [], cpuUs: [], pipelining: await pipelined(port) };
      await load(2000, CONC, () => fetch(`http://127.0.0.1:${port}/w`).then((r) => r.arrayBuffer()));
      const cpu0 = cpuOf(p.pid);
      const rate = await load(N, CONC, () => fetch(`http://127.0.0.1:${port}/api/v1/x`).then((r) => r.arrayBuffer()));
      row.cpuUs.push(((cpuOf(p.pid) - cpu0) * 1e6) / N);
      row.rate.push(rate);
      rows.set(kind, row);
      p.kill();
      await p.exited;
      progress(`round ${round} ${kind}: ${rate.toFixed(0)}/s, ${row.cpuUs.at(-1)!.toFixed(1)} µs of server CPU a request`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`| server | POST + GET in one write | GETs/s (median of ${ROUNDS}) | server CPU per GET |`);
  console.log("|---|---|---|---|");
  for (const [kind, r] of rows) console.log(`| ${kind} | ${r.pipelining} | ${median(r.rate).toFixed(0)} | ${median(r.cpuUs).toFixed(1)} µs |`);
  process.exit(0);
}
