// The HTTP front: filters (recovery → request info → authentication → audit → authorization → limits
// (limiter.ts) → timeout → warnings) around the router, which sends resource requests to one generic handler per verb.
import type { Server } from "bun";
import type { X509Certificate } from "node:crypto";
import { type AuthFilters, authenticateAndAuthorize } from "../auth/filter.ts";
import { ANONYMOUS, type UserInfo } from "../auth/user.ts";
import type { AuditRecord, Auditor } from "../audit/auditor.ts";
import { consola } from "consola";
import type { Registry } from "../registry/registry.ts";
import type { Discovery } from "./discovery.ts";
import { bind } from "./handlers/binding.ts";
import { evict } from "./handlers/eviction.ts";
import { create } from "./handlers/create.ts";
import type { HandlerContext } from "./handlers/context.ts";
import { del, deleteCollection } from "./handlers/delete.ts";
import { get } from "./handlers/get.ts";
import { list } from "./handlers/list.ts";
import { patch } from "./handlers/patch.ts";
import { encodingOf } from "./handlers/stream.ts";
import { DEFAULT_KUBELET_CLIENT, type KubeletClient, podLog } from "./handlers/podlog.ts";
import { podExec } from "./handlers/podexec.ts";
import { proxy } from "./handlers/proxy.ts";
import { podPortForward } from "./handlers/podportforward.ts";
import { type Reviews, review } from "./handlers/review.ts";
import { supportsAs } from "./handlers/transform.ts";
import { canEncode } from "../protobuf/index.ts";
import { type ResourceDef, type Subresource, apiVersionOf } from "../registry/types.ts";
import { deprecationWarning } from "./deprecation.ts";
import { scale } from "./handlers/scale.ts";
import { update } from "./handlers/update.ts";
import { watch } from "./handlers/watch.ts";
import type { Health } from "./health.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { Features } from "../features/featuregate.ts";
import { Turns, isHeavy } from "./heavy.ts";
import type { Admitted, Limiter } from "./limiter.ts";
import { negotiate } from "./negotiate.ts";
import type { RawPath } from "./rawpath.ts";
import { parseRequestInfo, type RequestInfo } from "./requestinfo.ts";
import { StatusError, internal, methodNotAllowed } from "./status.ts";
import { VERSION_INFO } from "../version.ts";
import type { ResponseHeaders } from "./response-headers.ts";

export interface ServerOptions {
  requestTimeoutMs: number;
  minRequestTimeoutSeconds: number;
  features: Features;
  /** True when responses should close their connections (descriptors are running short). */
  closeConnections?: () => boolean;
  /** Authentication and authorization; without them every request is anonymous and allowed. */
  auth?: AuthFilters;
  /** The verified client certificate chain of the connection a request came on, if any. */
  clientCertificates?: (req: Request, server?: Server<undefined>) => X509Certificate[] | undefined;
  /** The client's address, for audit events; absent, the connection's peer address. */
  sourceAddress?: (req: Request) => string | undefined;
  /** Whether a request is the TLS front's check of a SPDY upgrade (../api/streaming/spdyupgrade.ts). */
  upgradeCheck?: (req: Request) => boolean;
  /** The kinds answered instead of stored (TokenReview, SubjectAccessReview, ...), by group/resource. */
  reviews?: Reviews;
  /** How pods/log reaches the node agents (the --kubelet-* flags). */
  kubelet?: KubeletClient;
  /** serviceaccounts/token (TokenRequest): the server assembles it around its token issuer. */
  tokenRequest?: (ctx: HandlerContext) => Promise<Response>;
  /** The in-flight limits or priority and fairness (limiter.ts); none: no limit. */
  limiter?: Limiter;
  /** The audit filter (--audit-policy-file); absent, requests are not audited at all. */
  audit?: Auditor;
  /** The types --runtime-config leaves on (all when unset); the others answer 404, their objects stay stored. */
  enabled?: (def: ResourceDef) => boolean;
  /** CORS and HSTS headers (--cors-allowed-origins, --strict-transport-security-directives). */
  responseHeaders?: ResponseHeaders;
}

/** Extra routes (OpenAPI, metrics) answered before the resource router; undefined passes on. */
export type Route = (req: Request, url: URL) => Response | undefined | Promise<Response | undefined>;

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);
/** Subresources upstream serves as long-running requests: no request timeout, no in-flight slot. */
const LONG_RUNNING_SUBRESOURCES = new Set(["log", "exec", "attach", "portforward", "proxy"]);
const longRunning = (info: RequestInfo) => info.verb === "watch" || info.verb === "proxy" || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));

function statusResponse(e: StatusError): Response {
  const headers: Record<string, string> = { "Content-Type": "application/json", ...(e.headers ?? {}) };
  return new Response(JSON.stringify(e.toStatus()), { status: e.code, headers });
}

export class ApiHandler {
  private inflight = { readonly: 0, mutating: 0 };
  private heavy = new Turns();
  /** Aborted on shutdown: open watches end so the server can drain. */
  readonly shutdown = new AbortController();
  /** Each request's server, for the subresources that upgrade it (exec). */
  private readonly servers = new WeakMap<Request, Server<undefined>>();

  constructor(
    private registry: Registry,
    private discovery: Discovery,
    private health: Health,
    private opts: ServerOptions,
    private routes: Route[] = [],
    private metrics?: Metrics,
  ) {}

  /**
   * The whole filter chain for one request, inside the response headers' filter (CORS preflights end
   * there). `server` lets a watch outlive the idle timeout; `raw` is the path as sent (rawpath.ts), absent
   * only for in-process callers.
   */
  async handle(req: Request, server?: Server<undefined>, raw?: RawPath): Promise<Response> {
    const headers = this.opts.responseHeaders;
    if (!headers) return this.filtered(req, server, raw);
    return headers.preflight(req) ?? headers.apply(req, await this.filtered(req, server, raw));
  }

  private async filtered(req: Request, server?: Server<undefined>, raw?: RawPath): Promise<Response> {
    const t0 = performance.now();
    if (server) this.servers.set(req, server);
    let info: RequestInfo | undefined;
    let res: Response;
    const audit = this.opts.audit;
    let record: AuditRecord | undefined;
    let panicked = false;
    try {
      const url = requestURL(req);
      const ri = (info = parseRequestInfo(req.method, url, raw));
      // A watch (a followed log) is quiet for minutes at a time; the idle timeout is for connections between requests.
      if (longRunning(info)) server?.timeout(req, 0);
      const auth = this.opts.auth;
      const audited = async (u: UserInfo) => {
        record = audit!.begin(req, ri, u, this.sourceAddress(req, server), t0, longRunning(ri));
        await record?.received();
      };
      const steps = audit && { authenticated: audited, impersonated: (u: UserInfo) => record?.impersonated(u), authorized: (d: "allow" | "forbid", r: string) => record?.authorized(d, r) };
      const user = auth && (await authenticateAndAuthorize(auth, info, { headers: req.headers, clientCertificates: this.opts.clientCertificates?.(req, server) }, steps));
      if (audit && !auth) await audited(ANONYMOUS);
      res = await this.limited(req, url, info, user);
    } catch (e) {
      if (e instanceof StatusError) res = statusResponse(e);
      else {
        panicked = true;
        consola.error(`${req.method} ${req.url}:`, e);
        res = statusResponse(internal((e as Error)?.message ?? String(e)));
      }
    }
    if (audit && info) res = await this.audited(audit, record, req, info, res, panicked, t0, server);
    if (info?.isResourceRequest && this.metrics) this.record(info, res.status, performance.now() - t0);
    if (this.opts.closeConnections?.()) res.headers.set("Connection", "close");
    return res;
  }

  /** The request's audit events after the handler; a caller that failed authentication is recorded too. */
  private sourceAddress(req: Request, server?: Server<undefined>): string | undefined {
    return this.opts.sourceAddress ? this.opts.sourceAddress(req) : server?.requestIP(req)?.address;
  }

  private async audited(audit: Auditor, record: AuditRecord | undefined, req: Request, info: RequestInfo, res: Response, panicked: boolean, t0: number, server?: Server<undefined>): Promise<Response> {
    try {
      if (record) return await record.finish(res, panicked);
      if (res.status !== 401) return res;
      const anonymous = audit.begin(req, info, { name: "", groups: [] }, this.sourceAddress(req, server), t0, false);
      return anonymous ? await anonymous.unauthenticated(res) : res;
    } catch (e) {
      consola.error(`audit: ${(e as Error).message}`);
      return res;
    }
  }

  /** Request metrics, labelled as upstream labels them. */
  private record(info: RequestInfo, code: number, ms: number) {
    const verb = ({ create: "POST", update: "PUT" } as Record<string, string>)[info.verb] ?? info.verb.toUpperCase();
    const scope = info.name ? "resource" : info.namespace ? "namespace" : "cluster";
    this.metrics!.recordRequest(verb, info.group, info.version, info.resource, info.subresource, scope, code, ms / 1000);
  }

  /**
   * The limit (limiter.ts): over it a request waits its turn or is told to retry (429), never queued
   * without bound. Long-running requests (watches, logs, exec) are not counted.
   */
  private async limited(req: Request, url: URL, info: RequestInfo, user?: UserInfo): Promise<Response> {
    if (longRunning(info)) return this.route(req, url, info, user);
    const kind = MUTATING.has(info.verb) ? "mutating" : "readonly";
    let admitted: Admitted | undefined;
    try {
      admitted = await this.opts.limiter?.admit(info, user, kind);
    } catch (e) {
      this.metrics?.dropped.inc({ request_kind: kind === "mutating" ? "mutating" : "readOnly" });
      throw e;
    }
    this.inflight[kind]++;
    this.metrics?.setInflight(kind, this.inflight[kind]);
    // The slot is held until the handler is done — its body encoded, when it streams — even when the
    // client was answered 504 before that.
    const work = kind === "mutating" && isHeavy(req) ? this.heavyTurn(req, url, info, user) : this.route(req, url, info, user);
    const release = () => {
      admitted?.release();
      this.inflight[kind]--;
      this.metrics?.setInflight(kind, this.inflight[kind]);
    };
    let res: Response;
    try {
      res = await (info.isResourceRequest ? this.withTimeout(work, url) : work);
    } catch (e) {
      // Failed, or timed out: a response that comes later is never sent, so its body is not encoded.
      work.then((late) => { void late.body?.cancel().catch(() => {}); release(); }, release);
      throw e;
    }
    const encoding = encodingOf(res);
    if (encoding) {
      // A client that goes away may leave its stream neither read to the end nor cancelled.
      const gone = new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve(), { once: true }));
      void Promise.race([encoding, gone]).then(release);
    } else release();
    for (const [k, v] of admitted?.headers ?? []) res.headers.set(k, v);
    return res;
  }

  private async heavyTurn(req: Request, url: URL, info: RequestInfo, user?: UserInfo): Promise<Response> {
    const done = await this.heavy.take();
    try {
      return await this.route(req, url, info, user);
    } finally {
      done();
    }
  }

  private async withTimeout(work: Promise<Response>, url: URL): Promise<Response> {
    const ms = Math.min(this.opts.requestTimeoutMs, timeoutParam(url) ?? Infinity);
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StatusError(504, "Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request", { retryAfterSeconds: 0 })), ms);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async route(req: Request, url: URL, info: RequestInfo, user?: UserInfo): Promise<Response> {
    if (info.isResourceRequest) return this.resource(req, url, info, user);
    const path = url.pathname;
    const health = await this.health.handle(url);
    if (health) return health;
    if (path === "/version" || path === "/version/") return Response.json(VERSION_INFO);
    for (const r of this.routes) {
      const res = await r(req, url);
      if (res) return res;
    }
    if (req.method === "GET") {
      const d = this.discovery.handle(path, req.headers.get("accept"));
      if (d) return d;
    }
    if (path === "/") return Response.json({ paths: ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/openapi/v2", "/openapi/v3", "/version"] });
    throw new StatusError(404, "NotFound", "the server could not find the requested resource", {});
  }

  private async resource(req: Request, url: URL, info: RequestInfo, user?: UserInfo): Promise<Response> {
    const rs = this.registry.lookup(info.group, info.version, info.resource);
    if (!rs || (this.opts.enabled && !this.opts.enabled(rs.def)) || (info.parts.length > 3 && info.subresource !== "proxy") || (info.namespace && !rs.def.namespaced && info.resource !== "namespaces")) {
      throw new StatusError(404, "NotFound", "the server could not find the requested resource", {});
    }
    if (info.subresource && !(rs.def.subresources ?? []).includes(info.subresource as Subresource)) {
      throw new StatusError(404, "NotFound", "the server could not find the requested resource", {});
    }
    if (rs.def.namespaced && !info.namespace && info.name) {
      throw new StatusError(404, "NotFound", "the server could not find the requested resource", {});
    }
    // a proxied answer is the upstream's: the Accept header is its business (errors still come as JSON)
    const rep = negotiate(info.subresource === "proxy" ? null : req.headers.get("accept"), supportsAs(info.verb), canEncode(apiVersionOf(rs.def), rs.def.kind));
    const ctx: HandlerContext = { req, url, info, rs, rep, signal: this.shutdown.signal, warnings: [], features: this.opts.features, user, authz: this.opts.auth?.authz };
    // Across all namespaces a namespaced collection is only listed and watched, as upstream registers it.
    if (rs.def.namespaced && !info.namespace && !info.name && info.verb !== "list" && info.verb !== "watch") {
      throw methodNotAllowed(`the server does not allow this method on the requested resource`);
    }
    const allowed = (rs.def.verbs ?? null);
    if (allowed && !allowed.includes(info.verb as never)) throw methodNotAllowed(`${info.verb} is not supported on ${info.resource}`);
    if (rs.def.deprecated) {
      ctx.warnings.push(deprecationWarning(rs.def));
      this.metrics?.deprecatedRequested(info.group, info.version, info.resource, info.subresource, rs.def.deprecated.removedIn ?? "");
    }
    if (info.subresource === "binding" || (rs.def.kind === "Binding" && !rs.def.group)) return bind(ctx, this.registry);
    if (info.subresource === "eviction") return evict(ctx, this.registry);
    const answer = this.opts.reviews?.get(`${info.group}/${info.resource}`);
    if (answer && info.verb === "create" && !info.subresource && !info.name) return review(ctx, answer);
    if (info.subresource) {
      if (info.subresource === "log") return podLog(ctx, this.registry, this.opts.kubelet ?? DEFAULT_KUBELET_CLIENT);
      if (info.subresource === "proxy") return proxy(ctx, this.registry, this.opts.kubelet ?? DEFAULT_KUBELET_CLIENT, this.servers.get(req));
      const stream = () => ({ server: this.servers.get(req), upgradeCheck: this.opts.upgradeCheck?.(req) ?? false });
      if (info.subresource === "exec") return podExec(ctx, this.registry, this.opts.kubelet ?? DEFAULT_KUBELET_CLIENT, stream());
      if (info.subresource === "attach") return podExec(ctx, this.registry, this.opts.kubelet ?? DEFAULT_KUBELET_CLIENT, stream(), "attach");
      if (info.subresource === "portforward") return podPortForward(ctx, this.registry, this.opts.kubelet ?? DEFAULT_KUBELET_CLIENT, stream());
      if (info.subresource === "token") {
        if (!this.opts.tokenRequest) throw new StatusError(404, "NotFound", "the server could not find the requested resource", {});
        return this.opts.tokenRequest(ctx);
      }
      if (info.subresource === "scale") return scale(ctx);
      const statusLike = info.subresource === "status" || info.subresource === "approval";
      if (statusLike && info.verb === "get") return get(ctx);
      if (info.verb === "update") return update(ctx);
      if (info.verb === "patch" && statusLike) return patch(ctx);
      throw methodNotAllowed(`the server does not allow this method on the requested resource`);
    }
    switch (info.verb) {
      case "get": return get(ctx);
      case "list": return list(ctx);
      case "watch": return watch(ctx, this.opts);
      case "create":
        if (info.name) throw methodNotAllowed(`the server does not allow this method on the requested resource`);
        return create(ctx);
      case "update":
        if (!info.name) throw methodNotAllowed(`the server does not allow this method on the requested resource`);
        return update(ctx);
      case "patch":
        if (!info.name) throw methodNotAllowed(`the server does not allow this method on the requested resource`);
        return patch(ctx);
      case "delete": return del(ctx);
      case "deletecollection": return deleteCollection(ctx);
    }
    throw methodNotAllowed(`the server does not allow this method on the requested resource`);
  }
}

/** An HTTP/1.0 request may come without a Host header; Bun then gives only the path. */
function requestURL(req: Request): URL {
  return URL.parse(req.url) ?? new URL(req.url, "https://localhost");
}

function timeoutParam(url: URL): number | undefined {
  const t = url.searchParams.get("timeout");
  if (!t) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(t);
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] === "ms" ? n : m[2] === "m" ? n * 60000 : n * 1000;
}

