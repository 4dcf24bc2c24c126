// Runs every test suite with bun's runner and ends with the line CI reads: `N passed, N failed`.
// Suites run one directory at a time so each gets the whole machine; any failure exits non-zero.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

interface Suite { dir: string; env?: Record<string, string>; label?: string; skip?: RegExp }

/**
 * API test files whose behaviour does not depend on the store: authentication and authorization, request
 * decoding and hostile input, validation, defaulting, admission, encodings, discovery and OpenAPI, flags.
 * They run on SQLite only; the store's behaviour (CRUD, lists, watch, apply, deletion, durability, faults)
 * runs on both stores. Each file on etcd costs an etcd and a server start besides its tests.
 */
const STORE_INDEPENDENT = /^(auth-.*|feature-gates|impersonation|csr|discovery|openapi-v2|server-flags|field-validation|validation-.*|defaults|defaults-on-read|hardening-decode|hardening-large|fuzz|representations|query-params|priority|errors|podlog|audit|crd-schema|crd-definitions|crd-validation|admission-.*|runtime-config|apf|overload|serving-flags)\.test\.ts$/;

// The API suite runs twice: on the embedded SQLite store and on etcd (DESIGN.md §5).
const SUITES: Suite[] = [
  { dir: "test/unit" },
  { dir: "test/storage" },
  { dir: "test/api" },
  { dir: "test/api", env: { KITE_TEST_BACKEND: "etcd" }, label: "test/api on etcd", skip: STORE_INDEPENDENT },
  { dir: "test/client" },
  { dir: "test/scheduler" },
  { dir: "test/nodeagent" },
  { dir: "test/controllers" },
  { dir: "test/e2e" },
];
/**
 * Every suite runs the built `kite` (what users run) unless KITE_BIN names one already: the binary starts
 * in ~0.1 s where `bun cmd/main.ts` takes ~0.5 s to load the sources, and the suites start kite hundreds of
 * times. A single test file run by hand (`bun test FILE`) runs the sources.
 */
if (!process.env.KITE_BIN) {
  const out = join(mkdtempSync(join(tmpdir(), "kite-run-")), "kite");
  console.log(`building ${out}`);
  // package.json's build script, with its output put elsewhere (dist/ may hold the developer's own build)
  const script: string[] = (await Bun.file("package.json").json()).scripts.build.split(/\s+/);
  script[script.indexOf("--outfile") + 1] = out;
  const build = Bun.spawnSync([process.execPath, ...script.slice(1)], { stdout: "inherit", stderr: "inherit" });
  if (build.exitCode !== 0) { console.log("\n0 passed, 1 failed (the build)"); process.exit(1); }
  process.env.KITE_BIN = out;
  process.on("exit", () => rmSync(dirname(out), { recursive: true, force: true }));
}

const only = process.argv.slice(2);
const suites: Suite[] = only.length ? only.map((dir) => ({ dir })) : SUITES;
let passed = 0, failed = 0, skipped = 0;
const failures = new Set<string>(); // repeated at the end: CI keeps only the output's tail

const hasTests = (dir: string) => {
  try { return readdirSync(dir).some((f) => f.endsWith(".test.ts") || statSync(`${dir}/${f}`).isDirectory()); } catch { return false; }
};

for (const suite of suites) {
  if (!hasTests(suite.dir)) continue;
  console.log(`\n=== ${suite.label ?? suite.dir}`);
  const targets = suite.skip
    ? readdirSync(suite.dir).filter((f) => f.endsWith(".test.ts") && !suite.skip!.test(f)).map((f) => `./${suite.dir}/${f}`)
    : [`./${suite.dir}`];
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "120000", ...targets], { stdout: "inherit", stderr: "pipe", env: { ...process.env, ...suite.env } });
  let tail = "";
  const reader = proc.stderr.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const text = new TextDecoder().decode(value);
    process.stderr.write(text);
    const lines = (tail.slice(tail.lastIndexOf("\n") + 1) + text).split("\n").slice(0, -1);
    for (const line of lines) if (line.startsWith("(fail)")) failures.add(`${suite.label ?? suite.dir}: ${line}`);
    tail = (tail + text).slice(-4000);
  }
  const code = await proc.exited;
  const num = (re: RegExp) => Number(re.exec(tail)?.[1] ?? 0);
  const p = num(/^\s*(\d+) pass/m), f = num(/^\s*(\d+) fail/m), s = num(/^\s*(\d+) skip/m);
  passed += p; failed += f; skipped += s;
  if (code !== 0 && f === 0) failed += 1; // a crashed runner counts as a failure
}

if (failures.size) console.log(`\nfailed:\n${[...failures].join("\n")}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
