// Admission metrics as upstream's apiserver names them: per step (mutating "admit", "validate"), per
// in-tree plugin, per webhook, and webhook rejections. Observed as plain numbers (./plain.ts).
import client from "prom-client";
import { PlainHistogram } from "./plain.ts";

const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
export type StepType = "admit" | "validate";
/** Webhook metrics name the validating kind "validating", as upstream does. */
export type WebhookType = "admit" | "validating";

export class AdmissionMetrics {
  private step = new PlainHistogram("apiserver_admission_step_admission_duration_seconds", "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).", ["operation", "rejected", "type"], BUCKETS);
  private controller = new PlainHistogram("apiserver_admission_controller_admission_duration_seconds", "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).", ["name", "operation", "rejected", "type"], BUCKETS);
  private webhook = new PlainHistogram("apiserver_admission_webhook_admission_duration_seconds", "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).", ["name", "operation", "rejected", "type"], BUCKETS);
  private rejections: client.Counter<string>;

  constructor(registry: client.Registry) {
    for (const m of [this.step, this.controller, this.webhook]) registry.registerMetric(m as never);
    // rare (a webhook's refusal or failure): prom-client's own counter
    this.rejections = new client.Counter({
      name: "apiserver_admission_webhook_rejection_count",
      help: "Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
      labelNames: ["error_type", "name", "operation", "rejection_code", "type"],
      registers: [registry],
    });
  }

  observeStep(operation: string, type: StepType, rejected: boolean, seconds: number) {
    this.step.observe([operation, String(rejected), type], seconds);
  }

  observePlugin(name: string, operation: string, type: StepType, rejected: boolean, seconds: number) {
    this.controller.observe([name, operation, String(rejected), type], seconds);
  }

  observeWebhook(name: string, operation: string, type: WebhookType, rejected: boolean, seconds: number) {
    this.webhook.observe([name, operation, String(rejected), type], seconds);
  }

  /** errorType: calling_webhook_error, apiserver_internal_error or no_error; code 0 when none was given. */
  rejectedByWebhook(name: string, operation: string, type: WebhookType, errorType: string, code: number) {
    // labels in alphabetical order, as upstream's client writes them
    this.rejections.inc({ error_type: errorType, name, operation, rejection_code: String(Math.min(code, 600)), type });
  }
}
