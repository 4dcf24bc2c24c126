// The audit filter's work for one request: the policy's level and stages, the event built up as the
// request goes (caller, impersonation, authorization decision, request and response objects), and one
// event per stage handed to every backend. Without --audit-policy-file none of this exists.
import { randomUUID } from "node:crypto";
import type { RequestInfo } from "../api/requestinfo.ts";
import { internal } from "../api/status.ts";
import type { UserInfo } from "../auth/user.ts";
import { microTime } from "../client/time.ts";
import { type AuditEvent, type EventUser, type ObjectRef } from "./event.ts";
import type { AuditMetrics } from "./metrics.ts";
import type { AuditPolicy, Decision, Stage } from "./policy.ts";
import type { Sink } from "./sink.ts";
import { commaList } from "../util/commalist.ts";

export const DEPRECATED_ANNOTATION = "platform.io/deprecated";
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const eventUser = (u: UserInfo): EventUser => ({
  username: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
});

/** The request's object, with only the fields it has (upstream leaves empty ones out). */
function objectRef(info: RequestInfo): ObjectRef | undefined {
  if (!info.isResourceRequest) return undefined;
  const ref: ObjectRef = { resource: info.resource };
  if (info.namespace) ref.namespace = info.namespace;
  if (info.name) ref.name = info.name;
  if (info.group) ref.apiGroup = info.group;
  if (info.version) ref.apiVersion = info.version;
  if (info.subresource) ref.subresource = info.subresource;
  return ref;
}

function withoutManagedFields(obj: any): unknown {
  if (!obj?.metadata?.managedFields) {
    if (Array.isArray(obj?.items)) return { ...obj, items: obj.items.map(withoutManagedFields) };
    return obj;
  }
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

export interface AuditorOptions {
  policy: AuditPolicy;
  sinks: Sink[];
  metrics: AuditMetrics;
  /** Whether the version a request names is deprecated (for the platform.io/deprecated annotation). */
  deprecated: (info: RequestInfo) => boolean;
}

export class Auditor {
  constructor(private o: AuditorOptions) {}

  /** A request's record once its caller is known; undefined when the policy records nothing of it. */
  begin(req: Request, info: RequestInfo, user: UserInfo, sourceIP: string | undefined, receivedMs: number, long: boolean): AuditRecord | undefined {
    const d = this.o.policy.decide({ user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path, group: info.group, namespace: info.namespace, resource: info.resource, subresource: info.subresource, name: info.name });
    this.o.metrics.levels.labels(d.level).inc();
    if (d.level === "None") return undefined;
    return new AuditRecord(this.o, d, req, info, user, sourceIP, receivedMs, long);
  }

  async close() {
    await Promise.all(this.o.sinks.map((s) => s.close()));
  }
}

export class AuditRecord {
  readonly id: string;
  private ev: AuditEvent;
  private body?: Promise<string>;

  constructor(private o: AuditorOptions, private d: Decision, req: Request, private info: RequestInfo, user: UserInfo, sourceIP: string | undefined, receivedMs: number, private long: boolean) {
    this.id = req.headers.get("audit-id") || randomUUID();
    const forwarded = commaList(req.headers.get("x-forwarded-for"));
    const real = req.headers.get("x-real-ip");
    const ips = [...forwarded, ...(real ? [real] : []), ...(sourceIP ? [sourceIP] : [])];
    // the path and query as sent (req.url is absolute, or only a path for an HTTP/1.0 request without Host)
    const uri = req.url.startsWith("/") ? req.url : req.url.slice(req.url.indexOf("/", req.url.indexOf("//") + 2));
    const received = microTime(performance.timeOrigin + receivedMs);
    this.ev = {
      kind: "Event", apiVersion: "audit.k8s.io/v1", level: d.level, auditID: this.id, stage: "RequestReceived",
      requestURI: uri, verb: info.verb, user: eventUser(user), sourceIPs: [...new Set(ips)],
      userAgent: req.headers.get("user-agent") ?? undefined, objectRef: objectRef(info),
      requestReceivedTimestamp: received, stageTimestamp: received,
    };
    if (o.deprecated(info)) this.annotate(DEPRECATED_ANNOTATION, "true");
    // the handler reads the body; a copy is kept when the level records it
    if (d.level !== "Metadata" && BODY_METHODS.has(req.method) && req.body) this.body = req.clone().text();
  }

  annotate(key: string, value: string) {
    (this.ev.annotations ??= {})[key] = value;
  }

  impersonated(u: UserInfo) { this.ev.impersonatedUser = eventUser(u); }

  authorized(decision: "allow" | "forbid", reason: string) {
    this.annotate("authorization.k8s.io/decision", decision);
    this.annotate("authorization.k8s.io/reason", reason);
  }

  /** Emits the RequestReceived stage; in blocking-strict mode a failure to record it fails the request. */
  received(): Promise<void> {
    return this.emit("RequestReceived");
  }

  private async emit(stage: Stage): Promise<void> {
    if (this.d.omitStages.has(stage)) return;
    const ev: AuditEvent = { ...this.ev, stage, stageTimestamp: microTime(Date.now()) };
    if (ev.annotations) ev.annotations = { ...ev.annotations };
    this.o.metrics.events.inc();
    const failures = await Promise.allSettled(this.o.sinks.map((s) => s.emit(ev)));
    const failed = failures.find((r) => r.status === "rejected");
    if (failed && stage === "RequestReceived") {
      this.o.metrics.rejected.inc();
      throw internal(`failed to store audit event: ${((failed as PromiseRejectedResult).reason as Error)?.message}`);
    }
  }

  private async fill(res: Response) {
    const ev = this.ev;
    ev.responseStatus = { metadata: {}, code: res.status };
    const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
    if (res.status >= 400 && json) {
      const s = await res.clone().json().catch(() => undefined) as any;
      if (s?.kind === "Status") ev.responseStatus = { metadata: {}, status: s.status, message: s.message, reason: s.reason || undefined, code: res.status };
    }
    if (this.d.level === "Metadata") return;
    const strip = (o: unknown) => (this.d.omitManagedFields ? withoutManagedFields(o) : o);
    if (this.body) {
      const text = await this.body.catch(() => "");
      try {
        const obj = JSON.parse(text);
        ev.requestObject = strip(obj);
        if (ev.objectRef && !ev.objectRef.name && obj?.metadata?.name && this.info.verb === "create") ev.objectRef.name = obj.metadata.name;
      } catch { /* a body that is not JSON (protobuf, YAML) is left out */ }
    }
    if (this.d.level === "RequestResponse" && json && !this.long && res.status < 400) {
      ev.responseObject = strip(await res.clone().json().catch(() => undefined));
    }
  }

  /**
   * The response is ready: ResponseComplete (Panic when the handler failed unexpectedly), or for a
   * long-running request ResponseStarted now and ResponseComplete once its body ends. Returns the
   * response to send, with its Audit-ID header.
   */
  async finish(res: Response, panicked: boolean): Promise<Response> {
    await this.fill(res);
    res.headers.set("Audit-ID", this.id);
    if (panicked) { await this.emit("Panic"); return res; }
    if (!this.long || !res.body || res.status === 101) { await this.emit("ResponseComplete"); return res; }
    await this.emit("ResponseStarted");
    return new Response(onEnd(res.body, () => void this.emit("ResponseComplete")), { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  /** A request whose caller could not be authenticated: one event at ResponseStarted, as upstream records it. */
  async unauthenticated(res: Response): Promise<Response> {
    await this.fill(res);
    res.headers.set("Audit-ID", this.id);
    await this.emit("ResponseStarted");
    return res;
  }
}

/** `body`, calling `done` once when it ends, fails, or the client goes away. */
function onEnd(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => { if (!ended) { ended = true; done(); } };
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      try {
        const r = await reader.read();
        if (r.done) { c.close(); end(); } else c.enqueue(r.value);
      } catch (e) {
        end();
        c.error(e);
      }
    },
    cancel(reason) { end(); return reader.cancel(reason); },
  }, { highWaterMark: 0 });
}
