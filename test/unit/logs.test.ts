// The logging flags: klog's text header and component-base's JSON lines, klog's routing to stderr and
// files, and upstream's reasons for bad values.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../pkg/cli/args.ts";
import { type Entry, jsonLine, klogHeader, textLine } from "../../pkg/logs/format.ts";
import { LOGGING_ARGS, parseLogging } from "../../pkg/logs/options.ts";
import { Sink } from "../../pkg/logs/sink.ts";
import { tempDir } from "../helpers/processes.ts";

const defaults = Object.fromEntries(Object.entries(LOGGING_ARGS).flatMap(([k, d]) => ("default" in d ? [[k, d.default]] : [])));
const options = (a: Record<string, unknown> = {}, raw: string[] = []) => parseLogging({ ...defaults, ...a }, raw);
const entry = (e: Partial<Entry> = {}): Entry => ({ severity: 0, v: 0, source: "apiserver", msg: "hello", time: new Date(2026, 10, 24, 10, 49, 28, 123), ...e });

test("the text header is klog's: severity, mmdd hh:mm:ss.uuuuuu, the pid padded to 7, the source", () => {
  expect(klogHeader(entry({ severity: 1 }), 4242)).toMatch(/^W1124 10:49:28\.123\d{3}    4242 apiserver\] $/);
  expect(textLine(entry({ severity: 2, msg: "boom" }), 7, false)).toMatch(/^E1124 10:49:28\.123\d{3}       7 apiserver\] boom\n$/);
  expect(textLine(entry(), 7, true)).toBe("hello\n");
});

test("a JSON line has upstream's keys: ts in epoch milliseconds, caller, msg, and v on info lines only", () => {
  const info = JSON.parse(jsonLine(entry({ v: 2 })));
  expect(Object.keys(info)).toEqual(["ts", "caller", "msg", "v"]);
  expect(Math.floor(info.ts)).toBe(entry().time.getTime());
  expect(info).toMatchObject({ caller: "apiserver", msg: "hello", v: 2 });
  expect(JSON.parse(jsonLine(entry({ severity: 2 })))).not.toHaveProperty("v");
});

test("--v and --vmodule decide which verbosities are written", () => {
  const sink = new Sink(options({ v: "2", vmodule: "sched*=5" }), "x");
  expect(sink.enabled(2, "apiserver")).toBe(true);
  expect(sink.enabled(4, "apiserver")).toBe(false);
  expect(sink.enabled(4, "scheduler")).toBe(true);
});

test("--log-file gets every line with its file header; --log-dir one file per severity, lower ones included unless --one-output", () => {
  const dir = tempDir("kite-logs-");
  const file = join(dir, "one.log");
  new Sink(options({ logtostderr: false, "log-file": file, stderrthreshold: "FATAL" }, []), "apiserver").write(entry({ severity: 1, msg: "careful" }));
  const text = readFileSync(file, "utf8");
  expect(text).toStartWith("Log file created at: ");
  expect(text).toContain("Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n");
  expect(text).toMatch(/\nW1124 10:49:28\.\d{6} +\d+ apiserver\] careful\n$/);

  const sink = new Sink(options({ logtostderr: false, "log-dir": dir, "skip-log-headers": true, stderrthreshold: "3" }), "sched");
  sink.write(entry({ severity: 2, msg: "bad" }));
  sink.write(entry({ msg: "fine" }));
  expect(readFileSync(join(dir, "sched.INFO"), "utf8")).toMatch(/^E.*\] bad\nI.*\] fine\n$/);
  expect(readFileSync(join(dir, "sched.ERROR"), "utf8")).toMatch(/^E.*\] bad\n$/);
  const one = new Sink(options({ logtostderr: false, "log-dir": join(dir), "one-output": true, "skip-log-headers": true }), "solo");
  one.write(entry({ severity: 1, msg: "only warning" }));
  expect(readFileSync(join(dir, "solo.WARNING"), "utf8")).toContain("only warning");
  expect(() => readFileSync(join(dir, "solo.INFO"))).toThrow();
});

test("bad values are refused in upstream's words", () => {
  const bad = (a: Record<string, unknown>, raw: string[], why: string) => expect(() => options(a, raw)).toThrow(new UsageError(why));
  bad({ v: "x" }, [], 'invalid argument "x" for "--v" flag: strconv.ParseInt: parsing "x": invalid syntax');
  bad({ vmodule: "a=" }, [], 'invalid argument "a=" for "--vmodule" flag: syntax error: expect comma-separated list of filename=N');
  bad({ "logging-format": "xml" }, [], "unsupported log format: xml");
  bad({ "logging-format": "json", "log-dir": "/tmp" }, ["--logging-format=json", "--log-dir=/tmp"], "non-default logging format doesn't honor flag: log_dir");
  bad({ "log-backtrace-at": "main:12" }, [], 'invalid argument "main:12" for "--log-backtrace-at" flag: syntax error: expect file.go:234');
  bad({ stderrthreshold: "LOUD" }, [], 'invalid argument "LOUD" for "--stderrthreshold" flag: strconv.ParseInt: parsing "LOUD": invalid syntax');
  expect(options({ stderrthreshold: "warning" }).stderrThreshold).toBe(1);
});
