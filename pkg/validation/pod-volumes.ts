// A pod's volumes: unique DNS-1123 names, at most one source each, and each source's own fields.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { dns1123Label } from "./names.ts";
import { quantity } from "./quantity.ts";

/** A path inside the volume: relative, without `..` steps. */
export function validateLocalDescendingPath(errs: Errs, p: string, path: string) {
  if (p.startsWith("/")) errs.invalid(path, p, "must be a relative path");
  if (p.split(/[\\/]/).includes("..")) errs.invalid(path, p, "must not contain '..'");
}

/** A host path may not step up with `..`. */
export function validateNoBacksteps(errs: Errs, p: string, path: string) {
  if (p.split("/").includes("..")) errs.invalid(path, p, "must not contain '..'");
}

function validateLocalNonReservedPath(errs: Errs, p: string, path: string) {
  validateLocalDescendingPath(errs, p, path);
  if (p.startsWith("..")) errs.invalid(path, p, "must not start with '..'");
}

function validateMode(errs: Errs, v: unknown, path: string) {
  const mode = int(v, path);
  if (mode !== undefined && (mode < 0 || mode > 0o777)) errs.invalid(path, mode, "must be a number between 0 and 0777 (octal), both inclusive");
}

/** `items` of a secret, configMap or projection: a key and a safe relative path each. */
function validateKeyToPaths(errs: Errs, items: unknown, path: string) {
  errs.each<Obj>(path, list(items, path), (it, p) => {
    if (!str(it?.key, `${p}.key`)) errs.required(`${p}.key`);
    const target = str(it?.path, `${p}.path`);
    if (!target) errs.required(`${p}.path`);
    else validateLocalNonReservedPath(errs, target, `${p}.path`);
    validateMode(errs, it?.mode, `${p}.mode`);
  });
}

const HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];

/** The checks of each volume source upstream validates; a source not listed is accepted as given. */
const SOURCES: Record<string, (errs: Errs, s: Obj, path: string) => void> = {
  emptyDir(errs, s, path) {
    if (s.sizeLimit !== undefined && s.sizeLimit !== null && quantity(s.sizeLimit) < 0) errs.forbidden(`${path}.sizeLimit`, "SizeLimit field must be a valid resource quantity");
  },
  hostPath(errs, s, path) {
    const p = str(s.path, `${path}.path`);
    if (!p) return errs.required(`${path}.path`);
    validateNoBacksteps(errs, p, `${path}.path`);
    const type = str(s.type, `${path}.type`);
    if (type !== undefined && !HOST_PATH_TYPES.includes(type)) errs.notSupported(`${path}.type`, type, HOST_PATH_TYPES);
  },
  secret(errs, s, path) {
    if (!str(s.secretName, `${path}.secretName`)) errs.required(`${path}.secretName`);
    validateMode(errs, s.defaultMode, `${path}.defaultMode`);
    validateKeyToPaths(errs, s.items, `${path}.items`);
  },
  configMap(errs, s, path) {
    if (!str(s.name, `${path}.name`)) errs.required(`${path}.name`);
    validateMode(errs, s.defaultMode, `${path}.defaultMode`);
    validateKeyToPaths(errs, s.items, `${path}.items`);
  },
  persistentVolumeClaim(errs, s, path) {
    if (!str(s.claimName, `${path}.claimName`)) errs.required(`${path}.claimName`);
  },
  nfs(errs, s, path) {
    if (!str(s.server, `${path}.server`)) errs.required(`${path}.server`);
    const p = str(s.path, `${path}.path`);
    if (!p) errs.required(`${path}.path`);
    else if (!p.startsWith("/")) errs.invalid(`${path}.path`, p, "must be an absolute path");
  },
  downwardAPI(errs, s, path) { validateMode(errs, s.defaultMode, `${path}.defaultMode`); },
  projected(errs, s, path) { validateMode(errs, s.defaultMode, `${path}.defaultMode`); },
  csi(errs, s, path) { if (!str(s.driver, `${path}.driver`)) errs.required(`${path}.driver`); },
  gitRepo: () => {}, iscsi: () => {}, glusterfs: () => {}, rbd: () => {}, flexVolume: () => {}, cinder: () => {},
  cephfs: () => {}, flocker: () => {}, fc: () => {}, azureFile: () => {}, vsphereVolume: () => {}, quobyte: () => {},
  azureDisk: () => {}, photonPersistentDisk: () => {}, portworxVolume: () => {}, scaleIO: () => {}, storageos: () => {},
  ephemeral: () => {}, gcePersistentDisk: () => {}, awsElasticBlockStore: () => {},
};

/** Validates spec.volumes; returns the names a volumeMount may refer to (only volumes without errors, as upstream). */
export function validateVolumes(errs: Errs, volumes: unknown, path: string): Set<string> {
  const names = new Set<string>();
  errs.each<Obj>(path, list(volumes, path), (v, p) => {
    const before = errs.causes.length;
    const vol = obj(v, p);
    let found = 0;
    for (const source in vol) {
      const check = SOURCES[source];
      if (!check || vol[source] === undefined || vol[source] === null) continue;
      if (found++) errs.forbidden(`${p}.${source}`, "may not specify more than 1 volume type");
      else check(errs, obj(vol[source], `${p}.${source}`), `${p}.${source}`);
    }
    // No source at all is defaulted to emptyDir before validation, as upstream's defaulter does.
    const name = str(vol.name, `${p}.name`);
    if (!name) errs.required(`${p}.name`);
    else errs.invalidEach(`${p}.name`, name, dns1123Label(name));
    if (name !== undefined && names.has(name)) errs.duplicate(`${p}.name`, name);
    if (errs.causes.length === before && name) names.add(name);
  });
  return names;
}
