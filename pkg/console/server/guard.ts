// The console's defence against other web pages: the API answers with the kubeconfig's credentials, so a
// request is served only when it carries this start's token (a cookie the printed address sets: HttpOnly,
// SameSite=Strict, so no other site can send it), names this server in Host (no DNS rebinding) and, when
// the browser sends one, an Origin that is this server.
import { timingSafeEqual } from "node:crypto";

export const COOKIE = "kite-console";

export class Guard {
  /** The hosts this server answers to: the bound address, and localhost names for a loopback bind. */
  private readonly hosts: Set<string>;
  /** Bound to every address: any IP literal of this machine may be in Host, but no name (DNS rebinding uses names). */
  private readonly wildcard: boolean;

  constructor(readonly token: string, address: string, private readonly port: number) {
    const names = [address.includes(":") ? `[${address}]` : address];
    if (isLoopback(address)) names.push("localhost", "127.0.0.1", "[::1]");
    this.hosts = new Set(names.map((h) => `${h}:${port}`));
    this.wildcard = isWildcard(address);
  }

  private isThis(host: string): boolean {
    if (this.hosts.has(host)) return true;
    if (!this.wildcard || !host.endsWith(`:${this.port}`)) return false;
    const name = host.slice(0, -`:${this.port}`.length);
    return name === "localhost" || /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || /^\[[0-9a-f:.]+\]$/i.test(name);
  }

  /** A fresh random token for one start of the console. */
  static newToken(): string {
    return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
  }

  /** Why the request is refused (a short sentence), or undefined when it may pass. */
  refuse(req: Request): string | undefined {
    const host = req.headers.get("host") ?? "";
    if (!this.isThis(host)) return `host ${JSON.stringify(host)} is not this console`;
    const origin = req.headers.get("origin");
    if (origin !== null && origin !== `http://${host}`) return `origin ${origin} is not this console`;
    if (req.headers.get("sec-fetch-site") === "cross-site") return "cross-site request";
    return undefined;
  }

  /** Whether the request carries the session cookie of this start. */
  hasSession(req: Request): boolean {
    return this.matches(cookieOf(req, COOKIE));
  }

  matches(candidate: string | undefined): boolean {
    if (!candidate) return false;
    const a = Buffer.from(candidate), b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** The Set-Cookie value of a session. */
  sessionCookie(): string {
    return `${COOKIE}=${this.token}; Path=/; HttpOnly; SameSite=Strict`;
  }
}

export const isWildcard = (address: string) => address === "0.0.0.0" || address === "::";

export function isLoopback(address: string): boolean {
  return address === "localhost" || address === "::1" || /^127\./.test(address);
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}
