// The OpenID issuer as the OIDC authenticator sees it: its discovery document, fetched in the background
// until the issuer answers (the server starts and serves while it is down; its tokens fail meanwhile), and
// its signing keys (JWKS), fetched on first use and again whenever a token names a key not yet known.
import { consola } from "consola";
import { createRemoteJWKSet, customFetch, type RemoteJWKSet } from "jose";

/** While the issuer cannot be reached, discovery is retried this often (as upstream). */
const RETRY_MS = 10_000;
/** Upstream's HTTP client timeout for the issuer. */
const TIMEOUT_MS = 30_000;
/** The least time between two JWKS fetches, so tokens naming unknown keys cannot flood the issuer. */
const JWKS_COOLDOWN_MS = 1_000;

export type IssuerFetch = (url: string, init?: RequestInit) => Promise<Response>;

/** fetch for the issuer's URLs: its certificate is checked against `ca` when given, else the host's roots. */
export function issuerFetch(ca?: string): IssuerFetch {
  return (url, init = {}) => fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(TIMEOUT_MS), ...(ca ? { tls: { ca } } : {}) } as RequestInit);
}

export class OidcIssuer {
  private jwks?: RemoteJWKSet;

  constructor(readonly issuerURL: string, private fetcher: IssuerFetch) {}

  /** Starts discovery in the background: now, then every RETRY_MS until the issuer describes itself. */
  start(): this {
    void this.discover();
    return this;
  }

  /** The issuer's key set, once discovery succeeded. */
  get keys(): RemoteJWKSet | undefined {
    return this.jwks;
  }

  private async discover() {
    try {
      this.jwks = await this.keySet();
    } catch (e) {
      consola.error(`oidc authenticator: initializing plugin: ${(e as Error).message}`);
      setTimeout(() => void this.discover(), RETRY_MS).unref();
    }
  }

  private async keySet(): Promise<RemoteJWKSet> {
    const url = `${this.issuerURL.replace(/\/$/, "")}/.well-known/openid-configuration`;
    let r: Response;
    try { r = await this.fetcher(url); } catch (e) { throw new Error(`Get ${JSON.stringify(url)}: ${(e as Error).message}`); }
    if (r.status !== 200) throw new Error(`${r.status} ${r.statusText}: ${(await r.text()).slice(0, 200)}`);
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try { doc = (await r.json()) as typeof doc; } catch (e) { throw new Error(`oidc: failed to decode provider discovery object: ${(e as Error).message}`); }
    if (doc.issuer !== this.issuerURL) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.issuerURL)} got ${JSON.stringify(doc.issuer)}`);
    if (typeof doc.jwks_uri !== "string" || !URL.canParse(doc.jwks_uri)) throw new Error(`oidc: discovery document has no valid jwks_uri: ${JSON.stringify(doc.jwks_uri)}`);
    return createRemoteJWKSet(new URL(doc.jwks_uri), { [customFetch]: this.fetcher, cooldownDuration: JWKS_COOLDOWN_MS });
  }
}
