// Secrets and ConfigMaps: key names, total size, the rules of each Secret type, and `immutable: true`.
import { badRequest } from "../api/status.ts";
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { configKey } from "./names.ts";
import { run, same } from "./rules.ts";

/** Secrets and ConfigMaps hold at most 1 MiB. */
const MAX_SIZE = 1024 * 1024;
const IMMUTABLE = "field is immutable when `immutable` is set";

/** A map that upstream could not even decode (a value that is not a string) is a 400, not a 422. */
function stringMap(o: Obj, field: string): Record<string, string> {
  const m = o[field];
  if (m === undefined || m === null) return {};
  if (typeof m !== "object" || Array.isArray(m) || Object.values(m).some((v) => typeof v !== "string")) {
    throw badRequest(`${o.kind} in version "${o.apiVersion}" cannot be handled as a ${o.kind}: ${field} must be a map of strings`);
  }
  return m;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const decodedSize = (v: string) => Buffer.from(v, "base64").length;

/** Checks the keys of one map and returns the bytes its values hold. */
function keysAndSize(e: Errs, field: string, m: Record<string, string>, size: (v: string) => number): number {
  let total = 0;
  for (const k in m) {
    e.invalidEach(`${field}[${k}]`, k, configKey(k));
    total += size(m[k]);
  }
  return total;
}

/** With `immutable: true` stored, neither the flag nor the data may change. */
function keepImmutable(e: Errs, o: Obj, old: Obj, fields: string[]) {
  if (old.immutable !== true) return;
  if (o.immutable !== true) e.forbidden("immutable", IMMUTABLE);
  for (const f of fields) if (!same(o[f], old[f])) e.forbidden(f, IMMUTABLE);
}

/** What each Secret type must carry in data. */
const SECRET_TYPES: Record<string, (e: Errs, o: Obj, data: Record<string, string>) => void> = {
  "kubernetes.io/service-account-token": (e, o) => {
    if (!o.metadata?.annotations?.["kubernetes.io/service-account.name"]) e.required("metadata.annotations[kubernetes.io/service-account.name]");
  },
  "kubernetes.io/dockercfg": (e, _o, d) => dockerConfig(e, d, ".dockercfg"),
  "kubernetes.io/dockerconfigjson": (e, _o, d) => dockerConfig(e, d, ".dockerconfigjson"),
  "kubernetes.io/basic-auth": (e, _o, d) => {
    // upstream's paths for these two carry a literal `[%s]`
    if (!("username" in d) && !("password" in d)) {
      e.required("data[%s][username]");
      e.required("data[%s][password]");
    }
  },
  "kubernetes.io/ssh-auth": (e, _o, d) => { if (!("ssh-privatekey" in d)) e.required("data[%s][ssh-privatekey]"); },
  "kubernetes.io/tls": (e, _o, d) => {
    if (!("tls.crt" in d)) e.required("data[tls.crt]");
    if (!("tls.key" in d)) e.required("data[tls.key]");
  },
};

function dockerConfig(e: Errs, data: Record<string, string>, key: string) {
  if (!(key in data)) return e.required(`data[${key}]`);
  try {
    JSON.parse(Buffer.from(data[key], "base64").toString("utf8"));
  } catch (err) {
    e.invalid(`data[${key}]`, "<secret contents redacted>", (err as Error).message);
  }
}

export const secret = (o: Obj, old?: Obj) => {
  const data = stringMap(o, "data");
  stringMap(o, "stringData");
  return run((e) => {
    for (const [k, v] of Object.entries(data)) {
      if (!BASE64.test(v) || v.length % 4 !== 0) e.causes.push({ field: `data[${k}]`, reason: "FieldValueInvalid", message: "Invalid value: illegal base64 data" });
    }
    if (keysAndSize(e, "data", data, decodedSize) > MAX_SIZE) e.tooLong("data", MAX_SIZE);
    SECRET_TYPES[o.type]?.(e, o, data);
    if (old) {
      if (o.type !== old.type) e.immutable("type", o.type ?? "");
      keepImmutable(e, o, old, ["data"]);
    }
  });
};

export const configMap = (o: Obj, old?: Obj) => {
  const data = stringMap(o, "data"), binary = stringMap(o, "binaryData");
  return run((e) => {
    let size = keysAndSize(e, "data", data, (v) => Buffer.byteLength(v));
    size += keysAndSize(e, "binaryData", binary, decodedSize);
    for (const k of Object.keys(binary)) if (k in data) e.invalid(`data[${k}]`, k, "duplicate of key present in binaryData");
    if (size > MAX_SIZE) e.tooLong("", MAX_SIZE);
    if (old) keepImmutable(e, o, old, ["data", "binaryData"]);
  });
};
