// The configuration file: --config reads one (strictly, then defaults it), --write-config-to writes the
// effective configuration as upstream does: YAML with every map's keys in order.
import { readFileSync, writeFileSync } from "node:fs";
import { emitYaml } from "../../yaml/emit.ts";
import { ConfigError, decodeConfig } from "./decode.ts";
import type { KubeSchedulerConfiguration } from "./types.ts";

export { ConfigError };

/** The file as written (decoded, before defaulting); a file that cannot be read is a plain Error. */
export function readConfigFile(file: string): Record<string, any> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`open ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
  }
  try {
    return decodeConfig(text);
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(`failed to decode ${file}: ${e.message}`);
    throw e;
  }
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
  return v;
}

function encodeConfig(c: KubeSchedulerConfiguration): string {
  return emitYaml(sorted(c));
}

export function writeConfigFile(file: string, c: KubeSchedulerConfiguration) {
  writeFileSync(file, encodeConfig(c));
}
