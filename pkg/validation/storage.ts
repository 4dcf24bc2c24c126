// storage.k8s.io: StorageClasses, CSIDrivers, CSINodes and VolumeAttachments.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { empty, has, immutable, isMap, list, oneOf, run, same } from "./rules.ts";
import { dns1123Subdomain, qualifiedName } from "./names.ts";
import { labelValue } from "./labels.ts";
import { nonNegative } from "./numbers.ts";

function provisioner(e: Errs, v: unknown) {
  const s = String(v ?? "");
  if (!s) return e.required("provisioner");
  e.invalidEach("provisioner", s, qualifiedName(s.toLowerCase()));
}

export const storageClass = (o: Obj, old?: Obj) => run((e) => {
  provisioner(e, o.provisioner);
  const params = isMap(o.parameters) ? o.parameters : {};
  const entries = Object.entries(params);
  if (entries.length > 512) e.tooLong("parameters", 512);
  else {
    for (const [k] of entries) if (!k) e.invalid("parameters", k, "field can not be empty.");
    if (entries.reduce((n, [k, v]) => n + k.length + String(v).length, 0) > 256 * 1024) e.tooLong("parameters", 256 * 1024);
  }
  oneOf(e, "reclaimPolicy", o.reclaimPolicy, ["Delete", "Retain"]);
  oneOf(e, "volumeBindingMode", o.volumeBindingMode, ["Immediate", "WaitForFirstConsumer"], { required: true, defaulted: true });
  e.each<Obj>("allowedTopologies", o.allowedTopologies, (t, path) => {
    if (empty(t?.matchLabelExpressions)) e.required(`${path}.matchLabelExpressions`, "must have at least one label selector requirement");
    e.each<Obj>(`${path}.matchLabelExpressions`, t?.matchLabelExpressions, (r, p) => {
      e.invalidEach(`${p}.key`, r?.key ?? "", qualifiedName(String(r?.key ?? "")));
      if (empty(r?.values)) e.required(`${p}.values`, "must specify as least one value");
      list(r?.values).forEach((v, i) => e.invalidEach(`${p}.values[${i}]`, v, labelValue(String(v))));
    });
  });
  if (!old) return;
  if (!same(o.parameters, old.parameters)) e.forbidden("parameters", "updates to parameters are forbidden.");
  if (o.provisioner !== old.provisioner) e.forbidden("provisioner", "updates to provisioner are forbidden.");
  if (has(old.reclaimPolicy) && o.reclaimPolicy !== old.reclaimPolicy) e.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden.");
  immutable(e, "volumeBindingMode", o.volumeBindingMode, old.volumeBindingMode);
});

/** ValidateCSIDriverName: a DNS subdomain of at most 63 characters. */
export function driverName(e: Errs, field: string, v: unknown) {
  const s = String(v ?? "");
  if (!s) e.required(field);
  if (s.length > 63) e.tooLong(field, 63);
  e.invalidEach(field, s, dns1123Subdomain(s.toLowerCase()));
}

export const csiDriver = (o: Obj, old?: Obj) => run((e) => {
  driverName(e, "name", o.metadata?.name);
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  oneOf(e, "spec.fsGroupPolicy", sp.fsGroupPolicy, ["File", "None", "ReadWriteOnceWithFSType"]);
  list(sp.volumeLifecycleModes).forEach((m, i) => oneOf(e, `spec.volumeLifecycleModes[${i}]`, m, ["Ephemeral", "Persistent"], { required: true }));
  e.each<Obj>("spec.tokenRequests", sp.tokenRequests, (t, p) => {
    if (has(t?.expirationSeconds) && t.expirationSeconds < 600) e.invalid(`${p}.expirationSeconds`, t.expirationSeconds, "may not specify a duration less than 10 minutes");
  });
  if (!old) return;
  // upstream's path for attachRequired is spelled this way
  immutable(e, "spec.attachedRequired", sp.attachRequired, old.spec?.attachRequired);
  immutable(e, "spec.fsGroupPolicy", sp.fsGroupPolicy, old.spec?.fsGroupPolicy);
  immutable(e, "spec.podInfoOnMount", sp.podInfoOnMount, old.spec?.podInfoOnMount);
  immutable(e, "spec.volumeLifecycleModes", sp.volumeLifecycleModes, old.spec?.volumeLifecycleModes);
});

export const csiNode = (o: Obj, old?: Obj) => run((e) => {
  const names = new Set<string>();
  e.each<Obj>("spec.drivers", o.spec?.drivers, (d, path) => {
    driverName(e, `${path}.name`, d?.name);
    const id = String(d?.nodeID ?? "");
    if (!id) e.required(`${path}.nodeID`);
    else if (id.length > 192) e.tooLong(`${path}.nodeID`, 192);
    nonNegative(e, `${path}.allocatable.count`, d?.allocatable?.count);
    if (names.has(d?.name)) e.duplicate(`${path}.name`, d?.name ?? "");
    names.add(d?.name);
    const keys = new Set<string>();
    for (const k of list(d?.topologyKeys)) {
      if (!k) e.required(path, "");
      if (keys.has(k)) e.duplicate(path, k);
      keys.add(k);
      for (const m of qualifiedName(String(k))) e.invalid(path, d.topologyKeys, m);
    }
  });
  if (!old) return;
  for (const was of list(old.spec?.drivers)) {
    list(o.spec?.drivers).forEach((d, i) => {
      if (d?.name === was?.name && !same(d, was)) e.invalid(`spec.drivers[${i}]`, d, "field is immutable");
    });
  }
});

export const volumeAttachment = (o: Obj, old?: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  if (empty(sp.attacher)) e.required("spec.attacher");
  const src: Obj = isMap(sp.source) ? sp.source : {};
  const pv = src.persistentVolumeName, inline = src.inlineVolumeSpec;
  if (!has(pv) && !has(inline)) e.required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName");
  else if (has(pv) && has(inline)) e.forbidden("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName");
  else if (has(pv) && !pv) e.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName");
  if (empty(sp.nodeName)) e.required("spec.nodeName");
  if (!empty(sp.attacher)) driverName(e, "spec.attacher", sp.attacher);
  if (typeof pv === "string" && pv) e.invalidEach("spec.source.persistentVolumeName", pv, dns1123Subdomain(pv));
  if (old && !same(sp, old.spec)) e.invalid("spec", sp, "field is immutable");
});
