// Where the API server calls a webhook (admission webhooks, CRD conversion webhooks): upstream's
// ValidateWebhookURL and ValidateWebhookService, with the URL read as Go's net/url reads it (its errors,
// its idea of scheme, host, user information, query and fragment), since those are what users see.
import { type Errs, Printed, goStrings } from "./field.ts";
import { list } from "./rules.ts";
import { dns1035Label, dns1123Subdomain } from "./names.ts";
import { portNum } from "./ports.ts";

interface GoURL { scheme: string; user: string | null; host: string; rawQuery: string; fragment: string }

const ctl = /[\x00-\x1f\x7f]/;

/** The scheme and the rest, as net/url's getScheme splits them. */
function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === ":") {
      if (i === 0) throw new Error("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

const validOptionalPort = (p: string) => p === "" || (p[0] === ":" && /^\d*$/.test(p.slice(1)));

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const end = host.lastIndexOf("]");
    if (end < 0) throw new Error("missing ']' in host");
    const port = host.slice(end + 1);
    if (!validOptionalPort(port)) throw new Error(`invalid port ${JSON.stringify(port)} after host`);
    return host;
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && !validOptionalPort(host.slice(colon))) throw new Error(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
  return host;
}

/** net/url's Parse: what Go makes of the string, or its error text (`parse "…": …`). */
export function parseGoURL(raw: string): GoURL | string {
  const hash = raw.indexOf("#");
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const fragment = hash < 0 ? "" : raw.slice(hash + 1);
  try {
    if (ctl.test(u)) throw new Error("net/url: invalid control character in URL");
    const [schemeRaw, afterScheme] = splitScheme(u);
    const scheme = schemeRaw.toLowerCase();
    let rest = afterScheme, rawQuery = "";
    if (!(rest.endsWith("?") && rest.split("?").length === 2)) {
      const q = rest.indexOf("?");
      if (q >= 0) [rest, rawQuery] = [rest.slice(0, q), rest.slice(q + 1)];
    } else rest = rest.slice(0, -1);
    let host = "", user: string | null = null;
    if (!rest.startsWith("/")) {
      if (!scheme && rest.split("/")[0].includes(":")) throw new Error("first path segment in URL cannot contain colon");
    } else if ((scheme || !rest.startsWith("///")) && rest.startsWith("//")) {
      const slash = rest.indexOf("/", 2);
      const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
      const at = authority.lastIndexOf("@");
      host = parseHost(at < 0 ? authority : authority.slice(at + 1));
      if (at >= 0) user = authority.slice(0, at);
    }
    return { scheme, user, host, rawQuery, fragment };
  } catch (err) {
    return `parse ${JSON.stringify(u)}: ${(err as Error).message}`;
  }
}

const FORM = "; desired format: https://host[/path]";

/** ValidateWebhookURL with https required, as every webhook the API server calls has it. */
export function webhookURL(e: Errs, field: string, url: string) {
  const u = parseGoURL(url);
  if (typeof u === "string") return e.required(field, `url must be a valid URL: ${u}${FORM}`);
  if (u.scheme !== "https") e.invalid(field, u.scheme, `'https' is the only allowed URL scheme${FORM}`);
  if (!u.host) e.invalid(field, u.host, `host must be provided${FORM}`);
  if (u.user !== null) e.invalid(field, u.user, "user information is not permitted in the URL");
  if (u.fragment) e.invalid(field, u.fragment, "fragments are not permitted in the URL");
  if (u.rawQuery) e.invalid(field, u.rawQuery, "query parameters are not permitted in the URL");
}

/** ValidateWebhookService: name, namespace, port (443 when unset) and a path of DNS-subdomain segments. */
export function webhookService(e: Errs, field: string, svc: { name?: unknown; namespace?: unknown; path?: unknown; port?: unknown }) {
  if (!svc.name) e.required(`${field}.name`, "service name is required");
  if (!svc.namespace) e.required(`${field}.namespace`, "service namespace is required");
  const port = svc.port ?? 443;
  const bad = typeof port === "number" ? portNum(port) : [];
  if (bad.length) e.invalid(`${field}.port`, port, `port is not valid: ${bad.join(", ")}`);
  if (typeof svc.path !== "string") return;
  const path = svc.path;
  if (path === "/" || path === "") return;
  if (path === "//") return e.invalid(`${field}.path`, path, "segment[0] may not be empty");
  if (!path.startsWith("/")) e.invalid(`${field}.path`, path, "must start with a '/'");
  let check = path.slice(1);
  if (check.endsWith("/")) check = check.slice(0, -1);
  check.split("/").forEach((step, i) => {
    if (!step) return e.invalid(`${field}.path`, path, `segment[${i}] may not be empty`);
    for (const m of dns1123Subdomain(step)) e.invalid(`${field}.path`, path, `segment[${i}]: ${m}`);
  });
}

/** A webhook's clientConfig: exactly one of url and service, each checked as upstream checks it. */
export function webhookClientConfig(e: Errs, field: string, cc: { url?: unknown; service?: Record<string, unknown> | null } | undefined) {
  const url = cc?.url, svc = cc?.service;
  const hasURL = url !== undefined && url !== null, hasSvc = svc !== undefined && svc !== null;
  if (hasURL === hasSvc) return e.required(field, "exactly one of url or service is required");
  if (hasURL) webhookURL(e, `${field}.url`, String(url));
  else webhookService(e, `${field}.service`, svc!);
}

/** The review versions (AdmissionReview, ConversionReview) this server speaks. */
export const REVIEW_VERSIONS = ["v1", "v1beta1"];

/**
 * A webhook's review versions: at least one, no duplicates, DNS-1035 labels, and (when `requireKnown`,
 * as on create) one this server speaks. `requiredDetail` is what upstream says when there are none.
 */
export function reviewVersions(e: Errs, field: string, versions: unknown, requiredDetail: string, requireKnown = true) {
  const vs = list(versions);
  if (!vs.length) return e.required(field, requiredDetail);
  const seen = new Set<string>();
  vs.forEach((v, i) => {
    if (seen.has(v)) return e.invalid(`${field}[${i}]`, v, "duplicate version");
    seen.add(v);
    for (const m of dns1035Label(String(v))) e.invalid(`${field}[${i}]`, v, m);
  });
  if (requireKnown && !vs.some((v) => REVIEW_VERSIONS.includes(v))) {
    e.invalid(field, new Printed(goStrings(vs)), `must include at least one of ${REVIEW_VERSIONS.join(", ")}`);
  }
}
