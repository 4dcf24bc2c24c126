// PersistentVolumes and PersistentVolumeClaims, as upstream's core validation checks them.
import type { Obj } from "../registry/types.ts";
import { type Errs, Printed } from "./field.ts";
import { validateNoBacksteps } from "./volume-paths.ts";
import { empty, has, isMap, list, oneOf, run, same } from "./rules.ts";
import { dns1123Subdomain } from "./names.ts";
import { labelSelector } from "./labels.ts";
import { validateNodeSelector } from "./scheduling.ts";
import { nonNegativeQuantity, parseQuantity } from "./quantity.ts";

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"];
const VOLUME_MODES = ["Block", "Filesystem"];
/** The volume sources a PersistentVolume may name, exactly one of them. */
const PV_SOURCES = [
  "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "quobyte", "cinder", "cephfs", "iscsi",
  "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk", "portworxVolume",
  "scaleIO", "local", "storageos", "csi",
];

function accessModes(e: Errs, field: string, modes: unknown) {
  if (empty(modes)) e.required(field, "at least 1 access mode is required");
  for (const m of list(modes)) if (!ACCESS_MODES.includes(m)) e.notSupported(field, m, ACCESS_MODES);
}

function className(e: Errs, field: string, v: unknown) {
  if (typeof v === "string" && v) e.invalidEach(field, v, dns1123Subdomain(v));
}

export const persistentVolume = (o: Obj, old?: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  accessModes(e, "spec.accessModes", sp.accessModes);
  const cap = isMap(sp.capacity) ? sp.capacity : {};
  if (!Object.keys(cap).length) e.required("spec.capacity");
  else if (!("storage" in cap) || Object.keys(cap).length > 1) e.notSupported("spec.capacity", cap, ["storage"]);
  for (const [k, v] of Object.entries(cap)) nonNegativeQuantity(e, `spec.capacity[${k}]`, v, true);
  const sources = PV_SOURCES.filter((s) => has(sp[s]));
  if (!sources.length) e.required("spec", "must specify a volume type");
  for (const s of sources.slice(1)) e.forbidden(`spec.${s}`, "may not specify more than 1 volume type");
  if (typeof sp.hostPath?.path === "string") validateNoBacksteps(e, sp.hostPath.path, "spec.hostPath.path");
  const pinned = has(sp.nodeAffinity);
  if (pinned) {
    const required = sp.nodeAffinity?.required;
    if (has(required)) validateNodeSelector(e, required, "spec.nodeAffinity.required");
    else e.required("spec.nodeAffinity.required", "must specify required node constraints");
  }
  if (sources[0] === "local") {
    if (!sp.local?.path) e.required("spec.local.path");
    else validateNoBacksteps(e, String(sp.local.path), "spec.local.path");
    if (!pinned) e.required("spec.nodeAffinity", "Local volume requires node affinity");
  }
  oneOf(e, "spec.persistentVolumeReclaimPolicy", sp.persistentVolumeReclaimPolicy, ["Delete", "Recycle", "Retain"]);
  className(e, "spec.storageClassName", sp.storageClassName);
  oneOf(e, "spec.volumeMode", sp.volumeMode, VOLUME_MODES);
  if (!old) return;
  const src = (s: Obj) => Object.fromEntries(PV_SOURCES.map((k) => [k, s?.[k]]));
  if (!same(src(sp), src(old.spec))) e.forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation");
  if (!same(sp.volumeMode, old.spec?.volumeMode)) e.immutable("spec.volumeMode", sp.volumeMode ?? null);
  // a node affinity may be added once, never changed; upstream names the field without `spec.`
  if (has(old.spec?.nodeAffinity) && !same(sp.nodeAffinity, old.spec.nodeAffinity)) {
    const shown = `core.VolumeNodeAffinity{Required:(*core.NodeSelector)(${has(sp.nodeAffinity?.required) ? "0xc000010000" : "nil"})}`;
    e.immutable("nodeAffinity", has(sp.nodeAffinity) ? new Printed(shown) : null);
  }
});

function claimSpec(e: Errs, sp: Obj) {
  accessModes(e, "spec.accessModes", sp.accessModes);
  labelSelector(e, "spec.selector", sp.selector);
  const storage = sp.resources?.requests?.storage;
  if (!has(storage)) e.required("spec.resources[storage]");
  else nonNegativeQuantity(e, "spec.resources[storage]", storage, true);
  className(e, "spec.storageClassName", sp.storageClassName);
  oneOf(e, "spec.volumeMode", sp.volumeMode, VOLUME_MODES);
}

/** A claim's spec is fixed, but for a volumeName set once and (on a bound claim) a larger storage request. */
function claimUpdate(e: Errs, o: Obj, old: Obj) {
  const now = structuredClone(o.spec ?? {}), was = structuredClone(old.spec ?? {});
  if (!was.volumeName) was.volumeName = now.volumeName;
  const bound = o.status?.phase === "Bound";
  if (bound && now.resources?.requests) now.resources.requests.storage = was.resources?.requests?.storage;
  if (!same(now, was)) e.forbidden("spec", "spec is immutable after creation except resources.requests for bound claims");
  const a = quantityOf(o.spec?.resources?.requests?.storage), b = quantityOf(old.spec?.resources?.requests?.storage);
  if (a !== null && b !== null && a < b) e.forbidden("spec.resources.requests.storage", "field can not be less than previous value");
  const key = "volume.beta.kubernetes.io/storage-class";
  const ann = o.metadata?.annotations?.[key], oldAnn = old.metadata?.annotations?.[key];
  if (ann !== oldAnn) e.immutable(`metadata.annotations.${key}`, ann ?? "");
}

const quantityOf = (v: unknown) => (has(v) ? parseQuantity(v) : null);

export const persistentVolumeClaim = (o: Obj, old?: Obj) => run((e) => {
  claimSpec(e, isMap(o.spec) ? o.spec : {});
  if (old) claimUpdate(e, o, old);
});
