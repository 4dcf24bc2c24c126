// The --oidc-* flags of kube-apiserver v1.21 and what they resolve to: the issuer and client the ID tokens
// must name, how claims become a user, and which JOSE algorithms may sign them.
import { UsageError } from "../cli/args.ts";
import { commaList } from "../util/commalist.ts";

export interface OidcOptions {
  /** --oidc-issuer-url: https only; the tokens' `iss` and the base of the discovery document. */
  issuerURL: string;
  /** --oidc-client-id: the audience every token must name. */
  clientID: string;
  /** --oidc-ca-file: the authorities the issuer's serving certificate is checked against (else the host's). */
  caFile?: string;
  usernameClaim: string;
  /** The resolved prefix: the flag, else issuer URL + "#" for claims other than email; "-" means none. */
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  /** --oidc-required-claim: claims that must be present with exactly these string values. */
  requiredClaims: Record<string, string>;
  signingAlgs: string[];
}

/** The asymmetric algorithms upstream accepts in --oidc-signing-algs (never HMAC, never none). */
export const OIDC_SIGNING_ALGS = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"];

export const oidcFlags = {
  "oidc-issuer-url": { type: "string", description: "The URL of the OpenID issuer (https only); when set, OIDC ID tokens (JWTs) are verified against it" },
  "oidc-client-id": { type: "string", description: "The client ID of the OpenID Connect client, required with --oidc-issuer-url (the tokens' audience)" },
  "oidc-ca-file": { type: "string", description: "PEM CA bundle the OpenID issuer's serving certificate is verified with (default: the host's root CAs)" },
  "oidc-username-claim": { type: "string", default: "sub", description: "The ID token claim used as the user name" },
  "oidc-username-prefix": { type: "string", description: "Prefix of every OIDC user name; default: the issuer URL and '#' for claims other than email; '-' for none" },
  "oidc-groups-claim": { type: "string", description: "The ID token claim (a string or an array of strings) holding the user's groups" },
  "oidc-groups-prefix": { type: "string", description: "Prefix of every group taken from --oidc-groups-claim" },
  "oidc-required-claim": { type: "string", description: "key=value: a claim the ID token must hold with this value; repeatable, or comma-separated pairs" },
  "oidc-signing-algs": { type: "string", default: "RS256", description: `Comma-separated JOSE algorithms ID tokens may be signed with: ${OIDC_SIGNING_ALGS.join(", ")}` },
} as const;


/**
 * The OIDC options of the flags, or undefined when no issuer is set; bad values are usage errors.
 * `oidc-required-claim` may be a list: every occurrence of the repeatable flag.
 */
export function oidcOptions(a: Record<string, any>): OidcOptions | undefined {
  const issuerURL = String(a["oidc-issuer-url"] ?? "");
  const clientID = String(a["oidc-client-id"] ?? "");
  if (!issuerURL && !clientID) return undefined;
  if (!issuerURL || !clientID) throw new UsageError("oidc-issuer-url and oidc-client-id should be specified together");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(issuerURL)?.[1] ?? "";
  if (scheme !== "https") throw new UsageError(`'oidc-issuer-url' (${JSON.stringify(issuerURL)}) has invalid scheme (${JSON.stringify(scheme)}), require 'https'`);
  const usernameClaim = String(a["oidc-username-claim"] ?? "");
  if (!usernameClaim) throw new UsageError("no username claim provided (--oidc-username-claim)");
  const signingAlgs = commaList(a["oidc-signing-algs"]);
  for (const alg of signingAlgs) if (!OIDC_SIGNING_ALGS.includes(alg)) throw new UsageError(`oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
  return {
    issuerURL, clientID,
    caFile: a["oidc-ca-file"] || undefined,
    usernameClaim,
    usernamePrefix: usernamePrefix(a["oidc-username-prefix"] ?? "", usernameClaim, issuerURL),
    groupsClaim: String(a["oidc-groups-claim"] ?? ""),
    groupsPrefix: String(a["oidc-groups-prefix"] ?? ""),
    requiredClaims: requiredClaims([a["oidc-required-claim"] ?? []].flat().map(String)),
    signingAlgs: signingAlgs.length ? signingAlgs : ["RS256"],
  };
}

/** Unprefixed names are kept for email only, so that a `sub` of one issuer cannot pose as a local user. */
function usernamePrefix(flag: string, claim: string, issuerURL: string): string {
  if (flag === "-") return "";
  if (flag === "" && claim !== "email") return `${issuerURL}#`;
  return flag;
}

/** Each flag value holds one or more comma-separated key=value pairs, as pflag's map flags take them. */
function requiredClaims(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    for (const pair of commaList(v)) {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new UsageError(`invalid argument "${v}" for "--oidc-required-claim" flag: ${pair} must be formatted as key=value`);
      out[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return out;
}
