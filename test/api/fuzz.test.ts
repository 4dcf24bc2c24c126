// Hostile input of every class (test/helpers/fuzz.ts) at a live server for a bounded time: no answer
// ≥ 500 but 503/504, no crash, /readyz within 1 s throughout, RSS bounded, protobuf watches and reads
// unbroken, and the objects made before the fuzzing unchanged byte for byte. Unlike errors.test.ts,
// which pins the exact answer to each malformed request, this asks only what must hold for any input.
// Replay a run with FUZZ_SEED=<seed printed>; FUZZ_SECONDS sets the time per class, FUZZ_CONCURRENCY the
// inputs in flight (1 pins a stall on the one input that caused it).
import { afterAll, beforeAll, describe, test } from "bun:test";
import { CLASSES } from "../helpers/fuzz.ts";
import { FuzzHarness, formatReport } from "../helpers/fuzzrun.ts";
import { BACKEND } from "../helpers/server.ts";

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 2);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const h = new FuzzHarness({ rssLimitMb: 1536, readyzLimitMs: 1_000, concurrency: CONCURRENCY, requestTimeoutMs: 10_000, log: console.log, serverPerClass: true });

beforeAll(async () => {
  console.log(`fuzz on ${BACKEND}: FUZZ_SEED=${SEED}, ${SECONDS} s per class`);
  await h.start();
}, 60_000);
afterAll(async () => { await h.close(); }, 30_000);

describe("fuzz", () => {
  for (const cls of CLASSES) {
    // A class may run past its time (every variant is sent once) up to 3×, then settles and checks.
    test(`${cls.name}: ${cls.about}`, async () => {
      const rep = await h.run(cls, { ms: SECONDS * 1000, seed: SEED, round: 0 });
      const text = formatReport(rep);
      console.log(text.split("\n")[0]);
      if (rep.failures.length || rep.problems.length) throw new Error(text);
    }, Math.max(3 * SECONDS * 1000, SECONDS * 1000 + 30_000) + 120_000);
  }
});
