// Discovery: what resources the server has, resolved from the names users type (plural, singular, short
// name, kind, `name.group`, `name.version.group`, categories such as `all`). The aggregated documents
// (apidiscovery.k8s.io v2) are asked for first, the legacy per-group documents are the fallback. The result
// is cached on disk per server (like kubectl's ~/.kube/cache/discovery) and refreshed when a name is unknown.
import { CliError } from "./errors.ts";
import type { Transport } from "./transport.ts";

export interface ApiResource {
  group: string;
  version: string;
  /** The plural name used in URLs. */
  resource: string;
  kind: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  verbs: string[];
  /**
   * The resource's preferred version: the first, in the group's priority order, that serves it (as
   * upstream's ServerPreferredResources: a kind served only at a beta, PodSecurityPolicy, is preferred there).
   */
  preferred: boolean;
}

export const apiVersionOf = (r: { group: string; version: string }) => (r.group ? `${r.group}/${r.version}` : r.version);
/** `deployment.apps`, `pod`: how kubectl names a type in `kind/name` and `kind "name" deleted`. */
export const kindName = (r: { kind: string; group: string }) => (r.group ? `${r.kind.toLowerCase()}.${r.group}` : r.kind.toLowerCase());
/** `deployments.apps`, `pods`: how the server names a type in messages. */
export const qualifiedResource = (r: { resource: string; group: string }) => (r.group ? `${r.resource}.${r.group}` : r.resource);

const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
/** kubectl keeps discovery for 6 hours; an unknown name refreshes it at once. */
const TTL_MS = 6 * 60 * 60 * 1000;

export class DiscoveryClient {
  private resources?: ApiResource[];
  private fetched = false;
  readonly cacheFile: string;

  constructor(private readonly t: Transport, cacheDir: string) {
    const host = new URL(t.config.server).host.replace(/[^A-Za-z0-9.-]/g, "_");
    this.cacheFile = `${cacheDir}/discovery/${host}/resources.json`;
  }

  /** Every resource (no subresources): core first, then groups in server order, preferred versions first. */
  async all(): Promise<ApiResource[]> {
    if (this.resources) return this.resources;
    try {
      const c = JSON.parse(await Bun.file(this.cacheFile).text());
      if (c.server === this.t.config.server && Date.now() - c.fetchedAt < TTL_MS && Array.isArray(c.resources)) {
        return (this.resources = c.resources as ApiResource[]);
      }
    } catch { /* no usable cache */ }
    return this.refresh();
  }

  /** Fetches discovery from the server (once per process) and rewrites the cache. */
  async refresh(): Promise<ApiResource[]> {
    if (this.fetched && this.resources) return this.resources;
    const list = await this.serverResources();
    this.resources = list;
    this.fetched = true;
    try {
      const fs = await import("node:fs");
      fs.mkdirSync(this.cacheFile.slice(0, this.cacheFile.lastIndexOf("/")), { recursive: true, mode: 0o700 });
      const tmp = `${this.cacheFile}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ server: this.t.config.server, fetchedAt: Date.now(), resources: list }));
      fs.renameSync(tmp, this.cacheFile); // readers never see a half-written file
    } catch { /* the cache is an optimisation only */ }
    return list;
  }

  /** What the server serves now, asked every call (controllers that follow new types), cache untouched. */
  serverResources(): Promise<ApiResource[]> {
    return this.fetchAggregated().then((l) => l ?? this.fetchLegacy());
  }

  private async fetchAggregated(): Promise<ApiResource[] | undefined> {
    const get = async (path: string) => {
      try {
        const res = await this.t.request(path, { accept: AGGREGATED });
        const type = res.headers.get("content-type") ?? "";
        const body = await res.json() as any;
        return type.includes("as=APIGroupDiscoveryList") && body?.kind === "APIGroupDiscoveryList" ? body : undefined;
      } catch (e) {
        if ((e as { code?: number }).code === 404 && path === "/apis") return { items: [] };
        throw e;
      }
    };
    const [core, groups] = await Promise.all([get("/api"), get("/apis")]);
    if (!core || !groups) return undefined;
    const out: ApiResource[] = [];
    for (const g of [...(core.items ?? []), ...(groups.items ?? [])]) {
      const group = g.metadata?.name ?? "";
      for (const v of g.versions ?? []) {
        for (const r of v.resources ?? []) {
          out.push({
            group, version: v.version, resource: r.resource,
            kind: r.responseKind?.kind ?? "",
            singular: r.singularResource || (r.responseKind?.kind ?? "").toLowerCase(),
            shortNames: r.shortNames ?? [], categories: r.categories ?? [],
            namespaced: r.scope === "Namespaced", verbs: r.verbs ?? [], preferred: false,
          });
        }
      }
    }
    return markPreferred(out);
  }

  private async fetchLegacy(): Promise<ApiResource[]> {
    const [api, apis] = await Promise.all([
      this.t.json("/api"),
      this.t.json("/apis").catch((e) => { if (e.code === 404) return { groups: [] }; throw e; }),
    ]);
    const gvs: { group: string; version: string; path: string }[] = [];
    for (const v of api.versions ?? []) gvs.push({ group: "", version: v, path: `/api/${v}` });
    for (const g of apis.groups ?? []) {
      const pref = g.preferredVersion?.version ?? g.versions?.[0]?.version;
      const versions = [...(g.versions ?? [])].sort((a: any, b: any) => (a.version === pref ? -1 : b.version === pref ? 1 : 0));
      for (const v of versions) gvs.push({ group: g.name, version: v.version, path: `/apis/${g.name}/${v.version}` });
    }
    const docs = await Promise.all(gvs.map((gv) => this.t.json(gv.path).catch(() => ({ resources: [] }))));
    const out: ApiResource[] = [];
    gvs.forEach((gv, i) => {
      for (const r of docs[i].resources ?? []) {
        if (r.name.includes("/")) continue;
        out.push({
          group: gv.group, version: gv.version, resource: r.name, kind: r.kind,
          singular: r.singularName || r.kind.toLowerCase(), shortNames: r.shortNames ?? [], categories: r.categories ?? [],
          namespaced: !!r.namespaced, verbs: r.verbs ?? [], preferred: false,
        });
      }
    });
    return markPreferred(out);
  }

  /** Resolves one type name as kubectl does; an unknown name refreshes discovery once, then fails. */
  async resolve(arg: string): Promise<ApiResource> {
    const found = match(await this.all(), arg) ?? (this.fetched ? undefined : match(await this.refresh(), arg));
    if (!found) throw new CliError(`the server doesn't have a resource type "${arg}"`);
    return found;
  }

  /** The members of a category such as `all` (preferred versions, discovery order), or undefined. */
  async category(arg: string): Promise<ApiResource[] | undefined> {
    const lower = arg.toLowerCase();
    const members = (await this.all()).filter((r) => r.preferred && r.categories.includes(lower));
    if (!members.length) return undefined;
    const seen = new Set<string>();
    return members.filter((r) => !seen.has(`${r.group}/${r.resource}`) && !!seen.add(`${r.group}/${r.resource}`));
  }

  /** The resource serving `kind` in `apiVersion` (what a manifest names), refreshing discovery once. */
  async forKind(apiVersion: string, kind: string): Promise<ApiResource> {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
    const find = (l: ApiResource[]) => l.find((r) => r.group === group && r.version === version && r.kind === kind);
    const found = find(await this.all()) ?? (this.fetched ? undefined : find(await this.refresh()));
    if (!found) throw new CliError(`no matches for kind "${kind}" in version "${apiVersion}"`);
    return found;
  }
}

/** kubectl's matching: plural, then singular, then short name, then kind; `name.group` and `name.version.group`. */
export function match(list: ApiResource[], arg: string): ApiResource | undefined {
  const full = arg.toLowerCase();
  const tries: { name: string; group?: string; version?: string }[] = [{ name: full }];
  const parts = full.split(".");
  if (parts.length >= 3) tries.push({ name: parts[0], version: parts[1], group: parts.slice(2).join(".") });
  if (parts.length >= 2) tries.push({ name: parts[0], group: parts.slice(1).join(".") });
  for (const t of tries) {
    const pool = list.filter((r) => (t.group === undefined || r.group === t.group) && (t.version === undefined || r.version === t.version));
    const hit = pool.find((r) => r.resource === t.name)
      ?? pool.find((r) => r.singular === t.name)
      ?? pool.find((r) => r.shortNames.includes(t.name))
      ?? pool.find((r) => r.kind.toLowerCase() === t.name);
    if (hit) return hit;
  }
  return undefined;
}

/** Marks each resource's first version, the list being in each group's priority order. */
function markPreferred(list: ApiResource[]): ApiResource[] {
  const seen = new Set<string>();
  for (const r of list) {
    const key = `${r.group}/${r.resource}`;
    r.preferred = !seen.has(key);
    seen.add(key);
  }
  return list;
}
