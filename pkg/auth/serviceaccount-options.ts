// The service-account flags of §5.1 (upstream v1.21's, with v1.22's repeatable --service-account-issuer):
// their table for `kite apiserver`, and the options they make.
import { join } from "node:path";
import { UsageError, bool, duration, repeated } from "../cli/args.ts";
import { commaList } from "../util/commalist.ts";

export interface ServiceAccountOptions {
  /** --service-account-issuer: the first issues tokens; every one is accepted. */
  issuers: string[];
  /** --service-account-key-file: PEM files of public or private keys that verify tokens. */
  keyFiles: string[];
  /** --service-account-signing-key-file; when absent, `generatedKeyFile` (created on first start) signs. */
  signingKeyFile?: string;
  generatedKeyFile: string;
  /** --api-audiences (default: the first issuer). */
  audiences: string[];
  /** --service-account-lookup: a legacy Secret token needs its Secret and ServiceAccount to still exist. */
  lookup: boolean;
  /** --service-account-max-token-expiration in seconds; 0: no bound. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration */
  extendExpiration: boolean;
  /** --service-account-jwks-uri */
  jwksURI?: string;
}

/** Kite's issuer when none is given (kubeadm's), so tokens and the discovery document work by default. */
export const DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local";

export const SERVICE_ACCOUNT_ARGS = {
  "service-account-issuer": { type: "string", default: DEFAULT_ISSUER, description: "Issuer (iss) of service-account tokens; repeatable: the first issues, all are accepted" },
  "service-account-key-file": { type: "string", description: "PEM file of RSA or ECDSA keys (public or private) that verify service-account tokens; repeatable" },
  "service-account-signing-key-file": { type: "string", description: "PEM private key that signs service-account tokens (default: CERT-DIR/sa.key, generated once)" },
  "api-audiences": { type: "string", description: "Comma-separated audiences the API accepts tokens for (default: the issuer)" },
  "service-account-lookup": { type: "boolean", default: true, description: "A legacy Secret-based token is valid only while its Secret and ServiceAccount exist" },
  "service-account-max-token-expiration": { type: "string", description: "Upper bound of the lifetime of requested tokens (between 1h and 2^32 s)" },
  "service-account-extend-token-expiration": { type: "boolean", default: true, description: "Pod-bound tokens asked for 3607 s are valid for a year (warning after the asked time)" },
  "service-account-jwks-uri": { type: "string", description: "jwks_uri of the issuer discovery document (default: https://ADVERTISE-ADDRESS:PORT/openid/v1/jwks)" },
} as const;

const REPEATABLE = ["service-account-issuer", "service-account-key-file"];

/** The repeatable flags' values as lists (citty keeps only the last); flags not given keep their default. */
export function repeatedServiceAccountFlags(a: Record<string, any>, rawArgs: string[]): Record<string, unknown> {
  return Object.fromEntries(REPEATABLE.map((f) => {
    const given = repeated(rawArgs, f);
    return [f, given.length ? given : a[f]];
  }));
}

const values = (v: unknown): string[] => (Array.isArray(v) ? v : typeof v === "string" && v ? [v] : []);

const MAX_EXPIRATION_BOUNDS = [3600, 2 ** 32];

/** The options of the flags in `a` (a repeatable flag's value a string or a list); certDir holds the generated key. */
export function serviceAccountOptions(a: Record<string, any>, certDir: string): ServiceAccountOptions {
  const issuers = values(a["service-account-issuer"]);
  for (const iss of issuers) {
    if (iss.includes(":") && !URL.canParse(iss)) throw new UsageError(`invalid argument "${iss}" for "--service-account-issuer" flag: not a valid URL`);
  }
  if (issuers.length === 0) throw new UsageError(`invalid argument "" for "--service-account-issuer" flag: an issuer is required`);
  let maxExpirationSeconds = 0;
  if (a["service-account-max-token-expiration"]) {
    maxExpirationSeconds = Math.floor(duration("service-account-max-token-expiration", a["service-account-max-token-expiration"]) / 1000);
    const [lo, hi] = MAX_EXPIRATION_BOUNDS;
    if (maxExpirationSeconds < lo || maxExpirationSeconds > hi) throw new UsageError("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
  }
  const audiences = commaList(a["api-audiences"]);
  return {
    issuers,
    keyFiles: values(a["service-account-key-file"]).flatMap((f) => f.split(",")).filter(Boolean),
    signingKeyFile: a["service-account-signing-key-file"] || undefined,
    generatedKeyFile: join(certDir, "sa.key"),
    audiences: audiences.length ? audiences : [issuers[0]],
    lookup: bool("service-account-lookup", a["service-account-lookup"]),
    maxExpirationSeconds,
    extendExpiration: bool("service-account-extend-token-expiration", a["service-account-extend-token-expiration"]),
    jwksURI: a["service-account-jwks-uri"] || undefined,
  };
}
