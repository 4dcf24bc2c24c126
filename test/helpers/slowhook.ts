// A validating admission webhook on loopback that answers after a delay: it makes a create through the
// API server take as long as a test needs (a request that holds its in-flight slot or seat).
import type { TestServer } from "./server.ts";
import { startWebhookServer } from "./webhookserver.ts";

export interface SlowHook { stop(): void }

/** ConfigMaps labelled slow=<ms> in any namespace take that long to create. */
export async function installSlowHook(s: TestServer): Promise<SlowHook> {
  const hook = startWebhookServer("slow-hook", async (req) => {
    const review = (await req.json()) as any;
    await Bun.sleep(Number(review.request.object?.metadata?.labels?.slow ?? 0));
    return Response.json({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } });
  });
  const r = await s.call("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
    metadata: { name: "slow-hook" },
    webhooks: [{
      name: "slow.example.com", sideEffects: "None", admissionReviewVersions: ["v1"], timeoutSeconds: 30,
      clientConfig: hook.clientConfig("/"),
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      objectSelector: { matchExpressions: [{ key: "slow", operator: "Exists" }] },
    }],
  }, { Authorization: "Bearer test" });
  if (r.status !== 201) throw new Error(`slow hook: ${r.status} ${JSON.stringify(r.body)}`);
  return hook;
}

/** A ConfigMap create that takes `ms` (through the slow hook). */
export const slowConfigMap = (name: string, ms: number) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { slow: String(ms) } } });
