// The Node authorizer's graph (upstream's plugin/pkg/auth/authorizer/node): vertices are objects
// (`pod/NS/NAME`, `secret/NS/NAME`, `node/NAME`, ...), edges point toward the node that may reach them
// (secret → pod → node, pvc → pod, pv → pvc, secret → pv, volumeattachment → node). Each object that
// is watched owns the edges it implies, so an update replaces them and a delete drops them.

export type VertexType = "pod" | "node" | "secret" | "configmap" | "pvc" | "pv" | "serviceaccount" | "volumeattachment";

export const vertex = (type: VertexType, namespace: string, name: string) => (namespace ? `${type}/${namespace}/${name}` : `${type}/${name}`);

export type Edge = [from: string, to: string];

export class Graph {
  private out = new Map<string, Set<string>>();
  private owned = new Map<string, Edge[]>();

  /** Sets the edges `owner` implies, replacing those it implied before. */
  set(owner: string, edges: Edge[]) {
    this.remove(owner);
    if (!edges.length) return;
    this.owned.set(owner, edges);
    for (const [from, to] of edges) {
      let s = this.out.get(from);
      if (!s) this.out.set(from, (s = new Set()));
      s.add(to);
    }
  }

  remove(owner: string) {
    for (const [from, to] of this.owned.get(owner) ?? []) {
      const s = this.out.get(from);
      s?.delete(to);
      if (s && !s.size) this.out.delete(from);
    }
    this.owned.delete(owner);
  }

  /** The owners whose key starts with `prefix` (`pod/`): what a relist compares against. */
  owners(prefix: string): string[] {
    return [...this.owned.keys()].filter((k) => k.startsWith(prefix));
  }

  hasEdge(from: string, to: string): boolean {
    return this.out.get(from)?.has(to) ?? false;
  }

  /** Whether `to` can be reached from `from` along the edges (a breadth-first walk, each vertex once). */
  hasPath(from: string, to: string): boolean {
    const seen = new Set([from]);
    const queue = [from];
    for (let i = 0; i < queue.length; i++) {
      for (const next of this.out.get(queue[i]) ?? []) {
        if (next === to) return true;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  }
}
