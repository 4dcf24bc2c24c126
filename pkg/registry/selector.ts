// Label and field selectors: parsed once per request, then matched per object.
import { badRequest } from "../api/status.ts";
import { labelValue } from "../validation/labels.ts";
import { qualifiedName } from "../validation/names.ts";

type Req =
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] }
  | { op: "exists" | "!"; key: string };

export type Selector = (fields: Record<string, string | undefined>) => boolean;

export const everything: Selector = () => true;

function checkKey(key: string, what: string) {
  const errs = qualifiedName(key);
  if (errs.length) throw badRequest(`unable to parse requirement: invalid label key "${key}": ${errs.join("; ")}`);
  return key;
}

function checkValue(v: string) {
  const errs = labelValue(v);
  if (errs.length) throw badRequest(`unable to parse requirement: invalid label value: "${v}": at key: ${errs.join("; ")}`);
  return v;
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0, cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (depth < 0) throw badRequest(`unable to parse requirement: unexpected ')' in "${s}"`);
    if (ch === "," && depth === 0) { out.push(cur); cur = ""; } else cur += ch;
  }
  if (depth !== 0) throw badRequest(`unable to parse requirement: unclosed '(' in "${s}"`);
  out.push(cur);
  return out;
}

function parseLabelTerm(t: string): Req {
  const term = t.trim();
  if (!term) throw badRequest(`unable to parse requirement: found '', expected: identifier`);
  const setm = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (setm) {
    const values = setm[3].split(",").map((v) => checkValue(v.trim()));
    return { op: setm[2] as "in" | "notin", key: checkKey(setm[1], "label"), values };
  }
  if (term.startsWith("!")) return { op: "!", key: checkKey(term.slice(1).trim(), "label") };
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (eq) return { op: eq[2] === "!=" ? "!=" : "=", key: checkKey(eq[1], "label"), value: checkValue(eq[3].trim()) };
  if (/^[^\s=!()]+$/.test(term)) return { op: "exists", key: checkKey(term, "label") };
  throw badRequest(`unable to parse requirement: invalid label selector "${term}"`);
}

function matcher(reqs: Req[]): Selector {
  if (reqs.length === 0) return everything;
  return (m) => reqs.every((r) => {
    const v = m[r.key];
    switch (r.op) {
      case "=": return v === r.value;
      case "!=": return v !== r.value;
      case "in": return v !== undefined && r.values.includes(v);
      case "notin": return v === undefined || !r.values.includes(v);
      case "exists": return v !== undefined;
      case "!": return v === undefined;
    }
  });
}

export function parseLabelSelector(s: string | null | undefined): Selector {
  if (!s || !s.trim()) return everything;
  return matcher(splitTerms(s).map(parseLabelTerm));
}

/**
 * Field selectors as upstream parses them: terms split on unescaped commas and read in sorted order,
 * each `field=value`, `field==value` or `field!=value` with `\\`, `\,` and `\=` escaped in the value.
 * `convert` names the field the kind matches for a label, or throws upstream's 400 for one it does not support.
 */
export function parseFieldSelector(s: string | null | undefined, convert: (label: string) => string): Selector {
  if (!s) return everything;
  const reqs: Req[] = [];
  for (const term of splitUnescaped(s).sort()) {
    if (!term) continue;
    const m = /!=|==|=/.exec(term);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${term}'`);
    const value = unescapeValue(term.slice(m.index + m[0].length));
    reqs.push({ op: m[0] === "!=" ? "!=" : "=", key: convert(term.slice(0, m.index)), value });
  }
  // A field the object lacks compares as the empty string, as upstream's field sets do.
  const match = matcher(reqs);
  return reqs.length ? (f) => match(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v ?? ""]))) : everything;
}

function splitUnescaped(s: string): string[] {
  const out: string[] = [];
  let start = 0, escaped = false;
  for (let i = 0; i < s.length; i++) {
    if (escaped) escaped = false;
    else if (s[i] === "\\") escaped = true;
    else if (s[i] === ",") { out.push(s.slice(start, i)); start = i + 1; }
  }
  out.push(s.slice(start));
  return out;
}

function unescapeValue(v: string): string {
  let out = "", escaped = false;
  for (const c of v) {
    if (escaped) {
      if (c !== "\\" && c !== "," && c !== "=") throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === "\\") escaped = true;
    // Go prints the rune as its number.
    else if (c === "," || c === "=") throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (escaped) throw badRequest("invalid field selector: invalid escape sequence: \\");
  return out;
}
