// Audit events (audit.k8s.io/v1 Event) and their two line formats: JSON, and upstream's one-line legacy form.
import type { Level, Stage } from "./policy.ts";

export interface EventUser { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }

export interface ObjectRef { resource?: string; namespace?: string; name?: string; apiGroup?: string; apiVersion?: string; subresource?: string }

export interface AuditEvent {
  kind: "Event";
  apiVersion: string;
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: EventUser;
  impersonatedUser?: EventUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: ObjectRef;
  responseStatus?: { metadata: Record<string, never>; status?: string; message?: string; reason?: string; code: number };
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const quoted = (s: string) => JSON.stringify(s);
const list = (xs: string[]) => xs.map(quoted).join(",");

/** The legacy format: one `AUDIT:` line per event with the request's main facts, as upstream prints it. */
export function legacyLine(ev: AuditEvent): string {
  const user = ev.user.username || "<none>";
  const groups = ev.user.username && ev.user.groups?.length ? list(ev.user.groups) : "<none>";
  const as = ev.impersonatedUser ? ev.impersonatedUser.username : "<self>";
  const asGroups = ev.impersonatedUser?.groups ? list(ev.impersonatedUser.groups) : "<lookup>";
  const ns = ev.objectRef?.namespace || "<none>";
  const response = ev.responseStatus ? String(ev.responseStatus.code) : "<deferred>";
  const time = ev.requestReceivedTimestamp.replace(/\.?0+Z$/, "Z");
  return `${time} AUDIT: id=${quoted(ev.auditID)} stage=${quoted(ev.stage)} ip=${quoted(ev.sourceIPs[0] ?? "<unknown>")} method=${quoted(ev.verb)} user=${quoted(user)} groups=${quoted(groups)} as=${quoted(as)} asgroups=${quoted(asGroups)} user-agent=${quoted(ev.userAgent ?? "")} namespace=${quoted(ns)} uri=${quoted(ev.requestURI)} response="${response}"`;
}

export const TRUNCATED = "audit.k8s.io/truncated";

/**
 * An event made to fit `maxBytes` as upstream's truncating backend does: first without its request and
 * response objects (marked truncated), and dropped (undefined) when even that is too large.
 */
export function truncated(ev: AuditEvent, maxBytes: number): AuditEvent | undefined {
  if (JSON.stringify(ev).length <= maxBytes) return ev;
  const { requestObject: _q, responseObject: _r, ...rest } = ev;
  const small: AuditEvent = { ...rest, annotations: { ...(ev.annotations ?? {}), [TRUNCATED]: "true" } };
  return JSON.stringify(small).length <= maxBytes ? small : undefined;
}
