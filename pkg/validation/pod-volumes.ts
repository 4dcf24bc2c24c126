// A pod's volumes: unique DNS-1123 names, at most one source each, and each source's own fields.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { list, obj, str } from "./decode.ts";
import { dns1123Label } from "./names.ts";
import { quantity } from "./quantity.ts";
import { validateKeyToPath, validateMode, validateNoBacksteps } from "./volume-paths.ts";
import { validateDownwardAPIVolume, validateProjectedVolume } from "./volume-projections.ts";

/** `items` of a secret or configMap volume. */
const validateKeyToPaths = (errs: Errs, items: unknown, path: string) =>
  errs.each<Obj>(path, list(items, path), (it, p) => validateKeyToPath(errs, obj(it, p), p));

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
  downwardAPI: validateDownwardAPIVolume,
  projected: validateProjectedVolume,
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
