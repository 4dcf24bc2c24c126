// The admission flags of `kite apiserver` (§8.1; upstream v1.21's): their table, and the options they make.
import { dirname, isAbsolute, join } from "node:path";
import { readFileSync } from "node:fs";
import { consola } from "consola";
import { UsageError, int } from "../cli/args.ts";
import { decodeYaml } from "../yaml/decode.ts";
import type { Obj } from "../registry/types.ts";
import { DEFAULT_ON, PLUGIN_NAMES } from "./plugins.ts";
import type { AdmissionOptions } from "./types.ts";
import { commaList } from "../util/commalist.ts";

export const ADMISSION_ARGS = {
  "enable-admission-plugins": { type: "string", description: `Admission plugins to enable besides the default ones (${DEFAULT_ON.join(", ")}). Comma-delimited list of: ${PLUGIN_NAMES.join(", ")}. The order plugins run in is fixed, whatever the order here` },
  "disable-admission-plugins": { type: "string", description: "Admission plugins to disable, default ones included (comma-delimited, same names)" },
  "admission-control-config-file": { type: "string", description: "AdmissionConfiguration file (apiserver.config.k8s.io/v1 or v1alpha1): per-plugin configuration, embedded or in files" },
  "admission-control": { type: "string", description: "DEPRECATED: use --enable-admission-plugins or --disable-admission-plugins. The exact list of plugins to run (the defaults are off unless named)" },
  "default-not-ready-toleration-seconds": { type: "string", default: "300", description: "Seconds a pod tolerates the not-ready:NoExecute taint, added to every pod without such a toleration (DefaultTolerationSeconds)" },
  "default-unreachable-toleration-seconds": { type: "string", default: "300", description: "Seconds a pod tolerates the unreachable:NoExecute taint, added to every pod without such a toleration (DefaultTolerationSeconds)" },
  "proxy-client-cert-file": { type: "string", description: "Client certificate the server shows to admission webhooks (and aggregated servers)" },
  "proxy-client-key-file": { type: "string", description: "Private key of --proxy-client-cert-file" },
} as const;


/** The plugins in force: defaults plus enabled minus disabled, or exactly --admission-control's; upstream's messages. */
export function pluginsInForce(a: Record<string, unknown>): string[] {
  const enable = commaList(a["enable-admission-plugins"]), disable = commaList(a["disable-admission-plugins"]);
  const legacy = a["admission-control"] === undefined ? undefined : commaList(a["admission-control"]);
  if (legacy) consola.warn("Flag --admission-control has been deprecated, Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.");
  const errors: string[] = [];
  if (legacy && (a["enable-admission-plugins"] !== undefined || a["disable-admission-plugins"] !== undefined)) {
    errors.push("admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive");
  }
  for (const n of legacy ?? []) if (!PLUGIN_NAMES.includes(n)) errors.push(`admission-control plugin "${n}" is unknown`);
  for (const n of enable) if (!PLUGIN_NAMES.includes(n)) errors.push(`enable-admission-plugins plugin "${n}" is unknown`);
  for (const n of disable) if (!PLUGIN_NAMES.includes(n)) errors.push(`disable-admission-plugins plugin "${n}" is unknown`);
  const both = enable.filter((n) => disable.includes(n));
  if (both.length) errors.push(`[${both.join(" ")}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (errors.length) throw new UsageError(errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`);
  const on = new Set(legacy ?? [...DEFAULT_ON, ...enable]);
  for (const n of disable) on.delete(n);
  return PLUGIN_NAMES.filter((n) => on.has(n));
}

const CONFIG_VERSIONS = ["apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1alpha1", "apiserver.k8s.io/v1alpha1"];

function readYaml(path: string): Obj {
  let text: string;
  try { text = readFileSync(path, "utf8"); } catch (e) {
    throw new UsageError(`failed to read plugin config: unable to read admission control configuration from "${path}" [${(e as Error).message}]`);
  }
  const doc = decodeYaml(text);
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new UsageError(`failed to read plugin config: "${path}" does not hold an object`);
  return doc as Obj;
}

/** Each plugin's configuration from an AdmissionConfiguration file: embedded, or in a file relative to it. */
export function readAdmissionConfig(path: string): Record<string, Obj> {
  const doc = readYaml(path);
  if (doc.kind !== "AdmissionConfiguration" || !CONFIG_VERSIONS.includes(doc.apiVersion)) {
    throw new UsageError(`failed to read plugin config: "${path}" is not an AdmissionConfiguration of ${CONFIG_VERSIONS.join(", ")}`);
  }
  const out: Record<string, Obj> = {};
  for (const p of (doc.plugins ?? []) as Obj[]) {
    if (typeof p?.name !== "string") throw new UsageError(`failed to read plugin config: "${path}": every plugin needs a name`);
    if (p.configuration) out[p.name] = p.configuration;
    else if (p.path) out[p.name] = readYaml(isAbsolute(p.path) ? p.path : join(dirname(path), p.path));
  }
  return out;
}

export function admissionOptions(a: Record<string, unknown>): AdmissionOptions {
  const cert = a["proxy-client-cert-file"] as string | undefined, key = a["proxy-client-key-file"] as string | undefined;
  if (!!cert !== !!key) throw new UsageError("--proxy-client-cert-file and --proxy-client-key-file must be given together");
  const file = a["admission-control-config-file"] as string | undefined;
  return {
    plugins: pluginsInForce(a),
    configs: file ? readAdmissionConfig(file) : {},
    notReadyTolerationSeconds: int("default-not-ready-toleration-seconds", String(a["default-not-ready-toleration-seconds"] ?? "300"), 0),
    unreachableTolerationSeconds: int("default-unreachable-toleration-seconds", String(a["default-unreachable-toleration-seconds"] ?? "300"), 0),
    proxyClient: cert && key ? { certFile: cert, keyFile: key } : undefined,
  };
}

/** Options with every default plugin on (servers built without flags: tests, `kite up`). */
export function defaultAdmissionOptions(): AdmissionOptions {
  return admissionOptions({});
}
