// Defaults of volume sources (core/v1), wherever a Volume or a PersistentVolume's source appears.
import type { Obj } from "../registry/types.ts";
import { child, fill, fillZero, items, sub } from "./fill.ts";

/** The file mode of projected files: 0644. */
const DEFAULT_MODE = 420;

/** A downward API field reference names the version of its field path: v1 when not given. */
export function defaultFieldRef(holder: Obj | undefined): void {
  const ref = sub(holder, "fieldRef");
  if (ref) fillZero(ref, { apiVersion: "v1" });
}

const downwardItems = (o: Obj | undefined) => items(o, "items").forEach(defaultFieldRef);

/** Sources a Volume and a PersistentVolume share, with the defaults of their plain fields. */
const SHARED_SOURCES: [string, Obj, "zero" | "unset"][] = [
  ["iscsi", { iscsiInterface: "default" }, "zero"],
  ["rbd", { pool: "rbd", user: "admin", keyring: "/etc/ceph/keyring" }, "zero"],
  ["scaleIO", { storageMode: "ThinProvisioned", fsType: "xfs" }, "zero"],
  ["azureDisk", { cachingMode: "ReadWrite", fsType: "ext4", readOnly: false, kind: "Shared" }, "unset"],
  ["hostPath", { type: "" }, "unset"],
];

/** Defaults of the sources a PersistentVolumeSpec (or an inline volume spec) may hold. */
export function defaultPersistentSources(spec: Obj): void {
  for (const [key, values, how] of SHARED_SOURCES) {
    const src = sub(spec, key);
    if (src) (how === "zero" ? fillZero : fill)(src, values);
  }
}

/** A claim's spec: a filesystem unless a block device is asked for. */
export function defaultClaimSpec(spec: Obj | undefined): void {
  if (spec) fill(spec, { volumeMode: "Filesystem" });
}

/** A claim (object or template): its spec, and a phase of Pending. */
export function defaultClaim(pvc: Obj): void {
  defaultClaimSpec(child(pvc, "spec"));
  fillZero(child(pvc, "status"), { phase: "Pending" });
}

export function defaultVolume(v: Obj): void {
  // A volume naming no source is an empty directory.
  if (!Object.keys(v).some((k) => k !== "name" && v[k] !== null && v[k] !== undefined)) v.emptyDir = {};
  defaultPersistentSources(v);
  for (const key of ["secret", "configMap", "downwardAPI", "projected"]) {
    const src = sub(v, key);
    if (src) fill(src, { defaultMode: DEFAULT_MODE });
  }
  downwardItems(sub(v, "downwardAPI"));
  for (const s of items(sub(v, "projected"), "sources")) {
    downwardItems(sub(s, "downwardAPI"));
    const token = sub(s, "serviceAccountToken");
    if (token) fill(token, { expirationSeconds: 3600 });
  }
  const template = sub(sub(v, "ephemeral"), "volumeClaimTemplate");
  defaultClaimSpec(sub(template, "spec"));
}
