// Front-proxy authentication (--requestheader-*): an authenticating proxy in front of the server names
// the user in headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-*). The headers are believed only on
// a connection whose client certificate chains to --requestheader-client-ca-file and, when
// --requestheader-allowed-names is set, whose CommonName is one of them; from anyone else they are
// ignored. Either way they are taken off the request, so nothing after authentication reads them.
import { type Authenticated, type Authenticator, AuthenticationError, type Credentials } from "./authenticate.ts";
import { type ChainVerifier, subjectOf } from "./x509.ts";

export interface RequestHeaderOptions {
  /** --requestheader-client-ca-file */
  clientCAFile: string;
  /** --requestheader-allowed-names: CommonNames a proxy certificate may have; empty allows any. */
  allowedNames: string[];
  /** --requestheader-username-headers, in order: the first with a value names the user. */
  usernameHeaders: string[];
  /** --requestheader-group-headers: every value of each is a group. */
  groupHeaders: string[];
  /** --requestheader-extra-headers-prefix: `Prefix-Key: value` becomes extra[key] (lower case, %-decoded). */
  extraHeaderPrefixes: string[];
}

export class RequestHeaderAuthenticator implements Authenticator {
  private readonly prefixes: string[];

  constructor(private readonly o: RequestHeaderOptions, private readonly verifier: ChainVerifier) {
    this.prefixes = o.extraHeaderPrefixes.map((p) => p.toLowerCase());
  }

  authenticate(c: Credentials): Authenticated | null {
    const claimed = this.take(c.headers);
    const leaf = c.clientCertificates?.[0];
    if (!leaf) return null;
    const why = this.verifier.check(leaf);
    if (why) throw new AuthenticationError(why);
    const cn = subjectOf(leaf).get("CN")?.at(-1) ?? "";
    if (this.o.allowedNames.length && !this.o.allowedNames.includes(cn)) throw new AuthenticationError(`x509: subject with cn=${cn} is not in the allowed list`);
    return claimed ? { user: claimed } : null;
  }

  /** The identity the headers claim (null without a user name); the headers are removed from the request. */
  private take(h: Headers) {
    const name = this.o.usernameHeaders.map((n) => h.get(n)).find((v) => v) ?? "";
    // Headers joins repeated fields with ", ": each joined value is one group, as a proxy sends one per field.
    const groups = this.o.groupHeaders.flatMap((n) => h.get(n)?.split(", ") ?? []).filter((g) => g);
    const extra: Record<string, string[]> = {};
    const extraNames: string[] = [];
    if (this.prefixes.length) {
      for (const [k, v] of h) {
        const p = this.prefixes.find((p) => k.startsWith(p));
        if (!p) continue;
        extraNames.push(k);
        const key = decodeKey(k.slice(p.length));
        (extra[key] ??= []).push(...v.split(", "));
      }
    }
    for (const n of [...this.o.usernameHeaders, ...this.o.groupHeaders, ...extraNames]) h.delete(n);
    return name ? { name, groups, ...(extraNames.length ? { extra } : {}) } : null;
  }
}

/** Extra keys are %-encoded by proxies; a key that does not decode is kept as sent, as upstream. */
function decodeKey(k: string): string {
  try {
    return decodeURIComponent(k);
  } catch {
    return k;
  }
}
