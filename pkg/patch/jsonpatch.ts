// JSON patch (RFC 6902) with the bounds upstream puts on it: at most 10,000 operations, and `copy`s that
// together add at most the request size limit (copying a growing value doubles the document each time).
// Keys are plain data here: `__proto__` or `constructor` in a pointer name a member like any other.
import { MAX_BODY } from "../api/limits.ts";

export const MAX_JSON_PATCH_OPERATIONS = 10_000;

export class PatchFailure extends Error {}
/** Too many operations: upstream answers 413, not 422. */
export class PatchTooLarge extends Error {}

type Doc = unknown;
type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === "object" && v !== null;
const own = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Sets a member as data, so that `__proto__` stays a key and never changes the object's prototype. */
export function setMember(o: Record<string, unknown>, k: string, v: unknown) {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

function parsePointer(p: unknown): string[] {
  if (typeof p !== "string") throw new PatchFailure(`path must be a string, got ${JSON.stringify(p)}`);
  if (p === "") return [];
  if (!p.startsWith("/")) throw new PatchFailure(`JSON pointer must be empty or start with a "/": ${JSON.stringify(p)}`);
  return p.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function arrayIndex(arr: unknown[], token: string, forAdd: boolean, path: string): number {
  if (forAdd && token === "-") return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchFailure(`Unable to access invalid index: ${token}: ${path}`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw new PatchFailure(`Unable to access invalid index: ${i}: ${path}`);
  return i;
}

/** The container holding the pointer's last token, and that token. */
function parentOf(doc: Doc, tokens: string[], path: string): [Container, string] {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, false, path)];
    else if (isContainer(cur) && own(cur as Record<string, unknown>, t)) cur = (cur as Record<string, unknown>)[t];
    else throw new PatchFailure(`doc is missing path: "${path}": missing value`);
  }
  if (!isContainer(cur)) throw new PatchFailure(`doc is missing path: "${path}": missing value`);
  return [cur, tokens[tokens.length - 1]];
}

function getAt(doc: Doc, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const [c, k] = parentOf(doc, tokens, path);
  if (Array.isArray(c)) return c[arrayIndex(c, k, false, path)];
  if (!own(c, k)) throw new PatchFailure(`doc is missing key: ${path}: missing value`);
  return c[k];
}

function add(doc: Doc, path: string, value: unknown): Doc {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const [c, k] = parentOf(doc, tokens, path);
  if (Array.isArray(c)) c.splice(arrayIndex(c, k, true, path), 0, value);
  else setMember(c, k, value);
  return doc;
}

function remove(doc: Doc, path: string): [Doc, unknown] {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw new PatchFailure("unable to remove the whole document");
  const [c, k] = parentOf(doc, tokens, path);
  if (Array.isArray(c)) return [doc, c.splice(arrayIndex(c, k, false, path), 1)[0]];
  if (!own(c, k)) throw new PatchFailure(`Unable to remove nonexistent key: ${k}: missing value`);
  const v = c[k];
  delete c[k];
  return [doc, v];
}

function replace(doc: Doc, path: string, value: unknown): Doc {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const [c, k] = parentOf(doc, tokens, path);
  if (Array.isArray(c)) c[arrayIndex(c, k, false, path)] = value;
  else if (!own(c, k)) throw new PatchFailure(`replace operation does not apply: doc is missing key: ${path}: missing value`);
  else setMember(c, k, value);
  return doc;
}

/** Applies operations to a copy of target; the original is never changed. */
export function jsonPatch(target: unknown, ops: unknown, copyLimit = MAX_BODY): unknown {
  if (!Array.isArray(ops)) throw new PatchFailure("json patch must be an array of operations");
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`);
  }
  let doc: Doc = structuredClone(target);
  let copied = 0;
  for (const op of ops) {
    if (!isContainer(op) || Array.isArray(op)) throw new PatchFailure(`each JSON patch operation must be an object, got ${JSON.stringify(op)}`);
    const o = op as Record<string, unknown>;
    const path = o.path as string;
    const value = () => {
      if (!own(o, "value")) throw new PatchFailure(`${o.op} operation has no "value": ${JSON.stringify(path)}`);
      return structuredClone(o.value);
    };
    switch (o.op) {
      case "add": doc = add(doc, path, value()); break;
      case "remove": doc = remove(doc, path)[0]; break;
      case "replace": getAt(doc, path); doc = replace(doc, path, value()); break;
      case "move": {
        const from = o.from as string;
        parsePointer(from);
        if (path !== from && typeof path === "string" && path.startsWith(`${from}/`)) throw new PatchFailure(`Unable to move ${from} into its own child ${path}`);
        const [d, v] = remove(doc, from);
        doc = add(d, path, v);
        break;
      }
      case "copy": {
        const v = getAt(doc, o.from as string);
        const size = JSON.stringify(v ?? null).length;
        if ((copied += size) > copyLimit) {
          throw new PatchFailure(`Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${copyLimit}`);
        }
        doc = add(doc, path, structuredClone(v));
        break;
      }
      case "test":
        if (!Bun.deepEquals(getAt(doc, path), o.value, true)) throw new PatchFailure(`testing value ${path} failed: test failed`);
        break;
      default:
        throw new PatchFailure(`Unexpected kind: ${JSON.stringify(o.op ?? null)}`);
    }
  }
  return doc;
}
