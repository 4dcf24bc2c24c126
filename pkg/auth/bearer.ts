// Where a request carries its bearer token: the Authorization header, or (for WebSocket requests, whose
// browsers cannot set headers) a Sec-WebSocket-Protocol entry. A token no token kind accepts is a 401,
// never anonymous; an empty one is no credential at all.
import { type Authenticated, type Authenticator, AuthenticationError, type Credentials } from "./authenticate.ts";
import type { TokenAuthenticator } from "./token.ts";

const INVALID = "invalid bearer token";

/** Asks the token kinds about a token found in a request; none vouching is a failed credential. */
async function vouch(tokens: TokenAuthenticator, token: string, audiences: string[]): Promise<Authenticated> {
  const r = await tokens.authenticateToken(token, audiences);
  if (!r) throw new AuthenticationError(INVALID);
  return r;
}

/** `Authorization: Bearer <token>` (the scheme in any case). */
export function bearerAuthenticator(tokens: TokenAuthenticator, audiences: string[]): Authenticator {
  return {
    authenticate(c: Credentials) {
      const header = c.headers.get("authorization")?.trim();
      if (!header) return null;
      const parts = header.split(" ");
      if (parts.length < 2 || parts[0].toLowerCase() !== "bearer" || parts[1] === "") return null;
      return vouch(tokens, parts[1], audiences);
    },
  };
}

export const WEBSOCKET_TOKEN_PREFIX = "base64url.bearer.authorization.k8s.io.";

function isWebSocket(h: Headers): boolean {
  return (h.get("upgrade") ?? "").toLowerCase() === "websocket" && /(^|,)\s*upgrade\s*(,|$)/.test((h.get("connection") ?? "").toLowerCase());
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The token of a `base64url.bearer.authorization.k8s.io.<base64url token>` subprotocol, if one is offered. */
function protocolToken(h: Headers): string {
  let token = "", seen = false, others = 0;
  for (const p of (h.get("sec-websocket-protocol") ?? "").split(",").map((x) => x.trim())) {
    if (!p.startsWith(WEBSOCKET_TOKEN_PREFIX)) {
      others++;
      continue;
    }
    if (seen) throw new AuthenticationError("multiple base64.bearer.authorization tokens specified");
    seen = true;
    const encoded = p.slice(WEBSOCKET_TOKEN_PREFIX.length);
    if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) throw new AuthenticationError("invalid base64.bearer.authorization token encoding");
    try {
      token = utf8.decode(Buffer.from(encoded, "base64url"));
    } catch {
      throw new AuthenticationError("invalid base64.bearer.authorization token");
    }
  }
  // Another subprotocol must remain for the server to echo back once the token's is dropped.
  if (token && others === 0) throw new AuthenticationError("missing additional subprotocol");
  return token;
}

/** The bearer token of a WebSocket request's subprotocols. */
export function webSocketProtocolAuthenticator(tokens: TokenAuthenticator, audiences: string[]): Authenticator {
  return {
    authenticate(c: Credentials) {
      if (!isWebSocket(c.headers)) return null;
      const token = protocolToken(c.headers);
      return token ? vouch(tokens, token, audiences) : null;
    },
  };
}
