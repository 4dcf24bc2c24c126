// Discovery documents, legacy (/api, /apis, /api/v1, /apis/G, /apis/G/V) and aggregated
// (apidiscovery.k8s.io v2 and v2beta1), all derived from the resource declarations.
import { ALL_VERBS, type ResourceDef, SUBRESOURCE_KINDS, type Subresource, apiVersionOf } from "../registry/types.ts";
import { parseMediaTypes } from "./negotiate.ts";

const SUB_VERBS: Record<Subresource, string[]> = { status: ["get", "patch", "update"], approval: ["get", "patch", "update"], finalize: ["update"], scale: ["get", "patch", "update"], token: ["create"], binding: ["create"], eviction: ["create"], log: ["get"], exec: ["create", "get"], attach: ["create", "get"], portforward: ["create", "get"], proxy: ["create", "delete", "get", "patch", "update"] };

/** The kind a subresource answers with: its own (autoscaling/v1 Scale) or its parent's. */
const subKind = (d: ResourceDef, s: Subresource) =>
  SUBRESOURCE_KINDS[s] ?? { group: d.group, version: d.version, kind: s === "proxy" ? `${d.kind}ProxyOptions` : d.kind };

interface GroupVersions { group: string; versions: string[] }

export class Discovery {
  private groups: GroupVersions[] = [];
  private cache = new Map<string, string>();

  constructor(private defs: ResourceDef[], private serverAddress: () => string) {
    this.setDefs(defs);
  }

  /** The served types (a new array after each change). */
  get served(): ResourceDef[] { return this.defs; }

  /** The served types change (custom resources come and go); a group's versions are in the order given. */
  setDefs(defs: ResourceDef[]) {
    this.defs = defs;
    this.groups = [];
    this.cache.clear();
    for (const d of defs) {
      let g = this.groups.find((x) => x.group === d.group);
      if (!g) this.groups.push((g = { group: d.group, versions: [] }));
      if (!g.versions.includes(d.version)) g.versions.push(d.version);
    }
  }

  private resourcesOf(group: string, version: string) {
    return this.defs.filter((d) => d.group === group && d.version === version);
  }

  private apiResources(d: ResourceDef) {
    const base = {
      // v1.21 names no singular for built-in resources (clients derive it from the kind)
      name: d.plural, singularName: d.custom ? d.singular : "", namespaced: d.namespaced, kind: d.kind,
      verbs: d.verbs ?? ALL_VERBS,
      ...(d.shortNames ? { shortNames: d.shortNames } : {}),
      ...(d.categories ? { categories: d.categories } : {}),
      // only stored kinds have a storage version (upstream names none for the reviews, componentstatuses);
      // every version of a kind is stored at its hub, so all name the hub's
      ...(d.computed ? {} : { storageVersionHash: storageHash(d) }),
    };
    // A subresource of another group version names it, as upstream's discovery does (deployments/scale).
    const subs = (d.subresources ?? []).map((s) => {
      const k = subKind(d, s);
      const gv = k.group !== d.group || k.version !== d.version ? { group: k.group, version: k.version } : {};
      return { name: `${d.plural}/${s}`, singularName: "", namespaced: d.namespaced, ...gv, kind: k.kind, verbs: SUB_VERBS[s] };
    });
    return [base, ...subs];
  }

  private groupDoc(g: GroupVersions) {
    const versions = g.versions.map((v) => ({ groupVersion: `${g.group}/${v}`, version: v }));
    return { name: g.group, versions, preferredVersion: versions[0] };
  }

  /** Legacy documents by path, or undefined when the path is not a discovery path. */
  legacy(path: string): unknown | undefined {
    const segs = path.split("/").filter(Boolean);
    if (segs[0] === "api" && segs.length === 1) {
      return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: this.serverAddress() }] };
    }
    if (segs[0] === "api" && segs.length === 2 && segs[1] === "v1") return this.resourceList("", "v1");
    if (segs[0] !== "apis") return undefined;
    const named = this.groups.filter((g) => g.group !== "");
    if (segs.length === 1) return { kind: "APIGroupList", apiVersion: "v1", groups: named.map((g) => this.groupDoc(g)) };
    const g = named.find((x) => x.group === segs[1]);
    if (!g) return undefined;
    if (segs.length === 2) return { kind: "APIGroup", apiVersion: "v1", ...this.groupDoc(g) };
    if (segs.length === 3 && g.versions.includes(segs[2])) return this.resourceList(g.group, segs[2]);
    return undefined;
  }

  private resourceList(group: string, version: string) {
    return {
      kind: "APIResourceList", apiVersion: "v1", groupVersion: group ? `${group}/${version}` : version,
      resources: this.resourcesOf(group, version).flatMap((d) => this.apiResources(d)),
    };
  }

  /** The aggregated document for /api (core) or /apis (named groups). */
  aggregated(core: boolean, version: "v2" | "v2beta1") {
    const items = this.groups.filter((g) => (g.group === "") === core).map((g) => ({
      metadata: { name: g.group, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        freshness: "Current",
        resources: this.resourcesOf(g.group, v).map((d) => ({
          resource: d.plural,
          responseKind: { group: d.group, version: d.version, kind: d.kind },
          scope: d.namespaced ? "Namespaced" : "Cluster",
          singularResource: d.singular,
          verbs: d.verbs ?? ALL_VERBS,
          ...(d.shortNames ? { shortNames: d.shortNames } : {}),
          ...(d.categories ? { categories: d.categories } : {}),
          ...(d.subresources ? {
            subresources: d.subresources.map((s) => ({
              subresource: s, responseKind: subKind(d, s), verbs: SUB_VERBS[s],
            })),
          } : {}),
        })),
      })),
    }));
    return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
  }

  /** Answers a discovery request, or undefined when the path is not one. */
  handle(path: string, accept: string | null): Response | undefined {
    const p = path.replace(/\/$/, "");
    if (p === "/api" || p === "/apis") {
      for (const m of parseMediaTypes(accept)) {
        if (m.params.as === "APIGroupDiscoveryList" && m.params.g === "apidiscovery.k8s.io" && (m.params.v === "v2" || m.params.v === "v2beta1")) {
          const type = `application/json;g=apidiscovery.k8s.io;v=${m.params.v};as=APIGroupDiscoveryList`;
          return this.cached(`${p}:${m.params.v}`, () => this.aggregated(p === "/api", m.params.v as "v2"), type);
        }
        if (m.type === "application/json" || m.type === "*/*") break;
      }
    }
    const doc = this.legacy(p);
    if (doc === undefined) return undefined;
    return this.cached(p, () => doc, "application/json");
  }

  private cached(key: string, build: () => unknown, type: string): Response {
    let body = this.cache.get(key);
    if (body === undefined) this.cache.set(key, (body = JSON.stringify(build())));
    return new Response(body, { headers: { "Content-Type": type, "Cache-Control": "public" } });
  }
}

const storageHash = (d: ResourceDef) => {
  const at = d.conversion?.hub ?? d;
  return hash(`${apiVersionOf(at)}/${at.kind}`);
};

function hash(s: string): string {
  return new Bun.CryptoHasher("sha256").update(s).digest("base64").slice(0, 11);
}
