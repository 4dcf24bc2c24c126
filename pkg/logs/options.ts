// The logging flags every program takes: klog v2's (v1.21) and component-base's --logging-format, with
// their defaults, words and checks. parseLogging turns them into LogOptions (a bad value is a UsageError).
import { UsageError, bool, duration, givenFlags } from "../cli/args.ts";

export const SEVERITIES = ["INFO", "WARNING", "ERROR", "FATAL"] as const;

/** The klog flags that the json format does not honour (upstream refuses them with --logging-format=json). */
const TEXT_ONLY = ["add-dir-header", "alsologtostderr", "log-backtrace-at", "log-dir", "log-file", "log-file-max-size", "logtostderr", "one-output", "skip-headers", "skip-log-headers", "stderrthreshold", "vmodule", "log-flush-frequency"];

export const LOGGING_ARGS = {
  v: { type: "string", default: "0", description: "number for the log level verbosity (Kite's info lines are level 0, its debug lines level 4)" },
  vmodule: { type: "string", description: "comma-separated list of pattern=N settings for file-filtered logging (in Kite a pattern, with * and ?, matches the program's name in the log header: apiserver, scheduler, node-agent, controller-manager, up)" },
  "logging-format": { type: "string", default: "text", description: `Sets the log format. Permitted formats: "json", "text". Non-default formats don't honor these flags: --${TEXT_ONLY.join(", --")}. Non-default choices are currently alpha and subject to change without warning.` },
  "log-dir": { type: "string", description: "If non-empty, write log files in this directory (one per severity: PROGRAM.HOST.USER.log.SEVERITY.DATE-TIME.PID, with a PROGRAM.SEVERITY link to the newest)" },
  "log-file": { type: "string", description: "If non-empty, use this log file" },
  "log-file-max-size": { type: "string", default: "1800", description: "Defines the maximum size a log file can grow to. Unit is megabytes. If the value is 0, the maximum file size is unlimited." },
  "log-flush-frequency": { type: "string", default: "5s", description: "Maximum number of seconds between log flushes (Kite writes each line as it is logged, so none waits for a flush)" },
  logtostderr: { type: "boolean", default: true, description: "log to standard error instead of files" },
  alsologtostderr: { type: "boolean", default: false, description: "log to standard error as well as files" },
  stderrthreshold: { type: "string", default: "2", description: "logs at or above this threshold go to stderr (INFO or 0, WARNING or 1, ERROR or 2, FATAL or 3)" },
  "one-output": { type: "boolean", default: false, description: "If true, only write logs to their native severity level (vs also writing to each lower severity level)" },
  "skip-headers": { type: "boolean", default: false, description: "If true, avoid header prefixes in the log messages" },
  "skip-log-headers": { type: "boolean", default: false, description: "If true, avoid headers when opening log files" },
  "add-dir-header": { type: "boolean", default: false, description: "If true, adds the file directory to the header of the log messages (in Kite: kite/PROGRAM)" },
  "log-backtrace-at": { type: "string", default: ":0", description: "when logging hits line file:N, emit a stack trace (accepted and checked; Kite's log lines have no Go file and line, so none matches)" },
} as const;

export interface LogOptions {
  format: "text" | "json";
  verbosity: number;
  vmodule: { pattern: RegExp; level: number }[];
  logDir: string;
  logFile: string;
  /** bytes; 0 is unlimited */
  maxSize: number;
  toStderr: boolean;
  alsoToStderr: boolean;
  /** index into SEVERITIES */
  stderrThreshold: number;
  oneOutput: boolean;
  skipHeaders: boolean;
  skipLogHeaders: boolean;
  addDirHeader: boolean;
}

const invalid = (flag: string, v: string, why: string) => new UsageError(`invalid argument "${v}" for "--${flag}" flag: ${why}`);

/** Go's strconv.ParseInt(v, 10, 32), as klog parses levels. */
function int32(flag: string, v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw invalid(flag, v, `strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (n < -(2 ** 31) || n >= 2 ** 31) throw invalid(flag, v, `strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

const VMODULE_SYNTAX = "syntax error: expect comma-separated list of filename=N";

function vmodule(v: string): LogOptions["vmodule"] {
  const out: LogOptions["vmodule"] = [];
  for (const pat of v.split(",")) {
    if (!pat) continue;
    const parts = pat.split("=");
    if (parts.length !== 2 || !parts[0] || !parts[1] || !/^[+-]?\d+$/.test(parts[1])) throw invalid("vmodule", v, VMODULE_SYNTAX);
    const glob = parts[0].replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    out.push({ pattern: new RegExp(`^${glob}$`), level: Number(parts[1]) });
  }
  return out;
}

function backtraceAt(v: string) {
  if (v === "" || v === ":0") return;
  const fields = v.split(":");
  if (fields.length !== 2 || !fields[0].includes(".") || !/^\d+$/.test(fields[1])) throw invalid("log-backtrace-at", v, "syntax error: expect file.go:234");
  if (Number(fields[1]) <= 0) throw invalid("log-backtrace-at", v, "negative or zero value for level");
}

function severity(v: string): number {
  const named = SEVERITIES.indexOf(v.toUpperCase() as (typeof SEVERITIES)[number]);
  return named >= 0 ? named : int32("stderrthreshold", v);
}

export function parseLogging(a: Record<string, any>, rawArgs: string[]): LogOptions {
  const format = String(a["logging-format"]);
  if (format !== "text" && format !== "json") throw new UsageError(`unsupported log format: ${format}`);
  if (format === "json") {
    const given = givenFlags(rawArgs);
    const unhonoured = TEXT_ONLY.find((f) => given.has(f));
    if (unhonoured) throw new UsageError(`non-default logging format doesn't honor flag: ${unhonoured.replace(/-/g, "_")}`);
  }
  backtraceAt(String(a["log-backtrace-at"]));
  duration("log-flush-frequency", String(a["log-flush-frequency"]));
  const maxMB = String(a["log-file-max-size"]);
  if (!/^\d+$/.test(maxMB)) throw invalid("log-file-max-size", maxMB, `strconv.ParseUint: parsing ${JSON.stringify(maxMB)}: invalid syntax`);
  return {
    format,
    // `-v=2` reaches us as "=2" (citty keeps the "=" of a short flag)
    verbosity: int32("v", String(a.v).replace(/^=/, "")),
    vmodule: vmodule(String(a.vmodule ?? "")),
    logDir: String(a["log-dir"] ?? ""),
    logFile: String(a["log-file"] ?? ""),
    maxSize: Number(maxMB) * 1024 * 1024,
    toStderr: bool("logtostderr", a.logtostderr),
    alsoToStderr: bool("alsologtostderr", a.alsologtostderr),
    stderrThreshold: severity(String(a.stderrthreshold)),
    oneOutput: bool("one-output", a["one-output"]),
    skipHeaders: bool("skip-headers", a["skip-headers"]),
    skipLogHeaders: bool("skip-log-headers", a["skip-log-headers"]),
    addDirHeader: bool("add-dir-header", a["add-dir-header"]),
  };
}
