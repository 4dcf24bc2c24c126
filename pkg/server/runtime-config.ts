// --runtime-config: which group versions (and resources) the server serves, as upstream reads the flag.
// Comma-separated key[=value] pairs, a missing value meaning true; `api/all`, `api/ga`, `api/beta` and
// `api/alpha` address every version of that level, `group/version` one version (`api/v1`: the core
// group), `group/version/resource` one resource, each more specific key winning over the wider ones.
// Alpha versions are off unless enabled. Turning a version off hides it (404, gone from discovery and
// OpenAPI); its objects stay stored and reachable through the other versions.
import type { ResourceDef } from "../registry/types.ts";

const LEVELS: Record<string, (version: string) => boolean> = {
  "api/all": () => true,
  "api/ga": (v) => /^v\d+$/.test(v),
  "api/beta": (v) => /^v\d+beta\d+$/.test(v),
  "api/alpha": (v) => /^v\d+alpha\d+$/.test(v),
};

/** Which defs the flag leaves on. */
export type Enabled = (def: ResourceDef) => boolean;

/** Go's strconv.ParseBool. */
function parseBool(key: string, value: string): boolean {
  if (value === "") return true;
  if (["1", "t", "T", "true", "TRUE", "True"].includes(value)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(value)) return false;
  throw new Error(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** The flag's pairs, as upstream's ConfigurationMap reads them (a later key wins). */
function pairs(flag: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const item of flag.split(",")) {
    if (!item.trim()) continue;
    const eq = item.indexOf("=");
    m.set((eq < 0 ? item : item.slice(0, eq)).trim(), eq < 0 ? "" : item.slice(eq + 1).trim());
  }
  return m;
}

/** "api/v1" names the core group. */
const gvKey = (group: string, version: string) => (group === "api" ? `/${version}` : `${group}/${version}`);

/** Parses the flag against the served `defs`; throws upstream's message for a bad key or value. */
export function parseRuntimeConfig(flag: string, defs: ResourceDef[]): Enabled {
  const overrides = pairs(flag);
  const known = new Set(defs.map((d) => `${d.group}/${d.version}`));
  const groups = new Set(defs.map((d) => d.group));
  const levels: Array<[(v: string) => boolean, boolean]> = [];
  for (const [key, match] of Object.entries(LEVELS)) {
    const value = overrides.get(key);
    if (value === undefined) continue;
    if (value !== "true" && value !== "false") throw new Error(`invalid value ${key}=${value}`);
    levels.push([match, value === "true"]);
  }
  const versions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  for (const [key, value] of overrides) {
    if (key in LEVELS) continue;
    const tokens = key.split("/");
    if (tokens.length < 2 || tokens.length > 3 || !tokens[1]) throw new Error(`runtime-config invalid key ${key}`);
    const gv = gvKey(tokens[0], tokens[1]);
    // a group this server does not have is passed over, as upstream does
    if (!groups.has(gv.slice(0, gv.indexOf("/")))) continue;
    if (!known.has(gv)) throw new Error(`group version ${key.split("/").slice(0, 2).join("/")} that has not been registered`);
    const enabled = parseBool(key, value);
    if (tokens.length === 2) versions.set(gv, enabled);
    else {
      if (tokens[2].toLowerCase() !== tokens[2]) throw new Error(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(tokens[2])}`);
      resources.set(`${gv}/${tokens[2]}`, enabled);
    }
  }
  return (d) => {
    // the flag addresses built-in group versions only: a custom resource's definition says what it serves
    if (d.custom) return true;
    const gv = `${d.group}/${d.version}`;
    const resource = resources.get(`${gv}/${d.plural}`);
    if (resource !== undefined) return resource;
    const version = versions.get(gv);
    if (version !== undefined) return version;
    let on = !LEVELS["api/alpha"](d.version);
    for (const [match, value] of levels) if (match(d.version)) on = value;
    return on;
  };
}
