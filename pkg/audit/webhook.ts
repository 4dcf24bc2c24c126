// The webhook backend: EventLists POSTed to the service a kubeconfig-format file names, retried with
// exponential back-off from --audit-webhook-initial-backoff.
import { type WebhookTarget, loadWebhookConfig, postWebhook } from "../auth/webhook-client.ts";
import type { AuditEvent } from "./event.ts";
import type { Backend } from "./sink.ts";

export class WebhookBackend implements Backend {
  readonly name = "webhook";
  private target: WebhookTarget;

  constructor(configFile: string, private version: string, private initialBackoffMs: number) {
    this.target = loadWebhookConfig(configFile);
  }

  async send(events: AuditEvent[]) {
    const items = events.map((ev) => ({ ...ev, apiVersion: this.version }));
    await postWebhook(this.target, { kind: "EventList", apiVersion: this.version, metadata: {}, items }, { initialMs: this.initialBackoffMs, factor: 1.5, steps: 5 });
  }
}
