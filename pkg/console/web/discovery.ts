// The resources of the cluster through discovery (the preferred version of every group), and the sidebar's
// sections: kubectl's everyday kinds first, then custom resources (groups the v1.21 API server does not
// serve itself).
import { type Res, getJSON, resKey } from "./api.ts";

/** The groups built into a v1.21 API server; any other group is served for custom resources or aggregated APIs. */
const BUILT_IN_GROUPS = new Set(["", "apps", "batch", "autoscaling", "policy", "extensions", "apiregistration.k8s.io", "authentication.k8s.io",
  "authorization.k8s.io", "certificates.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "networking.k8s.io", "node.k8s.io",
  "rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io"]);

export const SECTIONS: { title: string; kinds: [group: string, resource: string][] }[] = [
  { title: "Workloads", kinds: [["apps", "deployments"], ["apps", "statefulsets"], ["apps", "daemonsets"], ["batch", "jobs"], ["batch", "cronjobs"], ["", "pods"], ["apps", "replicasets"]] },
  { title: "Network", kinds: [["", "services"], ["networking.k8s.io", "ingresses"]] },
  { title: "Configuration", kinds: [["", "configmaps"], ["", "secrets"], ["", "serviceaccounts"]] },
  { title: "Cluster", kinds: [["", "nodes"], ["", "namespaces"], ["", "events"], ["", "persistentvolumes"]] },
];

export interface Discovery {
  all: Res[];
  byKey: Map<string, Res>;
  /** apiVersion + kind → resource, for owner references. */
  byKind: Map<string, Res>;
  find(group: string, resource: string): Res | undefined;
  custom: Res[];
  /** False while some groups' resources are still being read. */
  complete: boolean;
}

interface ResourceList { groupVersion: string; resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[] }

/**
 * Reads discovery, handing on what is known as it grows: the core group and the list of groups first (the
 * page can show core lists at once), then each group's resources as they arrive.
 */
export async function discover(onChange: (d: Discovery) => void): Promise<void> {
  const lists: ResourceList[] = [];
  let pending = 0;
  const update = () => onChange(build(lists, pending === 0));
  const [core, apis] = await Promise.all([getJSON<ResourceList>("/api/v1"), getJSON("/apis")]);
  const versions: string[] = (apis.groups ?? []).map((g: any) => g.preferredVersion.groupVersion);
  lists.push(core);
  pending = versions.length;
  update();
  // Two at a time: a browser opens six connections to a host, and the first list and its watch must not
  // queue behind twenty discovery reads.
  let next = 0;
  await Promise.all([0, 1].map(async () => {
    while (next < versions.length) {
      const l = await getJSON<ResourceList>(`/apis/${versions[next++]}`).catch(() => undefined);
      if (l) lists.push(l);
      pending--;
      update();
    }
  }));
}

function build(lists: ResourceList[], complete: boolean): Discovery {
  const all: Res[] = [];
  for (const l of lists) {
    const [group, version] = l.groupVersion.includes("/") ? l.groupVersion.split("/") : ["", l.groupVersion];
    for (const r of l.resources ?? []) {
      if (r.name.includes("/") || !(r.verbs ?? []).includes("list")) continue;
      all.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] });
    }
  }
  const byKey = new Map(all.map((r) => [resKey(r), r]));
  const byKind = new Map(all.map((r) => [`${r.group ? `${r.group}/` : ""}${r.version}/${r.kind}`, r]));
  const find = (group: string, resource: string) => all.find((r) => r.group === group && r.resource === resource);
  return {
    all, byKey, byKind, find, complete,
    custom: all.filter((r) => !BUILT_IN_GROUPS.has(r.group)).sort((a, b) => a.kind.localeCompare(b.kind)),
  };
}

/** The resource an owner reference (apiVersion, kind) names. */
export function ownerResource(d: Discovery, apiVersion: string, kind: string): Res | undefined {
  return d.byKind.get(`${apiVersion}/${kind}`) ?? d.all.find((r) => r.kind === kind && apiVersion.startsWith(r.group ? `${r.group}/` : "v"));
}
