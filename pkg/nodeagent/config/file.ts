// --config: a KubeletConfiguration v1beta1 file, YAML or JSON. A value of the wrong type is refused as Go's
// decoder refuses it; an unknown field is dropped with a warning, as v1.21's lenient kubelet decoder drops it.
import { readFileSync } from "node:fs";
import { checkShape, jsonType, StrictError } from "../../util/strictshape.ts";
import { decodeYaml } from "../../yaml/decode.ts";
import { API_VERSION, FIELDS, KIND } from "./fields.ts";

export class KubeletConfigError extends Error {}

export interface KubeletConfigFile {
  config: Record<string, any>;
  /** Fields the file has that v1.21 does not know, one line each for the log. */
  warnings: string[];
}

export function decodeKubeletConfig(text: string): KubeletConfigFile {
  let obj: unknown;
  try {
    obj = decodeYaml(text);
  } catch (e) {
    throw new KubeletConfigError(`error converting YAML to JSON: ${(e as Error).message}`);
  }
  if (jsonType(obj) !== "object") throw new KubeletConfigError("couldn't get version/kind; json parse error: expected an object");
  const o = obj as Record<string, any>;
  if (!o.apiVersion || !o.kind) throw new KubeletConfigError(`Object 'Kind' is missing in '${text.trim().replace(/\s+/g, " ").slice(0, 200)}'`);
  if (o.apiVersion !== API_VERSION || o.kind !== KIND) throw new KubeletConfigError(`no kind "${o.kind}" is registered for version "${o.apiVersion}" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:40"`);
  const config: Record<string, any> = {};
  const warnings: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    const field = FIELDS[k];
    if (!field) { warnings.push(`unknown field "${k}" in ${KIND} (ignored)`); continue; }
    try {
      checkShape(v, field.shape, k);
    } catch (e) {
      if (!(e instanceof StrictError)) throw e;
      if (!e.message.startsWith("unknown field")) throw new KubeletConfigError(`json: ${e.message}`);
      warnings.push(`${e.message} in ${KIND} (ignored)`);
    }
    config[k] = v;
  }
  return { config, warnings };
}

/** The file's settings; a missing or unreadable file, or a bad one, is a KubeletConfigError naming it. */
export function readKubeletConfig(path: string): KubeletConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new KubeletConfigError(`failed to load Kubelet config file ${path}, error failed to read kubelet config file "${path}", error: open ${path}: ${code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
  }
  try {
    return decodeKubeletConfig(text);
  } catch (e) {
    if (e instanceof KubeletConfigError) throw new KubeletConfigError(`failed to load Kubelet config file ${path}, error failed to decode: ${e.message}`);
    throw e;
  }
}
