// The noisy user of overload.bench.ts in a process of its own: CLIENTS connections LISTing in a closed
// loop (a 429 retried after its Retry-After) until its stdin closes, then the status counts as JSON on
// stdout. Its own process, as a real noisy client is: the timed quiet user's event loop is not the one
// decoding 400 connections' responses.
// Run by overload.bench.ts: PORT=… CA=<ca file> CLIENTS=… TOKEN=… PATH_=… bun test/bench/overload-noise.ts
import { readFileSync } from "node:fs";
import { LeanHttps } from "./load.ts";

const env = (k: string) => process.env[k] ?? (() => { throw new Error(`${k} is not set`); })();
const noisy = await LeanHttps.open(Number(env("PORT")), readFileSync(env("CA"), "utf8"), Number(env("CLIENTS")));
const codes: Record<number, number> = {};
let stop = false;
const auth = `Authorization: Bearer ${env("TOKEN")}\r\n`;
const clients = Promise.all(Array.from({ length: Number(env("CLIENTS")) }, async () => {
  while (!stop) {
    const r = await noisy.request("GET", env("PATH_"), "", auth);
    codes[r.status] = (codes[r.status] ?? 0) + 1;
    if (r.status === 429) await Bun.sleep(1000);
  }
}));
process.stdout.write("ready\n");
for await (const _ of process.stdin) { /* runs until the bench closes stdin */ }
stop = true;
await clients;
process.stdout.write(`${JSON.stringify(codes)}\n`);
noisy.close();
process.exit(0);
