// Who may call the agent's main port, as upstream's kubelet decides (its BuildAuth): client certificates
// of --client-ca-file, bearer tokens by TokenReview to the API server (--authentication-token-webhook),
// else anonymous when --anonymous-auth; then AlwaysAllow, or a SubjectAccessReview to the API server
// about the node's subresource the path falls under (nodes/proxy, nodes/log, nodes/stats, ...).
import { readFileSync } from "node:fs";
import type { X509Certificate } from "node:crypto";
import { type Authenticator, AuthenticationError, AuthenticatorChain } from "../../auth/authenticate.ts";
import { type Attributes, type Authorizer, alwaysAllow } from "../../auth/authorize.ts";
import { bearerAuthenticator, webSocketProtocolAuthenticator } from "../../auth/bearer.ts";
import { tokenWebhook } from "../../auth/token-webhook.ts";
import { TokenUnion } from "../../auth/token.ts";
import type { UserInfo } from "../../auth/user.ts";
import { WebhookAuthorizer } from "../../auth/webhook-authz.ts";
import type { WebhookTarget } from "../../auth/webhook-client.ts";
import { ChainVerifier, X509Authenticator, parseCABundle } from "../../auth/x509.ts";
import type { ClientConfig } from "../../client/kubeconfig.ts";
import type { AgentServingOptions } from "./options.ts";

/** The API server as the target of one review resource, with the agent's own credentials. */
function reviewTarget(c: ClientConfig, path: string): WebhookTarget {
  return { url: `${c.server.replace(/\/+$/, "")}${path}`, ca: c.ca, cert: c.cert, key: c.key, token: c.token, insecure: c.insecure };
}

const VERBS: Record<string, string> = { POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

/** The node's subresource a path falls under; the rest is `proxy` (upstream's subdivision of the kubelet API). */
const SUBRESOURCES: [prefix: string, subresource: string][] = [["/stats", "stats"], ["/metrics", "metrics"], ["/logs", "log"], ["/spec", "spec"]];

const isSubpath = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** What a request to the agent asks of its Node, as upstream's nodeAuthorizerAttributesGetter says it. */
export function agentAttributes(user: UserInfo, method: string, path: string, nodeName: string): Attributes {
  return {
    user, verb: VERBS[method] ?? "", isResourceRequest: true, path, apiGroup: "", apiVersion: "v1", namespace: "",
    resource: "nodes", subresource: SUBRESOURCES.find(([p]) => isSubpath(path, p))?.[1] ?? "proxy", name: nodeName,
  };
}

export class AgentAuth {
  readonly clientCAs: string[];
  private readonly authn: AuthenticatorChain;
  private readonly authz: Authorizer;

  constructor(o: AgentServingOptions, api: ClientConfig, private readonly nodeName: string) {
    const n = o.authentication;
    const authenticators: Authenticator[] = [];
    this.clientCAs = n.clientCAFile ? [readFileSync(n.clientCAFile, "utf8")] : [];
    if (n.clientCAFile) authenticators.push(new X509Authenticator(new ChainVerifier(parseCABundle(this.clientCAs[0], n.clientCAFile))));
    if (n.webhook) {
      const target = reviewTarget(api, "/apis/authentication.k8s.io/v1/tokenreviews");
      const tokens = new TokenUnion([tokenWebhook(target, { configFile: "", cacheTtlMs: n.webhookCacheTtlMs, version: "v1" }, [])]);
      authenticators.push(bearerAuthenticator(tokens, []), webSocketProtocolAuthenticator(tokens, []));
    }
    this.authn = new AuthenticatorChain(authenticators, n.anonymous);
    const z = o.authorization;
    this.authz = z.mode === "AlwaysAllow" ? alwaysAllow : new WebhookAuthorizer(reviewTarget(api, "/apis/authorization.k8s.io/v1/subjectaccessreviews"), {
      configFile: "", version: "v1", authorizedTTLMs: z.authorizedTtlMs, unauthorizedTTLMs: z.unauthorizedTtlMs,
    });
  }

  /** undefined when the request may go on; else the kubelet's plain-text refusal (401, 403, or 500 when the review failed). */
  async check(req: Request, path: string, certificates: X509Certificate[] | undefined): Promise<Response | undefined> {
    let user: UserInfo;
    try {
      user = (await this.authn.authenticate({ headers: req.headers, clientCertificates: certificates })).user;
    } catch (e) {
      if (!(e instanceof AuthenticationError)) throw e;
      return text(401, "Unauthorized");
    }
    const a = agentAttributes(user, req.method, path, this.nodeName);
    const d = await this.authz.authorize(a);
    if (d.decision === "allow") return undefined;
    const what = `(user=${a.user.name}, verb=${a.verb}, resource=${a.resource}, subresource=${a.subresource})`;
    return d.error ? text(500, `Authorization error ${what}`) : text(403, `Forbidden ${what}`);
  }
}

/** go-restful's WriteErrorString: the text as is. */
export const text = (status: number, body: string) => new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
