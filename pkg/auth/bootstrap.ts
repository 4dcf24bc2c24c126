// --enable-bootstrap-token-auth: a token `<id>.<secret>` is good while the Secret kube-system/bootstrap-token-<id>
// of type bootstrap.kubernetes.io/token holds that secret, allows authentication and has not expired. The
// user is system:bootstrap:<id> in system:bootstrappers and the Secret's auth-extra-groups. The Secret is
// read by name from the watch cache (upstream reads its informer), so a request costs one map lookup.
import { timingSafeEqual } from "node:crypto";
import type { Registry } from "../registry/registry.ts";
import type { Obj } from "../registry/types.ts";
import type { Authenticated } from "./authenticate.ts";
import type { TokenAuthenticator } from "./token.ts";

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
export const BOOTSTRAP_SECRET_TYPE = "bootstrap.kubernetes.io/token";
export const BOOTSTRAPPERS = "system:bootstrappers";

const data = (s: Obj, key: string): string => (typeof s.data?.[key] === "string" ? Buffer.from(s.data[key], "base64").toString("utf8") : "");

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** An unparsable expiration counts as expired, as upstream counts it. */
function expired(s: Obj, now: number): boolean {
  const exp = data(s, "expiration");
  if (!exp) return false;
  const t = Date.parse(exp);
  return Number.isNaN(t) || !/^\d{4}-\d\d-\d\dT/.test(exp) || now > t;
}

/** system:bootstrappers and the Secret's valid extra groups, sorted; undefined when one is not valid. */
function groupsOf(s: Obj): string[] | undefined {
  const groups = new Set([BOOTSTRAPPERS]);
  const extra = data(s, "auth-extra-groups");
  for (const g of extra ? extra.split(",") : []) {
    if (!EXTRA_GROUP.test(g)) return undefined;
    groups.add(g);
  }
  return [...groups].sort();
}

export function bootstrapTokens(registry: Registry): TokenAuthenticator {
  const secrets = registry.lookup("", "v1", "secrets")!;
  // From the watch cache; a miss is confirmed by a read of the store (the Secret may be a moment old).
  const secret = async (name: string): Promise<Obj | null> => {
    for (const rv of ["0", ""]) {
      try {
        return await secrets.get("kube-system", name, rv);
      } catch (e) {
        if ((e as { code?: number }).code !== 404) throw e;
      }
    }
    return null;
  };
  return {
    async authenticateToken(token): Promise<Authenticated | null> {
      const m = TOKEN.exec(token);
      if (!m) return null;
      const [, id, tokenSecret] = m;
      const s = await secret(`bootstrap-token-${id}`);
      if (!s || s.metadata?.deletionTimestamp || s.type !== BOOTSTRAP_SECRET_TYPE || !s.data) return null;
      if (!sameSecret(data(s, "token-secret"), tokenSecret) || data(s, "token-id") !== id) return null;
      if (expired(s, Date.now()) || data(s, "usage-bootstrap-authentication") !== "true") return null;
      const groups = groupsOf(s);
      return groups ? { user: { name: `system:bootstrap:${id}`, groups } } : null;
    },
  };
}
