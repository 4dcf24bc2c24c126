// Node names grouped by zone, listed round-robin across zones (upstream's nodeTree), so the first
// nodes a cycle examines are spread over zones rather than packed in one.
import type { Node } from "../framework/index.ts";

const ZONE = ["topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"];
const REGION = ["topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"];

/** "region:\x00:zone", empty for a node without zone labels (upstream's GetZoneKey). */
export function zoneKey(node: Node): string {
  const l = node.metadata.labels;
  if (!l) return "";
  const region = l[REGION[0]] ?? l[REGION[1]] ?? "";
  const zone = l[ZONE[0]] ?? l[ZONE[1]] ?? "";
  return region === "" && zone === "" ? "" : `${region}:\x00:${zone}`;
}

export class NodeTree {
  private readonly zones = new Map<string, string[]>();
  private readonly zoneOf = new Map<string, string>();

  get numNodes(): number {
    return this.zoneOf.size;
  }

  add(node: Node): void {
    const name = node.metadata.name ?? "";
    if (this.zoneOf.has(name)) return;
    const zone = zoneKey(node);
    let names = this.zones.get(zone);
    if (!names) this.zones.set(zone, (names = []));
    names.push(name);
    this.zoneOf.set(name, zone);
  }

  remove(node: Node): void {
    const name = node.metadata.name ?? "";
    const zone = this.zoneOf.get(name);
    if (zone === undefined) return;
    const names = this.zones.get(zone)!;
    names.splice(names.indexOf(name), 1);
    if (names.length === 0) this.zones.delete(zone);
    this.zoneOf.delete(name);
  }

  update(oldNode: Node, newNode: Node): void {
    if (zoneKey(oldNode) === zoneKey(newNode) && this.zoneOf.has(newNode.metadata.name ?? "")) return;
    this.remove(oldNode);
    this.add(newNode);
  }

  /** All names, taking one from each zone in turn. */
  list(): string[] {
    const out: string[] = [];
    const lists = [...this.zones.values()];
    if (lists.length === 1) return lists[0].slice();
    for (let i = 0; out.length < this.zoneOf.size; i++) for (const l of lists) if (i < l.length) out.push(l[i]);
    return out;
  }
}
