// Feeds the Node authorizer's graph from the server's own store: each source kind (pods, persistent
// volumes, volume attachments) is listed once, then watched; a watch that fails (a compacted revision)
// lists and watches again, and the relist drops what disappeared meanwhile.
import { consola } from "consola";
import type { Registry } from "../../registry/registry.ts";
import type { ResourceStore } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";
import { type Edge, Graph, vertex, type VertexType } from "./graph.ts";
import { podEdges, pvEdges, volumeAttachmentEdges } from "./refs.ts";

interface Source { group: string; resource: string; type: VertexType; edges(o: Obj): Edge[] }

const SOURCES: Source[] = [
  { group: "", resource: "pods", type: "pod", edges: podEdges },
  { group: "", resource: "persistentvolumes", type: "pv", edges: pvEdges },
  { group: "storage.k8s.io", resource: "volumeattachments", type: "volumeattachment", edges: volumeAttachmentEdges },
];

const ownerOf = (s: Source, o: Obj) => vertex(s.type, o.metadata.namespace ?? "", o.metadata.name);

export class GraphPopulator {
  readonly graph = new Graph();
  private closers: (() => void)[] = [];
  private stopped = false;

  constructor(private registry: Registry) {}

  /** Resolves when every source has been listed once. */
  start(): Promise<void> {
    return Promise.all(SOURCES.map((s) => this.follow(s))).then(() => undefined);
  }

  stop() {
    this.stopped = true;
    for (const c of this.closers) c();
  }

  private async follow(s: Source): Promise<void> {
    const rs = this.registry.all.find((r) => r.def.group === s.group && r.def.plural === s.resource && !r.def.codec) as ResourceStore;
    const list = await rs.list("");
    const seen = new Set<string>();
    for (const o of list.items) {
      seen.add(ownerOf(s, o));
      this.graph.set(ownerOf(s, o), s.edges(o));
    }
    for (const owner of this.graph.owners(`${s.type}/`)) if (!seen.has(owner)) this.graph.remove(owner);
    const w = await rs.store.watch(rs.collectionPrefix(""), Number(list.metadata.resourceVersion), (ev) => {
      const o = rs.decode(ev.kv);
      if (ev.type === "PUT") this.graph.set(ownerOf(s, o), s.edges(o));
      else this.graph.remove(ownerOf(s, o));
    }, (err) => {
      if (this.stopped) return;
      consola.warn(`node authorizer: watch of ${s.resource}: ${err.message}; listing again`);
      setTimeout(() => { if (!this.stopped) this.follow(s).catch((e) => consola.warn(`node authorizer: ${s.resource}: ${e.message}`)); }, 1000);
    });
    this.closers.push(() => w.close());
  }
}
