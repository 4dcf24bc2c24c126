// The TLS flags every server of Kite shares (the API server's, the node agent's): --tls-min-version and
// --tls-cipher-suites with Go's names, as upstream's components take them, turned into what Bun's TLS
// (BoringSSL) takes.
import { UsageError, oneOf } from "../cli/args.ts";
import { commaList } from "../util/commalist.ts";

/** Go's cipher suite names, as component-base lists them, and OpenSSL's names of the same suites. */
const CIPHERS: Record<string, string | null> = {
  TLS_AES_128_GCM_SHA256: null, TLS_AES_256_GCM_SHA384: null, TLS_CHACHA20_POLY1305_SHA256: null,
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  // insecure, still accepted as upstream accepts them
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: "ECDHE-ECDSA-RC4-SHA",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: "ECDHE-RSA-RC4-SHA",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_RC4_128_SHA: "RC4-SHA",
};
const VERSIONS: Record<string, number> = { VersionTLS10: 0x301, VersionTLS11: 0x302, VersionTLS12: 0x303, VersionTLS13: 0x304 };

export const TLS_ARGS = {
  "tls-min-version": { type: "string", description: `Minimum TLS version supported: ${Object.keys(VERSIONS).join(", ")}` },
  "tls-cipher-suites": { type: "string", description: `Comma-separated TLS 1.2 cipher suites offered (Go's names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); default: the TLS library's. TLS 1.3 suites are accepted and always on, as upstream. Possible values: ${Object.keys(CIPHERS).join(", ")}` },
} as const;

/** --tls-min-version as the protocol number Bun's `minVersion` takes; undefined when not given. */
export function tlsMinVersion(v: unknown): number | undefined {
  if (!v) return undefined;
  return VERSIONS[oneOf("tls-min-version", String(v), Object.keys(VERSIONS))];
}

/** --tls-cipher-suites as an OpenSSL cipher list; undefined when not given (the library's defaults). */
export function opensslCiphers(v: unknown): string | undefined {
  const suites = commaList(v);
  for (const s of suites) if (!(s in CIPHERS)) throw new UsageError(`invalid argument "${v}" for "--tls-cipher-suites" flag: Cipher suite ${s} not supported or doesn't exist`);
  return suites.length ? [...new Set(suites.map((s) => CIPHERS[s]).filter((s): s is string => !!s))].join(":") : undefined;
}
