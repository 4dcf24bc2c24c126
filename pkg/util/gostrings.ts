// Strings as Go's JSON decoder reads them: an escaped lone surrogate (`\ud800` without its pair) becomes
// U+FFFD. JSON.parse keeps it, and a name holding one could not be written into a URL again.

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** JSON.parse, with lone surrogates replaced as Go replaces them (only bodies that escape one are walked). */
export function parseJSONAsGo(text: string): unknown {
  const v = JSON.parse(text);
  return SURROGATE_ESCAPE.test(text) ? wellFormed(v) : v;
}

function wellFormed(v: unknown): unknown {
  if (typeof v === "string") return v.toWellFormed();
  if (Array.isArray(v)) return v.map(wellFormed);
  // fromEntries makes own properties, `__proto__` too
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.toWellFormed(), wellFormed(x)]));
  return v;
}
