// The fieldValidation query parameter (Ignore, Warn, Strict) as upstream applies it to a write: unknown
// fields are dropped (any depth), and with Warn each unknown or repeated field is a warning, with Strict
// the request fails listing them all.
import type { MessagePlan } from "../protobuf/schema.ts";
import { type KeyOrder, type Repeat, jsonRepeats } from "./jsonrepeats.ts";
import { describeFinding, dropUnknownFields } from "./unknown.ts";

export { dropUnknownFields } from "./unknown.ts";
export { jsonRepeats, type Repeat } from "./jsonrepeats.ts";

export type Directive = "Ignore" | "Warn" | "Strict";
export const DIRECTIVES: readonly string[] = ["Ignore", "Warn", "Strict"];

/** The repeated keys of a request body, collected while it is parsed. */
export interface BodyRepeats {
  /** The body was read as YAML (JSON text sent as YAML too): repeats are named by line, as go-yaml does. */
  yaml: boolean;
  list: Repeat[];
  /** For JSON bodies: the key order of objects that repeat a key. */
  order?: KeyOrder;
}

export const newRepeats = (yaml: boolean): BodyRepeats => ({ yaml, list: [] });

/** Collects the repeats of JSON text that parsed to value. */
export function collectJsonRepeats(text: string, value: unknown, into: BodyRepeats): void {
  const r = jsonRepeats(text, value);
  if (!r) return;
  into.list.push(...r.repeats);
  into.order = r.order;
}

/** go-yaml's words for a repeated key. */
export const yamlRepeat = (r: Repeat) => `line ${r.line}: key "${r.key}" already set in map`;
/** go-yaml's error for all the repeats of a document. */
export const yamlRepeatsError = (rs: Repeat[]) => `yaml: unmarshal errors:\n  ${rs.map(yamlRepeat).join("\n  ")}`;

/** How one write checks its object's fields. */
export interface FieldCheck {
  directive: Directive;
  /** The request body's repeated keys (create and update); a patch reports its own in `before`. */
  body?: BodyRepeats;
  /** Problems of the patch itself, reported before those of the patched object. */
  before?: string[];
  /** The object is a patched one: its unknown fields are reported in sorted key order, as upstream meets them. */
  patch?: boolean;
  /** Set by the check: the warnings for the response (Warn). */
  warnings: string[];
}

/**
 * Drops the unknown fields of obj (a whole object of message plan) and returns the text of the strict
 * decoding error to answer with, or null (problems become fc.warnings under Warn).
 */
export function checkFields(plan: MessagePlan, obj: Record<string, unknown>, fc?: FieldCheck): string | null {
  if (!fc || fc.directive === "Ignore") {
    dropUnknownFields(plan, obj);
    return null;
  }
  const yaml = fc.body?.yaml ?? false;
  const found = dropUnknownFields(plan, obj, { sorted: yaml || fc.patch, order: yaml ? undefined : fc.body?.order }).map(describeFinding);
  return answer(found, fc);
}

/**
 * The fieldValidation answer for the fields decoding dropped from a custom resource (`paths`): the text of
 * the strict decoding error, or null (warnings under Warn).
 */
export function reportDropped(paths: string[], fc?: FieldCheck): string | null {
  if (!fc || fc.directive === "Ignore") return null;
  return answer(paths.map((p) => `unknown field "${p}"`), fc);
}

/** Warn: the warnings of the unknown (`found`) and repeated fields; Strict: the error's text. */
function answer(found: string[], fc: FieldCheck): string | null {
  const lines = fc.body?.yaml ? fc.body.list : [];
  const before = fc.before ?? [];
  if (!lines.length && !before.length && !found.length) return null;
  if (fc.directive === "Warn") {
    fc.warnings = [...lines.map(yamlRepeat), ...before, ...found];
    return null;
  }
  return `strict decoding error: ${[...(lines.length ? [yamlRepeatsError(lines)] : []), ...before, ...found].join(", ")}`;
}

