// ImageLocality: favors nodes that already hold the pod's container images, weighted by image size
// and by how widely the image is spread (an image on every node says little about this one).
import type { Handle, NodeInfo, Plugin, Pod, ScorePlugin } from "../framework/index.ts";
import { MAX_NODE_SCORE } from "../framework/index.ts";
import { ImageLocality } from "./names.ts";

const MB = 1024 * 1024;
const MIN_THRESHOLD = 23 * MB;
const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** "nginx" and "nginx:latest" name the same image; status.images lists the tagged form. */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(":") <= name.lastIndexOf("/") ? `${name}:latest` : name;
}

function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = MAX_CONTAINER_THRESHOLD * numContainers;
  const sum = Math.min(Math.max(sumScores, MIN_THRESHOLD), Math.max(maxThreshold, MIN_THRESHOLD));
  if (maxThreshold <= MIN_THRESHOLD) return 0;
  return Math.trunc((MAX_NODE_SCORE * (sum - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
}

/** The sizes of the pod's images on the node, each scaled by the share of nodes holding it. */
function nodeScore(images: string[], nodeInfo: NodeInfo, totalNodes: number): number {
  let sum = 0;
  if (nodeInfo.imageStates.size > 0) {
    for (let i = 0; i < images.length; i++) {
      const s = nodeInfo.imageStates.get(images[i]);
      if (s) sum += Math.trunc(s.size * (s.numNodes / totalNodes));
    }
  }
  return calculatePriority(sum, images.length);
}

export function newImageLocality(_args: unknown, handle: Handle): Plugin {
  // The pod's image names, normalized once per pod rather than once per node.
  let lastPod: Pod | null = null;
  let images: string[] = [];
  const imagesOf = (pod: Pod): string[] => {
    if (pod !== lastPod) {
      images = (pod.spec.containers ?? []).map((c) => normalizedImageName(c.image ?? ""));
      lastPod = pod;
    }
    return images;
  };
  const plugin: ScorePlugin = {
    name: ImageLocality,
    score(_state, pod, nodeInfo: NodeInfo) {
      return nodeScore(imagesOf(pod), nodeInfo, handle.snapshotSharedLister().nodeInfos().list().length);
    },
    scoreNodes(_state, pod, nodes, scores) {
      const imgs = imagesOf(pod);
      const totalNodes = handle.snapshotSharedLister().nodeInfos().list().length;
      for (let i = 0; i < nodes.length; i++) scores[i].score = nodeScore(imgs, nodes[i], totalNodes);
    },
    scoreExtensions: () => null,
  };
  return plugin;
}
