// What stands between authorization and the handler: a limit on the requests being served. Either the
// plain in-flight limits (--max-requests-inflight, --max-mutating-requests-inflight) or API Priority and
// Fairness (pkg/flowcontrol), which divides their sum among priority levels.
import { MASTERS, type UserInfo } from "../auth/user.ts";
import type { RequestInfo } from "./requestinfo.ts";
import { StatusError } from "./status.ts";

export type RequestKind = "mutating" | "readonly";

/** A request let through: `release` once its work is done; `headers` go on its response. */
export interface Admitted { release: () => void; headers?: [string, string][] }

export interface Limiter {
  /** Lets the request through, possibly after a wait, or throws tooManyRequests(). */
  admit(info: RequestInfo, user: UserInfo | undefined, kind: RequestKind): Admitted | Promise<Admitted>;
}

/** Upstream's answer when a request is shed: retry in a second. */
export function tooManyRequests(headers: Record<string, string> = {}): StatusError {
  return new StatusError(429, "TooManyRequests", "Too many requests, please try again later.", { retryAfterSeconds: 1 }, { ...headers, "Retry-After": "1" });
}

const NOTHING: Admitted = { release: () => {} };

/** The in-flight limits of a server without priority and fairness; 0 is no limit. system:masters is never turned away. */
export class MaxInflight implements Limiter {
  private now = { mutating: 0, readonly: 0 };

  constructor(private max: Record<RequestKind, number>) {}

  admit(_info: RequestInfo, user: UserInfo | undefined, kind: RequestKind): Admitted {
    const max = this.max[kind];
    if (max <= 0) return NOTHING;
    if (this.now[kind] >= max) {
      if (user?.groups.includes(MASTERS)) return NOTHING;
      throw tooManyRequests();
    }
    this.now[kind]++;
    return { release: () => { this.now[kind]--; } };
  }
}
