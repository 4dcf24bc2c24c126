// Label and field selectors: parsed once per request, then matched per object.
import { badRequest } from "../api/status.ts";
import { keyErrors, labelValueErrors } from "./validation.ts";

type Req =
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] }
  | { op: "exists" | "!"; key: string };

export type Selector = (fields: Record<string, string | undefined>) => boolean;

export const everything: Selector = () => true;

function checkKey(key: string, what: string) {
  const errs = keyErrors(key);
  if (errs.length) throw badRequest(`unable to parse requirement: invalid label key "${key}": ${errs.join("; ")}`);
  return key;
}

function checkValue(v: string) {
  const errs = labelValueErrors(v);
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

/** Field selectors: `a=b`, `a==b`, `a!=b`, comma-joined, only on the fields the type supports. */
export function parseFieldSelector(s: string | null | undefined, supported: Set<string>): { match: Selector; terms: Req[] } {
  if (!s || !s.trim()) return { match: everything, terms: [] };
  const reqs: Req[] = s.split(",").map((t) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(t);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${t}'`);
    if (!supported.has(m[1])) throw badRequest(`field label not supported: ${m[1]}`);
    return { op: m[2] === "!=" ? "!=" : "=", key: m[1], value: m[3] };
  });
  // A missing field compares as the empty string, as upstream's field sets do.
  const match = matcher(reqs);
  return { match: (f) => match(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v ?? ""]))), terms: reqs };
}
