// The agent's own submission source: pods POSTed to its server (a Pod or a v1 PodList, YAML or JSON) are
// kept as manifests under --root-dir/submitted, so a restarted agent still runs (and adopts) them, and run
// as static pods with mirror pods, like those of --manifest-url. DELETE takes one back.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Obj } from "./node.ts";
import { decode, staticPod } from "./static.ts";

/** A submission the agent refuses, with the reason for the 400. */
export class SubmissionError extends Error {}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export class SubmittedPods {
  constructor(readonly dir: string, private readonly nodeName: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private file(namespace: string, name: string): string { return join(this.dir, `${namespace}_${name}.json`); }

  /** Stores the pods of a request body; returns them as the agent will run them. Nothing is stored if one is bad. */
  add(body: string): Obj[] {
    let doc: Obj;
    try { doc = decode(body); } catch (e) { throw new SubmissionError(`the body is neither JSON nor YAML: ${(e as Error).message}`); }
    const items: Obj[] = doc?.kind === "PodList" && doc.apiVersion === "v1" ? doc.items ?? [] : [doc];
    const pods = items.map((item) => {
      if (item?.kind !== "Pod" || item.apiVersion !== "v1") throw new SubmissionError(`not a v1 Pod or PodList (kind ${item?.kind}, apiVersion ${item?.apiVersion})`);
      const name = item.metadata?.name, namespace = item.metadata?.namespace || "default";
      if (typeof name !== "string" || !NAME.test(name) || !NAME.test(namespace)) throw new SubmissionError(`a pod needs metadata.name (and namespace) in lowercase RFC 1123 form`);
      const pod = { ...item, metadata: { ...item.metadata, namespace } };
      // as the file source will read it back, so the caller sees the name and uid it will have
      return { pod, running: staticPod(structuredClone(pod), this.file(namespace, name), "http", this.nodeName) };
    });
    for (const { pod } of pods) writeFileSync(this.file(pod.metadata.namespace, pod.metadata.name), JSON.stringify(pod), { mode: 0o600 });
    return pods.map((p) => p.running);
  }

  /** Takes back the pod submitted as namespace/name (or under the name the agent gave it); false when there is none. */
  remove(namespace: string, name: string): boolean {
    for (const n of [name, name.endsWith(`-${this.nodeName}`) ? name.slice(0, -this.nodeName.length - 1) : ""]) {
      if (!n) continue;
      const f = this.file(namespace, n);
      if (existsSync(f)) { rmSync(f); return true; }
    }
    return false;
  }
}
