// Defaults of admissionregistration.k8s.io/v1 webhook configurations (sideEffects and
// admissionReviewVersions have none in v1: they are required).
import type { Obj } from "../registry/types.ts";
import { fill, items, sub } from "./fill.ts";

/** A webhook's service is called on 443 unless told otherwise (also CRD conversion webhooks). */
export function defaultClientConfig(cc: Obj | undefined): void {
  const svc = sub(cc, "service");
  if (svc) fill(svc, { port: 443 });
}

function defaultWebhook(w: Obj): void {
  fill(w, { failurePolicy: "Fail", matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10 });
  for (const r of items(w, "rules")) fill(r, { scope: "*" });
  defaultClientConfig(sub(w, "clientConfig"));
}

export const defaultValidatingWebhooks = (c: Obj) => items(c, "webhooks").forEach(defaultWebhook);

export function defaultMutatingWebhooks(c: Obj): void {
  for (const w of items(c, "webhooks")) {
    defaultWebhook(w);
    fill(w, { reinvocationPolicy: "Never" });
  }
}
