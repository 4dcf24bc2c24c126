// Namespaces and Nodes: spec finalizers, taints, pod CIDRs and the Node fields set once.
import type { Obj } from "../registry/types.ts";
import { goStrings, Printed, type Errs } from "./field.ts";
import { empty, isMap, list, run, same } from "./rules.ts";
import { qualifiedName } from "./names.ts";
import { labelValue } from "./labels.ts";
import { isCIDR } from "./network.ts";

/** validateFinalizerName: qualified, and fully qualified unless it is one of the standard ones. */
export function finalizerName(e: Errs, field: string, f: string) {
  e.invalidEach(field, f, qualifiedName(f));
  if (!f.includes("/") && f !== "kubernetes") e.invalid(field, f, "name is neither a standard finalizer name nor is it fully qualified");
}

export const namespace = (o: Obj) => run((e) => {
  for (const f of list(o.spec?.finalizers)) finalizerName(e, "spec.finalizers", String(f));
});

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

function taints(e: Errs, items: unknown) {
  const seen = new Set<string>();
  e.each<Obj>("spec.taints", items, (t, path) => {
    const key = String(t?.key ?? "");
    e.invalidEach(`${path}.key`, key, qualifiedName(key));
    const bad = labelValue(String(t?.value ?? ""));
    if (bad.length) e.invalid(`${path}.value`, t.value, bad.join(";"));
    if (empty(t?.effect)) e.required(`${path}.effect`);
    else if (!TAINT_EFFECTS.includes(t.effect)) e.notSupported(`${path}.effect`, t.effect, TAINT_EFFECTS);
    const id = `${t?.effect}\u0000${key}`;
    if (seen.has(id)) {
      e.causes.push({ field: path, reason: "FieldValueDuplicate", message: `Duplicate value: ${JSON.stringify(t)}: taints must be unique by key and effect pair` });
    }
    seen.add(id);
  });
}

export const node = (o: Obj, old?: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  taints(e, sp.taints);
  const cidrs = list(sp.podCIDRs);
  cidrs.forEach((c, i) => { if (!isCIDR(String(c))) e.invalid(`spec.podCIDRs[${i}]`, c, "must be a valid CIDR"); });
  if (cidrs.length > 2) e.invalid("spec.podCIDRs", new Printed(goStrings(cidrs)), "may specify no more than one CIDR for each IP family");
  if (sp.podCIDR && cidrs.length && cidrs[0] !== sp.podCIDR) e.invalid("spec.podCIDR", sp.podCIDR, "must match the first element of spec.podCIDRs");
  if (!old) return;
  const was: Obj = old.spec ?? {};
  if (list(was.podCIDRs).length && !same(cidrs, was.podCIDRs)) e.forbidden("spec.podCIDRs", "node updates may not change podCIDR except from \"\" to valid");
  if (was.providerID && sp.providerID !== was.providerID) e.forbidden("spec.providerID", "node updates may only set providerID except from \"\" to valid");
});
