// Object metadata validation, with upstream's rules and messages.
import type { FieldCause, Obj, ResourceDef } from "./types.ts";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const MAX_SEGMENT_NAME = 8192;

export function nameErrors(name: string, rule: ResourceDef["nameRule"] = "subdomain"): string[] {
  if (rule === "segment") {
    if (name === "." || name === "..") return [`may not be '${name}'`];
    if (/[/%]/.test(name)) return [`may not contain '/' or '%'`];
    // Upstream sets no length here, but an object must stay addressable: Bun reads request heads (the
    // path with the name, and the headers) of at most 16 KiB.
    if (name.length > MAX_SEGMENT_NAME) return [`must be no more than ${MAX_SEGMENT_NAME} characters`];
    return [];
  }
  if (rule === "dns1035") {
    const errs: string[] = [];
    if (name.length > 63) errs.push("must be no more than 63 characters");
    if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
      errs.push(`a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`);
    }
    return errs;
  }
  if (rule === "label") {
    const errs: string[] = [];
    if (name.length > 63) errs.push("must be no more than 63 characters");
    if (!DNS1123_LABEL.test(name)) {
      errs.push(`a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`);
    }
    return errs;
  }
  const errs: string[] = [];
  if (name.length > 253) errs.push("must be no more than 253 characters");
  if (!DNS1123_SUBDOMAIN.test(name)) {
    errs.push(`a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`);
  }
  return errs;
}

/** A label or annotation key: an optional DNS subdomain prefix and a qualified name. */
export function keyErrors(key: string): string[] {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : "";
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const errs: string[] = [];
  if (slash >= 0 && (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    errs.push("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') and must be no more than 63 characters");
  }
  return errs;
}

export function labelValueErrors(v: unknown): string[] {
  if (typeof v !== "string") return ["must be a string"];
  if (v.length > 63) return ["must be no more than 63 characters"];
  if (!LABEL_VALUE.test(v)) {
    return ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"];
  }
  return [];
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Validates metadata common to every kind; returns 422 causes. */
export function validateMeta(def: ResourceDef, obj: Obj): FieldCause[] {
  const causes: FieldCause[] = [];
  const m = obj.metadata;
  const bad = (field: string, value: unknown, message: string) =>
    causes.push({ field, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(value)}: ${message}` });
  if (!m.name) causes.push({ field: "metadata.name", reason: "FieldValueRequired", message: "Required value: name or generateName is required" });
  else if (typeof m.name !== "string") bad("metadata.name", m.name, "must be a string");
  else for (const e of nameErrors(m.name, def.nameRule)) bad("metadata.name", m.name, e);
  if (m.labels !== undefined && m.labels !== null) {
    if (!isMap(m.labels)) bad("metadata.labels", m.labels, "must be a map of strings");
    else for (const [k, v] of Object.entries(m.labels)) {
      for (const e of keyErrors(k)) bad("metadata.labels", k, e);
      for (const e of labelValueErrors(v)) bad("metadata.labels", v, e);
    }
  }
  if (m.annotations !== undefined && m.annotations !== null) {
    if (!isMap(m.annotations)) bad("metadata.annotations", m.annotations, "must be a map of strings");
    else {
      let size = 0;
      for (const [k, v] of Object.entries(m.annotations)) {
        for (const e of keyErrors(k)) bad("metadata.annotations", k, e);
        if (typeof v !== "string") bad(`metadata.annotations[${k}]`, v, "must be a string");
        size += k.length + String(v).length;
      }
      if (size > 256 * 1024) causes.push({ field: "metadata.annotations", reason: "FieldValueTooLong", message: "Too long: must have at most 262144 bytes" });
    }
  }
  if (m.finalizers !== undefined && m.finalizers !== null) {
    if (!Array.isArray(m.finalizers) || m.finalizers.some((f: unknown) => typeof f !== "string")) bad("metadata.finalizers", m.finalizers, "must be a list of strings");
    else for (const f of m.finalizers) {
      if (!f.includes("/") && !["kubernetes", "orphan", "foregroundDeletion"].includes(f)) {
        bad("metadata.finalizers", f, "name is neither a standard finalizer name nor is it fully qualified");
      }
    }
  }
  if (m.ownerReferences !== undefined && m.ownerReferences !== null && !Array.isArray(m.ownerReferences)) bad("metadata.ownerReferences", m.ownerReferences, "must be a list");
  return causes;
}
