// Static pods: the pods of --pod-manifest-path (one file, or every file of a folder but dotfiles, each
// one pod in YAML or JSON) and of --manifest-url (a Pod or a PodList), named `<name>-<node>` as upstream,
// with a uid hashed from their content so that an edited manifest is a new pod. Their mirror pods stand
// for them in the API server.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { defaultPod } from "../defaults/pod.ts";
import { decodeYaml } from "../yaml/decode.ts";
import type { Obj } from "./node.ts";

export const CONFIG_MIRROR = "kubernetes.io/config.mirror";
export const CONFIG_HASH = "kubernetes.io/config.hash";
export const CONFIG_SOURCE = "kubernetes.io/config.source";

export const isMirrorPod = (pod: Obj) => pod.metadata?.annotations?.[CONFIG_MIRROR] !== undefined;
export type StaticSource = "file" | "http";
export const isStaticPod = (pod: Obj) => ["file", "http"].includes(pod.metadata?.annotations?.[CONFIG_SOURCE]);

export const decode = (text: string): Obj => (text.trimStart().startsWith("{") ? JSON.parse(text) : decodeYaml(text)) as Obj;

function manifestFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).filter((f) => !f.startsWith(".")).sort().map((f) => join(path, f)).filter((f) => statSync(f).isFile());
}

/** One static pod from a manifest; throws with the reason it is not a pod. `origin` names the file or URL. */
export function staticPod(pod: Obj, origin: string, source: StaticSource, nodeName: string): Obj {
  if (pod?.kind !== "Pod" || pod.apiVersion !== "v1") throw new Error(`${origin}: not a v1 Pod (kind ${pod?.kind}, apiVersion ${pod?.apiVersion})`);
  if (!pod.metadata?.name) throw new Error(`${origin}: the pod has no name`);
  pod.metadata.namespace ||= "default";
  pod.metadata.name = `${pod.metadata.name}-${nodeName}`;
  pod.spec = { ...pod.spec, nodeName };
  defaultPod(pod);
  const hash = new Bun.CryptoHasher("md5").update(JSON.stringify([pod, nodeName, origin])).digest("hex");
  pod.metadata.uid = hash;
  pod.metadata.annotations = { ...pod.metadata.annotations, [CONFIG_HASH]: hash, [CONFIG_SOURCE]: source };
  return pod;
}

/** Every static pod of `path` now; files that fail to read or parse are reported through onError. */
export function readStaticPods(path: string, nodeName: string, onError: (message: string) => void, source: StaticSource = "file"): Obj[] {
  let files: string[];
  try { files = manifestFiles(path); } catch (e) { onError(`unable to read pod manifest path ${path}: ${(e as Error).message}`); return []; }
  const pods: Obj[] = [];
  for (const f of files) {
    try { pods.push(staticPod(decode(readFileSync(f, "utf8")), f, source, nodeName)); } catch (e) { onError(`could not process manifest file ${f}: ${(e as Error).message}`); }
  }
  return pods;
}

/** The pods --manifest-url serves now (a Pod or a v1 PodList); throws when it cannot be read. */
export async function fetchStaticPods(url: string, headers: Record<string, string[]>, nodeName: string, onError: (message: string) => void): Promise<Obj[]> {
  const h = new Headers();
  for (const [k, vs] of Object.entries(headers)) for (const v of vs) h.append(k, v);
  const res = await fetch(url, { headers: h, signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.statusText}`);
  const text = await res.text();
  if (!text.trim()) return [];
  const body = decode(text);
  const items: Obj[] = body?.kind === "PodList" ? body.items ?? [] : [body];
  const pods: Obj[] = [];
  items.forEach((item, i) => {
    try { pods.push(staticPod(item, body?.kind === "PodList" ? `${url}#${i}` : url, "http", nodeName)); } catch (e) { onError(`could not process manifest from ${url}: ${(e as Error).message}`); }
  });
  return pods;
}

/** The mirror pod of a static pod: its copy in the API server, owned by the Node. */
export function mirrorPod(pod: Obj, nodeName: string, nodeUid: string): Obj {
  const { uid: _, ...metadata } = pod.metadata;
  return {
    apiVersion: "v1", kind: "Pod",
    metadata: {
      ...metadata,
      annotations: { ...metadata.annotations, [CONFIG_MIRROR]: metadata.annotations[CONFIG_HASH] },
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: nodeName, uid: nodeUid, controller: true }],
    },
    spec: pod.spec,
  };
}
