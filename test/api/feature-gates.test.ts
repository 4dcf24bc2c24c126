// The options every program takes, seen from outside: gates turned off change what clients get, a bad
// gate stops the program with one line, logs come out as JSON or as klog text in a file, and /metrics
// (parsed by a Prometheus text parser) obeys --disabled-metrics and --allow-metric-labels.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import parse from "parse-prometheus-text-format";
import { until } from "../helpers/component.ts";
import { startControllerManager } from "../helpers/controllers.ts";
import { tempDir } from "../helpers/processes.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let stderr = "";
beforeAll(async () => {
  s = await startServer([
    "--feature-gates=APIListChunking=false", "--feature-gates", "WarningHeaders=false,StreamingProxyRedirects=false",
    "--logging-format=json", "--v=2",
    "--disabled-metrics=apiserver_storage_objects", "--allow-metric-labels", "apiserver_request_total,verb='GET'",
  ]);
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of s.proc.stderr as ReadableStream<Uint8Array>) stderr += decoder.decode(chunk, { stream: true });
  })();
});
afterAll(() => s?.stop());

test("APIListChunking=false: limit is ignored and the whole list comes back without a continue token", async () => {
  const ns = "/api/v1/namespaces/default/configmaps";
  for (const name of ["a", "b", "c"]) expect((await s.call("POST", ns, { metadata: { name, labels: { chunk: "off" } } })).status).toBe(201);
  const r = await s.call("GET", `${ns}?limit=1&labelSelector=chunk%3Doff`);
  expect(r.body.items.map((x: any) => x.metadata.name)).toEqual(["a", "b", "c"]);
  expect(r.body.metadata.continue).toBeUndefined();
});

test("WarningHeaders=false: a deprecated kind is served without a Warning header", async () => {
  const r = await s.call("GET", "/api/v1/componentstatuses");
  expect(r.status).toBe(200);
  expect(r.headers.get("warning")).toBeNull();
});

test("--logging-format=json: every log line is a JSON object with upstream's keys; the deprecated gate warned", async () => {
  await until(async () => (stderr.includes("serving on") ? true : undefined), "the serving line in the log");
  const lines = stderr.trim().split("\n").map((l) => JSON.parse(l));
  for (const l of lines) {
    expect(Object.keys(l)).toEqual(["ts", "caller", "msg", "v"]);
    expect([typeof l.ts, l.caller, typeof l.msg, l.v]).toEqual(["number", "apiserver", "string", 0]);
  }
  expect(lines.map((l) => l.msg)).toContain("Setting deprecated feature gate StreamingProxyRedirects=false. It will be removed in a future release.");
});

test("/metrics parses as Prometheus text, without the disabled family and with disallowed verbs as \"unexpected\"", async () => {
  expect((await s.call("GET", "/api/v1/namespaces/default")).status).toBe(200);
  const r = await s.req("/metrics", { headers: { authorization: "Bearer test" } });
  expect(r.status).toBe(200);
  const families = parse(await r.text());
  const names = families.map((f) => f.name);
  expect(names).toContain("apiserver_request_duration_seconds");
  expect(names).not.toContain("apiserver_storage_objects");
  const verbs = new Set(families.find((f) => f.name === "apiserver_request_total")!.metrics.map((m) => m.labels!.verb));
  expect([...verbs].sort()).toEqual(["GET", "unexpected"]);
});

test("a bad, unknown or locked gate exits 2 with upstream's reason in one line", async () => {
  for (const [gate, reason] of [
    ["NoSuchGate=true", "unrecognized feature gate: NoSuchGate"],
    ["WatchBookmark=false", "cannot set feature gate WatchBookmark to false, feature is locked to true"],
  ]) {
    const p = Bun.spawn([...KITE, "scheduler", `--feature-gates=${gate}`], { stdout: "pipe", stderr: "pipe" });
    const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    expect({ code, err }).toEqual({ code: 2, err: `Error: invalid argument "${gate}" for "--feature-gates" flag: ${reason}\n` });
  }
});

test("--logtostderr=false --log-file: the controller manager's lines go to the file in klog's format, not to stderr", async () => {
  const file = join(tempDir("kite-log-"), "cm.log");
  const m = await startControllerManager(s, "serviceaccount-token", ["--logtostderr=false", `--log-file=${file}`, "--v=2", "--feature-gates=AllAlpha=true"]);
  const text = await until(async () => { try { const t = readFileSync(file, "utf8"); return t.includes("started no controllers") ? t : undefined; } catch { return undefined; } }, "the log file");
  expect(text).toStartWith("Log file created at: ");
  expect(text).toMatch(/\nW\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ controller-manager\] "serviceaccount-token" is disabled because there is no private key\n/);
  expect(text).toMatch(/\nI\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ controller-manager\] started no controllers\n/);
  expect(m.output()).not.toContain("started no controllers");
  expect(await m.stop()).toBe(0);
});
