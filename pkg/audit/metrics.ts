// Upstream's audit metrics, on the server's registry.
import client from "prom-client";

export class AuditMetrics {
  readonly events: client.Counter<string>;
  readonly errors: client.Counter<string>;
  readonly levels: client.Counter<string>;
  readonly rejected: client.Counter<string>;

  constructor(registry: client.Registry) {
    const registers = [registry];
    this.events = new client.Counter({ name: "apiserver_audit_event_total", help: "Counter of audit events generated and sent to the audit backend.", registers });
    this.errors = new client.Counter({ name: "apiserver_audit_error_total", help: "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.", labelNames: ["plugin"], registers });
    this.levels = new client.Counter({ name: "apiserver_audit_level_total", help: "Counter of policy levels for audit events (1 per request).", labelNames: ["level"], registers });
    this.rejected = new client.Counter({ name: "apiserver_audit_requests_rejected_total", help: "Counter of apiserver requests rejected due to an error in audit logging backend.", registers });
  }
}
