// The edges each watched object implies in the Node authorizer's graph: what a pod bound to a node
// references (Secrets, ConfigMaps, PVCs, its ServiceAccount), what a PersistentVolume references (its
// claim, its Secrets), and the node a VolumeAttachment is for.
import type { Obj } from "../../registry/types.ts";
import { type Edge, vertex } from "./graph.ts";

type Dict = Record<string, any>;
const arr = (v: unknown): Dict[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === "object") : []);
const names = (vs: unknown[]) => [...new Set(vs.filter((v): v is string => typeof v === "string" && v !== ""))];

/** Volume sources that name a Secret in the pod's namespace, and where they name it. */
const VOLUME_SECRETS: [string, (s: Dict) => unknown][] = [
  ["secret", (s) => s.secretName], ["azureFile", (s) => s.secretName],
  ...["cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"].map((k): [string, (s: Dict) => unknown] => [k, (s) => s.secretRef?.name]),
  ["csi", (s) => s.nodePublishSecretRef?.name],
];

function containers(spec: Dict): Dict[] {
  return [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)];
}

export interface PodRefs { secrets: string[]; configMaps: string[]; claims: string[]; serviceAccount?: string }

export function podRefs(pod: Obj): PodRefs {
  const spec: Dict = pod.spec ?? {};
  const secrets: unknown[] = arr(spec.imagePullSecrets).map((r) => r.name);
  const configMaps: unknown[] = [];
  const claims: unknown[] = [];
  for (const c of containers(spec)) {
    for (const f of arr(c.envFrom)) { secrets.push(f.secretRef?.name); configMaps.push(f.configMapRef?.name); }
    for (const e of arr(c.env)) { secrets.push(e.valueFrom?.secretKeyRef?.name); configMaps.push(e.valueFrom?.configMapKeyRef?.name); }
  }
  for (const v of arr(spec.volumes)) {
    for (const [k, name] of VOLUME_SECRETS) if (v[k]) secrets.push(name(v[k]));
    if (v.configMap) configMaps.push(v.configMap.name);
    for (const src of arr(v.projected?.sources)) { secrets.push(src.secret?.name); configMaps.push(src.configMap?.name); }
    if (v.persistentVolumeClaim) claims.push(v.persistentVolumeClaim.claimName);
    // a generic ephemeral volume's claim is named after the pod and the volume
    if (v.ephemeral) claims.push(`${pod.metadata.name}-${v.name}`);
  }
  return { secrets: names(secrets), configMaps: names(configMaps), claims: names(claims), serviceAccount: spec.serviceAccountName || undefined };
}

/** A pod bound to a node: everything it references points to it, and it points to its node. */
export function podEdges(pod: Obj): Edge[] {
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) return [];
  const ns = pod.metadata.namespace, p = vertex("pod", ns, pod.metadata.name);
  const r = podRefs(pod);
  return [
    [p, vertex("node", "", nodeName)],
    ...r.secrets.map((n): Edge => [vertex("secret", ns, n), p]),
    ...r.configMaps.map((n): Edge => [vertex("configmap", ns, n), p]),
    ...r.claims.map((n): Edge => [vertex("pvc", ns, n), p]),
    ...(r.serviceAccount ? [[vertex("serviceaccount", ns, r.serviceAccount), p] as Edge] : []),
  ];
}

/** The Secrets a PersistentVolume names for the kubelet (namespace defaulted from its claim, as upstream). */
export function pvSecrets(pv: Obj): [string, string][] {
  const s: Dict = pv.spec ?? {};
  const claimNs: string = s.claimRef?.namespace ?? "";
  const out: [string, string][] = [];
  const add = (ref: Dict | undefined, fallbackNs = claimNs) => { if (ref?.name) out.push([ref.namespace || fallbackNs, ref.name]); };
  if (s.azureFile?.secretName) out.push([s.azureFile.secretNamespace || claimNs || "default", s.azureFile.secretName]);
  for (const k of ["cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"]) add(s[k]?.secretRef);
  // only the CSI secrets the kubelet itself uses (the controller's are not the node's business)
  for (const k of ["nodeStageSecretRef", "nodePublishSecretRef"]) add(s.csi?.[k], "");
  return out;
}

/** A PersistentVolume points to the claim bound to it; its Secrets point to it. */
export function pvEdges(pv: Obj): Edge[] {
  const ref = pv.spec?.claimRef;
  if (!ref?.name) return [];
  const v = vertex("pv", "", pv.metadata.name);
  return [[v, vertex("pvc", ref.namespace ?? "", ref.name)], ...pvSecrets(pv).map(([ns, n]): Edge => [vertex("secret", ns, n), v])];
}

export function volumeAttachmentEdges(va: Obj): Edge[] {
  const nodeName = va.spec?.nodeName;
  return nodeName ? [[vertex("volumeattachment", "", va.metadata.name), vertex("node", "", nodeName)]] : [];
}
