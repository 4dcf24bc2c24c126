// admissionregistration.k8s.io/v1beta1 webhook configurations, to and from v1. The fields are the same but
// v1beta1's defaults were looser (failurePolicy Ignore, matchPolicy Exact, timeoutSeconds 30, sideEffects
// Unknown, admissionReviewVersions [v1beta1]): going to v1 they are written out so the webhook keeps its
// meaning, and a sideEffects that v1 refuses is an error.
import type { Obj } from "../../registry/types.ts";
import type { VersionRow } from "../table.ts";
import { type Convert, fill, row } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const HUB = { group: "admissionregistration.k8s.io", version: "v1" };
const V1_SIDE_EFFECTS = ["None", "NoneOnDryRun"];

function webhookDefaults(w: Obj, mutating: boolean) {
  fill(w, "failurePolicy", "Ignore");
  fill(w, "matchPolicy", "Exact");
  fill(w, "namespaceSelector", {});
  fill(w, "objectSelector", {});
  fill(w, "sideEffects", "Unknown");
  fill(w, "timeoutSeconds", 30);
  fill(w, "admissionReviewVersions", ["v1beta1"]);
  if (mutating) fill(w, "reinvocationPolicy", "Never");
  for (const r of Array.isArray(w.rules) ? w.rules : []) if (isMap(r)) fill(r, "scope", "*");
  const svc = w.clientConfig?.service;
  if (isMap(svc)) fill(svc, "port", 443);
}

const toHub = (mutating: boolean): Convert => (obj, notes) => {
  const names = new Set<unknown>();
  (Array.isArray(obj.webhooks) ? obj.webhooks : []).forEach((w: unknown, i: number) => {
    if (!isMap(w)) return;
    webhookDefaults(w, mutating);
    // v1 also requires the names of a configuration's webhooks to differ.
    if (notes.strict && names.has(w.name)) notes.error(`webhooks[${i}].name`, `Duplicate value: ${JSON.stringify(w.name)}`);
    names.add(w.name);
    if (notes.strict && !V1_SIDE_EFFECTS.includes(w.sideEffects)) {
      notes.error(`webhooks[${i}].sideEffects`, `Unsupported value: ${JSON.stringify(w.sideEffects)}: supported values: "None", "NoneOnDryRun"`);
    }
  });
  return obj;
};

const deprecated = (kind: string) => ({ in: "1.16", removedIn: "1.22", replacement: `admissionregistration.k8s.io/v1 ${kind}` });
const webhookRow = (kind: string, mutating: boolean) =>
  row({ group: "admissionregistration.k8s.io", version: "v1beta1", kind, hub: HUB, served: true, deprecated: deprecated(kind), toHub: toHub(mutating) });

export const ADMISSION_ROWS: VersionRow[] = [
  webhookRow("MutatingWebhookConfiguration", true),
  webhookRow("ValidatingWebhookConfiguration", false),
];
