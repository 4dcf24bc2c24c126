// One HTTPS connection setting for one server: credentials, TLS, retries on 429, an optional client-side
// rate limit (config.qps/burst: every attempt takes a token; a watch takes one when it is opened), and
// error answers turned into ApiError (with the server's Status) or ConnectionError (naming the server and
// the kubeconfig).
import { execCredential, type ClientConfig } from "./kubeconfig.ts";
import { ConnectionError, errorFromResponse } from "./errors.ts";
import { TokenBucket } from "./ratelimit.ts";
import { KITE_VERSION } from "../version.ts";

export interface RequestInit2 {
  method?: string;
  /** Query parameters; undefined and "" values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  body?: string;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

const USER_AGENT = `kite/${KITE_VERSION} (${process.platform}/${process.arch === "x64" ? "amd64" : process.arch})`;
const MAX_RETRIES = 5;

export class Transport {
  private readonly headers: Record<string, string>;
  private tls: Record<string, unknown>;
  /** Set when config.qps is: what every request waits on. */
  readonly rateLimiter?: TokenBucket;
  /** Requests waiting for a place when config.maxInFlight are in flight. */
  private readonly waiting: (() => void)[] = [];
  private inFlight = 0;
  /** Counts credential changes, so that of many requests refused together only the first runs the plugin again. */
  private generation = 0;

  constructor(readonly config: ClientConfig) {
    // client-go's default burst when only qps is given is 10; a burst below 1 could never send.
    if (config.qps !== undefined && config.qps > 0) this.rateLimiter = new TokenBucket(config.qps, Math.max(1, config.burst ?? 10));
    this.headers = { "User-Agent": USER_AGENT };
    if (config.token) this.headers.Authorization = `Bearer ${config.token}`;
    else if (config.username !== undefined) {
      this.headers.Authorization = `Basic ${Buffer.from(`${config.username}:${config.password ?? ""}`).toString("base64")}`;
    }
    this.tls = { rejectUnauthorized: !config.insecure };
    if (config.ca) this.tls.ca = config.ca;
    if (config.cert) this.tls.cert = config.cert;
    if (config.key) this.tls.key = config.key;
  }

  /** Told each warning the server sends (`Warning: 299 - "text"` headers), as kubectl prints them. */
  onWarning?: (text: string) => void;

  /** A new bearer token for the requests from now on (a rotated service-account token). */
  setToken(token: string): void {
    this.headers.Authorization = `Bearer ${token}`;
    this.generation++;
  }

  /** A new client certificate for the connections opened from now on (a rotated node certificate). */
  setClientCertificate(cert: string, key: string): void {
    this.tls = { ...this.tls, cert, key };
    Object.assign(this.config, { cert, key });
    this.generation++;
  }

  /** Runs the exec plugin again (client-go's refresh): its new token or certificate serve the requests from now on. */
  private refreshExec(): void {
    const exec = this.config.exec!;
    const cred = execCredential(exec.plugin, exec.cluster);
    exec.expiresAt = cred.expiresAt;
    if (cred.token) {
      this.config.token = cred.token;
      this.setToken(cred.token);
    }
    if (cred.cert && cred.key) this.setClientCertificate(cred.cert, cred.key);
  }

  /** The exec plugin's credentials have expired (or are about to be used past their expiry). */
  private execExpired(): boolean {
    const at = this.config.exec?.expiresAt;
    return at !== undefined && Date.now() >= at;
  }

  url(path: string, query?: RequestInit2["query"]): string {
    let url = this.config.server + path;
    if (query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") qs.set(k, String(v));
      const s = qs.toString();
      if (s) url += `${path.includes("?") ? "&" : "?"}${s}`;
    }
    return url;
  }

  /** Sends a request as given and returns the answer as it came, errors included (the console's proxy). */
  forward(pathAndQuery: string, init: { method: string; headers: Record<string, string>; body?: ArrayBuffer; signal?: AbortSignal }): Promise<Response> {
    if (this.execExpired()) this.refreshExec();
    return fetch(this.config.server + pathAndQuery, { ...init, headers: { ...init.headers, ...this.headers }, tls: this.tls, unix: this.config.unix } as RequestInit);
  }

  /** A WebSocket to the server (exec, attach), with the same credentials and TLS settings (Bun's options). */
  websocket(pathAndQuery: string, protocols: string[]): WebSocket {
    if (this.execExpired()) this.refreshExec();
    const url = this.config.server.replace(/^http/, "ws") + pathAndQuery;
    return new WebSocket(url, { protocols, headers: this.headers, tls: this.tls } as never);
  }

  /** Sends a request; a non-2xx answer throws ApiError, an unreachable server ConnectionError. */
  async request(path: string, init: RequestInit2 = {}): Promise<Response> {
    const url = this.url(path, init.query);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      if (this.rateLimiter) await this.rateLimiter.wait(init.signal);
      if (this.execExpired()) this.refreshExec();
      const headers: Record<string, string> = { ...this.headers, Accept: init.accept ?? "application/json" };
      if (init.contentType) headers["Content-Type"] = init.contentType;
      const sentWith = this.generation;
      const limited = this.config.maxInFlight !== undefined;
      if (limited) await this.enter();
      try {
        res = await fetch(url, { method: init.method ?? "GET", headers, body: init.body, signal: init.signal, tls: this.tls, unix: this.config.unix } as RequestInit);
      } catch (e) {
        if ((e as Error)?.name === "AbortError") throw e;
        throw new ConnectionError(this.config.server, this.config.source, e);
      } finally {
        if (limited) this.leave();
      }
      if (this.onWarning) for (const w of warningsOf(res.headers)) this.onWarning(w);
      if (res.ok) return res;
      const text = await res.text();
      // client-go's exec authenticator: a 401 runs the plugin again (once per credential) and the request is retried
      if (res.status === 401 && this.config.exec && !refreshed) {
        refreshed = true;
        if (sentWith === this.generation) this.refreshExec();
        continue;
      }
      if ((res.status === 429 || (res.status === 503 && res.headers.get("retry-after"))) && attempt < MAX_RETRIES) {
        const after = Math.min(Number(res.headers.get("retry-after")) || 1, 10);
        await Bun.sleep(after * 1000 * (attempt === 0 ? 0.25 : 1));
        continue;
      }
      throw errorFromResponse(res.status, text);
    }
  }

  private async enter(): Promise<void> {
    if (this.inFlight >= this.config.maxInFlight!) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight++;
  }

  /** The place goes to the next waiting request (the count stays), or is freed. */
  private leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  /** A request whose answer is JSON, or the binary form when the Accept header allowed it. */
  async json<T = any>(path: string, init: RequestInit2 = {}): Promise<T> {
    const res = await this.request(path, init);
    const type = (res.headers.get("content-type") ?? "").split(";")[0].trim();
    if (type === "application/vnd.kubernetes.protobuf" || type === "application/vnd.platform.protobuf") {
      // Spec §2.6: a binary reply must start with the 4-byte prefix; one that does not is refused.
      const { decodeObject } = await import("../protobuf/index.ts");
      const bytes = new Uint8Array(await res.arrayBuffer());
      try {
        return decodeObject(bytes) as T;
      } catch (e) {
        throw errorFromResponse(500, `refusing the server's binary reply to ${path}: ${(e as Error).message}`);
      }
    }
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw errorFromResponse(500, `the server answered ${path} with a body that is not JSON: ${text.slice(0, 100)}`);
    }
  }
}

/** The texts of a response's Warning headers (`299 - "text"`, several joined by commas). */
export function warningsOf(headers: Headers): string[] {
  const all = headers.get("warning");
  if (!all) return [];
  return [...all.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, "$1"));
}
