// Names and keys in upstream's words (apimachinery's IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label,
// IsQualifiedName, IsConfigMapKey, IsDomainPrefixedPath): each returns the messages of what is wrong.
import type { ResourceDef } from "../registry/types.ts";
import type { Errs } from "./field.ts";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const WILDCARD_SUBDOMAIN = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

const tooLong = (max: number) => `must be no more than ${max} characters`;

/** What a check returns for a good value: one shared empty list (callers only read it), no garbage per call. */
const NONE: string[] = [];

/** A length limit and a pattern: the messages of both, as upstream's Is* checks give them. */
const shaped = (max: number, re: RegExp, message: string) => (v: string): string[] => {
  if (v.length <= max && re.test(v)) return NONE;
  const errs: string[] = [];
  if (v.length > max) errs.push(tooLong(max));
  if (!re.test(v)) errs.push(message);
  return errs;
};

export const dns1123Label = shaped(63, DNS1123_LABEL, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
export const dns1123Subdomain = shaped(253, DNS1123_SUBDOMAIN, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
export const wildcardDNS1123Subdomain = shaped(253, WILDCARD_SUBDOMAIN, "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
export const dns1035Label = shaped(63, DNS1035_LABEL, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");

/** Upstream sets no length for a path segment, but an object must stay addressable: Bun reads request heads of at most 16 KiB. */
const MAX_SEGMENT_NAME = 8192;

/** ValidatePathSegmentName: any name that can stand in a URL path. */
export function pathSegmentName(v: string): string[] {
  if (v === "." || v === "..") return [`may not be '${v}'`];
  if (/[/%]/.test(v)) return [`may not contain '/' or '%'`];
  if (v.length > MAX_SEGMENT_NAME) return [tooLong(MAX_SEGMENT_NAME)];
  return [];
}

const NAME_RULES: Record<NonNullable<ResourceDef["nameRule"]>, (v: string) => string[]> = {
  subdomain: dns1123Subdomain, label: dns1123Label, dns1035: dns1035Label, segment: pathSegmentName,
};

/** The messages for an object's metadata.name under its kind's rule. */
export const nameErrors = (name: string, rule: ResourceDef["nameRule"] = "subdomain") => NAME_RULES[rule ?? "subdomain"](name);

const QUALIFIED_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** IsQualifiedName (label keys, annotation keys, ...): an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
export function qualifiedName(v: string): string[] {
  if (v.length <= 63 && QUALIFIED.test(v)) return NONE; // the common case: no prefix, nothing wrong
  const parts = v.split("/");
  if (parts.length > 2) return [`a qualified name ${QUALIFIED_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const errs: string[] = [];
  const name = parts.length === 2 ? parts[1] : v;
  if (parts.length === 2) {
    if (parts[0].length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...dns1123Subdomain(parts[0]).map((m) => `prefix part ${m}`));
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${tooLong(63)}`);
  if (!QUALIFIED.test(name)) errs.push(`name part ${QUALIFIED_MSG}`);
  return errs;
}

/** hasChDirPrefix: a key or name that would step out of the directory it names a file in. */
function chDirPrefix(v: string): string[] {
  if (v === "." || v === "..") return [`must not be '${v}'`];
  return v.startsWith("..") ? ["must not start with '..'"] : NONE;
}

const ENV_VAR = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** IsEnvVarName. */
export function envVarName(v: string): string[] {
  const fine = ENV_VAR.test(v);
  if (fine && chDirPrefix(v) === NONE) return NONE;
  const errs = fine ? [] : ["a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"];
  return [...errs, ...chDirPrefix(v)];
}

/** IsConfigMapKey: a key of a ConfigMap's or Secret's data, or a key a container's env refers to. */
export function configKey(k: string): string[] {
  // the common case, cheaply: objects with tens of thousands of keys are read
  if (k.length <= 253 && CONFIG_KEY.test(k) && !k.startsWith("..") && k !== ".") return NONE;
  const errs: string[] = [];
  if (k.length > 253) errs.push(tooLong(253));
  if (!CONFIG_KEY.test(k)) {
    errs.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  return [...errs, ...chDirPrefix(k)];
}

/** IsDomainPrefixedPath: `example.com/path`. */
export function domainPrefixedPath(e: Errs, field: string, v: unknown) {
  const s = String(v ?? "");
  if (!s) return e.required(field);
  const slash = s.indexOf("/");
  if (slash <= 0 || slash === s.length - 1) return e.invalid(field, s, "must be a domain-prefixed path (such as \"acme.io/foo\")");
  const host = s.slice(0, slash), path = s.slice(slash + 1);
  e.invalidEach(field, host, dns1123Subdomain(host));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(path)) e.invalid(field, path, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");
}
