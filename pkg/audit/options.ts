// The --audit-* flags of kite apiserver (upstream's names and defaults), parsed into AuditOptions, and the
// Auditor they build at start-up.
import type client from "prom-client";
import type { RequestInfo } from "../api/requestinfo.ts";
import { UsageError, bool, duration, int, oneOf } from "../cli/args.ts";
import { Auditor } from "./auditor.ts";
import { LogBackend, type LogFileOptions } from "./logfile.ts";
import { AuditMetrics } from "./metrics.ts";
import { loadPolicy } from "./policy.ts";
import { type Backend, Sink, type SinkOptions } from "./sink.ts";
import { WebhookBackend } from "./webhook.ts";

const MODES = ["batch", "blocking", "blocking-strict"];
const VERSIONS = ["audit.k8s.io/v1", "audit.k8s.io/v1beta1", "audit.platform.io/v1"];

type Flag = { type: "string" | "boolean"; default?: string | boolean; description: string };

/** The mode, batch, throttle, truncate and version flags each backend has, with that backend's defaults. */
function commonFlags(b: "log" | "webhook", d: { mode: string; maxSize: string; maxWait: string; throttle: boolean; qps: string; burst: string }): Record<string, Flag> {
  const p = `audit-${b}`;
  return {
    [`${p}-mode`]: { type: "string", default: d.mode, description: `Strategy for sending audit events: blocking (the request waits for the ${b === "log" ? "write" : "call"}), blocking-strict (and fails when the RequestReceived stage cannot be recorded), batch (buffered, asynchronous)` },
    [`${p}-batch-buffer-size`]: { type: "string", default: "10000", description: "The size of the buffer to store events before batching and writing (batch mode); events past it are dropped" },
    [`${p}-batch-max-size`]: { type: "string", default: d.maxSize, description: "The maximum size of a batch (batch mode)" },
    [`${p}-batch-max-wait`]: { type: "string", default: d.maxWait, description: "The amount of time to wait before force writing the batch that hadn't reached the max size (batch mode)" },
    [`${p}-batch-throttle-enable`]: { type: "boolean", default: d.throttle, description: "Whether batching throttling is enabled (batch mode)" },
    [`${p}-batch-throttle-qps`]: { type: "string", default: d.qps, description: "Maximum average number of batches per second (batch mode, throttling enabled)" },
    [`${p}-batch-throttle-burst`]: { type: "string", default: d.burst, description: "Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before (batch mode, throttling enabled)" },
    [`${p}-truncate-enabled`]: { type: "boolean", default: false, description: "Whether event and batch truncating is enabled" },
    [`${p}-truncate-max-batch-size`]: { type: "string", default: "10485760", description: "Maximum size in bytes of the batch sent to the backend; larger batches are split" },
    [`${p}-truncate-max-event-size`]: { type: "string", default: "102400", description: "Maximum size in bytes of an event: larger events lose their request and response objects, and are dropped if still too large" },
    [`${p}-version`]: { type: "string", default: "audit.k8s.io/v1", description: `API group and version of the events ${b === "log" ? "written" : "sent"}: audit.k8s.io/v1 (default, what existing tooling reads), audit.k8s.io/v1beta1, or audit.platform.io/v1 (the same Event under the platform's group)` },
  };
}

export const AUDIT_ARGS = {
  "audit-policy-file": { type: "string", description: "Path to the file that defines the audit policy configuration (audit.k8s.io/v1 Policy); without it nothing is audited" },
  "audit-log-path": { type: "string", description: "If set, all requests coming to the apiserver will be logged to this file. '-' means standard out" },
  "audit-log-format": { type: "string", default: "json", description: "Format of saved audits: legacy (one line of text per event) or json (one JSON object per line)" },
  "audit-log-maxage": { type: "string", default: "0", description: "The maximum number of days to retain old audit log files based on the timestamp encoded in their filename (0: no limit)" },
  "audit-log-maxbackup": { type: "string", default: "0", description: "The maximum number of old audit log files to retain (0: no limit)" },
  "audit-log-maxsize": { type: "string", default: "0", description: "The maximum size in megabytes of the audit log file before it gets rotated (0: 100)" },
  "audit-log-compress": { type: "boolean", default: false, description: "If set, the rotated log files will be compressed using gzip" },
  ...commonFlags("log", { mode: "blocking", maxSize: "1", maxWait: "0s", throttle: false, qps: "0", burst: "0" }),
  "audit-webhook-config-file": { type: "string", description: "Path to a kubeconfig formatted file that defines the audit webhook configuration" },
  "audit-webhook-initial-backoff": { type: "string", default: "10s", description: "The amount of time to wait before retrying the first failed request" },
  ...commonFlags("webhook", { mode: "batch", maxSize: "400", maxWait: "30s", throttle: true, qps: "10", burst: "15" }),
} as const satisfies Record<string, Flag>;

export interface AuditOptions {
  policyFile: string;
  log?: { file: Omit<LogFileOptions, "version">; version: string; sink: SinkOptions };
  webhook?: { configFile: string; initialBackoffMs: number; version: string; sink: SinkOptions };
}

type Args = Record<string, any>;

function sinkOptions(a: Args, b: "log" | "webhook"): { version: string; sink: SinkOptions } {
  const p = `audit-${b}`;
  const mode = a[`${p}-mode`];
  if (!MODES.includes(mode)) throw new UsageError(`invalid audit ${b} mode ${mode}, allowed modes are "${MODES.join(",")}"`);
  const num = (f: string, min = 0) => int(`${p}-${f}`, String(a[`${p}-${f}`]), min);
  const qps = Number(a[`${p}-batch-throttle-qps`]);
  if (!Number.isFinite(qps) || qps < 0) throw new UsageError(`invalid argument "${a[`${p}-batch-throttle-qps`]}" for "--${p}-batch-throttle-qps" flag: must be a number >= 0`);
  const throttled = bool(`${p}-batch-throttle-enable`, a[`${p}-batch-throttle-enable`]);
  return {
    version: oneOf(`${p}-version`, a[`${p}-version`], VERSIONS),
    sink: {
      mode,
      batch: {
        bufferSize: num("batch-buffer-size", 1), maxSize: num("batch-max-size", 1), maxWaitMs: duration(`${p}-batch-max-wait`, a[`${p}-batch-max-wait`]),
        throttle: throttled ? { qps, burst: num("batch-throttle-burst") } : undefined,
      },
      truncate: bool(`${p}-truncate-enabled`, a[`${p}-truncate-enabled`]) ? { maxBatchBytes: num("truncate-max-batch-size", 1), maxEventBytes: num("truncate-max-event-size", 1) } : undefined,
    },
  };
}

/** The audit flags, checked (a bad value exits 2); undefined without --audit-policy-file. */
export function auditOptions(a: Args): AuditOptions | undefined {
  const policyFile: string | undefined = a["audit-policy-file"] || undefined;
  const format = a["audit-log-format"];
  if (format !== "json" && format !== "legacy") throw new UsageError(`invalid audit log format ${format}, allowed formats are "json,legacy"`);
  const log = a["audit-log-path"] ? {
    file: {
      path: String(a["audit-log-path"]), format: format as "json" | "legacy", compress: bool("audit-log-compress", a["audit-log-compress"]),
      maxSizeMB: int("audit-log-maxsize", String(a["audit-log-maxsize"]), 0), maxBackups: int("audit-log-maxbackup", String(a["audit-log-maxbackup"]), 0), maxAgeDays: int("audit-log-maxage", String(a["audit-log-maxage"]), 0),
    },
    ...sinkOptions(a, "log"),
  } : undefined;
  const webhook = a["audit-webhook-config-file"] ? {
    configFile: String(a["audit-webhook-config-file"]), initialBackoffMs: duration("audit-webhook-initial-backoff", a["audit-webhook-initial-backoff"]),
    ...sinkOptions(a, "webhook"),
  } : undefined;
  return policyFile ? { policyFile, log, webhook } : undefined;
}

/** Reads the policy and opens the backends (a failure throws one line naming the file). */
export function buildAuditor(o: AuditOptions, registry: client.Registry, deprecated: (info: RequestInfo) => boolean): Auditor {
  const policy = loadPolicy(o.policyFile);
  const metrics = new AuditMetrics(registry);
  const sinks: Sink[] = [];
  const add = (backend: Backend, sink: SinkOptions) => sinks.push(new Sink(backend, sink, metrics));
  if (o.log) {
    let backend: LogBackend;
    try { backend = new LogBackend({ ...o.log.file, version: o.log.version, coalesce: o.log.sink.mode !== "blocking-strict" }); } catch (e) { throw new Error(`--audit-log-path ${o.log.file.path}: ${(e as Error).message}`); }
    add(backend, o.log.sink);
  }
  if (o.webhook) {
    let backend: WebhookBackend;
    try { backend = new WebhookBackend(o.webhook.configFile, o.webhook.version, o.webhook.initialBackoffMs); } catch (e) { throw new Error(`--audit-webhook-config-file ${o.webhook.configFile}: ${(e as Error).message}`); }
    add(backend, o.webhook.sink);
  }
  return new Auditor({ policy, sinks, metrics, deprecated });
}
