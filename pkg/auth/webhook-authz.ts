// --authorization-mode=Webhook: each decision is a SubjectAccessReview POSTed to the webhook of
// --authorization-webhook-config-file (authorization.k8s.io v1beta1 or v1). Allowed allows, denied denies
// (and stops the chain), neither is no opinion; a failed call is no opinion with the error, as upstream.
// Answers are cached by the review's spec: allowed ones for the authorized TTL, the rest for the other.
import { type Attributes, type Authorizer, type Decision } from "./authorize.ts";
import { loadWebhookConfig, postWebhook, type Backoff, type WebhookTarget } from "./webhook-client.ts";

export interface WebhookAuthzOptions {
  configFile: string;
  /** --authorization-webhook-version */
  version: "v1" | "v1beta1";
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
}

type Status = { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };

/** Reviews of very long names, paths and groups are not kept (upstream's bound). */
const MAX_CACHED_ATTR_SIZE = 10_000;
const CACHE_ENTRIES = 8192;

const omitEmpty = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== "" && v !== undefined && !(Array.isArray(v) && !v.length)));

/** The review's spec in the wire form of `version` (v1beta1 calls the groups `group`). */
export function reviewSpec(a: Attributes, version: "v1" | "v1beta1"): Record<string, unknown> {
  const target = a.isResourceRequest
    ? { resourceAttributes: omitEmpty({ namespace: a.namespace, verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name }) }
    : { nonResourceAttributes: omitEmpty({ path: a.path, verb: a.verb }) };
  const extra = a.user.extra && Object.keys(a.user.extra).length ? a.user.extra : undefined;
  return { ...target, ...omitEmpty({ user: a.user.name, [version === "v1" ? "groups" : "group"]: a.user.groups, extra, uid: a.user.uid }) };
}

function attributeSize(a: Attributes): number {
  return [a.user.name, a.user.uid ?? "", a.namespace, a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name, a.path, ...a.user.groups]
    .reduce((n, s) => n + s.length, 0) + Object.entries(a.user.extra ?? {}).reduce((n, [k, vs]) => n + k.length + vs.join("").length, 0);
}

export class WebhookAuthorizer implements Authorizer {
  private cache = new Map<string, { status: Status; expires: number }>();

  constructor(private target: WebhookTarget, private o: WebhookAuthzOptions, private backoff?: Backoff) {}

  static fromOptions(o: WebhookAuthzOptions): WebhookAuthorizer {
    return new WebhookAuthorizer(loadWebhookConfig(o.configFile), o);
  }

  async authorize(a: Attributes): Promise<Decision> {
    const spec = reviewSpec(a, this.o.version);
    const key = JSON.stringify(spec);
    let status = this.cached(key);
    if (!status) {
      const review = { apiVersion: `authorization.k8s.io/${this.o.version}`, kind: "SubjectAccessReview", metadata: { creationTimestamp: null }, spec, status: { allowed: false } };
      try {
        status = ((await postWebhook(this.target, review, this.backoff)).status ?? {}) as Status;
      } catch (e) {
        return { decision: "noOpinion", error: (e as Error).message };
      }
      if (attributeSize(a) < MAX_CACHED_ATTR_SIZE) this.remember(key, status);
    }
    const reason = typeof status.reason === "string" ? status.reason : "";
    if (status.denied && status.allowed) return { decision: "deny", reason, error: "webhook subject access review returned both allow and deny response" };
    if (status.denied) return { decision: "deny", reason };
    if (status.allowed) return { decision: "allow", reason };
    return { decision: "noOpinion", reason };
  }

  private cached(key: string): Status | undefined {
    const hit = this.cache.get(key);
    if (!hit) return undefined;
    if (hit.expires > Date.now()) return hit.status;
    this.cache.delete(key);
    return undefined;
  }

  private remember(key: string, status: Status) {
    const ttl = status.allowed ? this.o.authorizedTTLMs : this.o.unauthorizedTTLMs;
    if (ttl <= 0) return;
    if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { status, expires: Date.now() + ttl });
  }
}
