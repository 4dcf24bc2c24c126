// The words Go's encoding/json uses for the first syntax error in a document, which upstream's JSON
// decoding errors quote (`invalid character 'a' looking for beginning of value`).

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

class SyntaxFailure extends Error {}

/** Go's quoteChar: a byte in single quotes, escaped as strconv.Quote escapes it. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x5c: "\\\\" };
  if (named[c]) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  // a byte past ASCII is read as the Latin-1 rune of that number; the unprintable ones are escaped
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16)}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** Go's message for the first syntax error in `data`, or undefined when it is well-formed JSON. */
export function goJSONSyntaxError(data: Uint8Array): string | undefined {
  let i = 0;
  const fail = (c: number, context: string): never => { throw new SyntaxFailure(`invalid character ${quoteChar(c)} ${context}`); };
  const end = (): never => { throw new SyntaxFailure("unexpected end of JSON input"); };
  const peek = () => (i < data.length ? data[i] : end());
  const skipSpace = () => { while (i < data.length && SPACE.has(data[i])) i++; };

  function literal(word: string) {
    for (let k = 1; k < word.length; k++) {
      i++;
      const c = peek();
      if (c !== word.charCodeAt(k)) fail(c, `in literal ${word} (expecting '${word[k]}')`);
    }
    i++;
  }

  function digits(context: string) {
    if (!isDigit(peek())) fail(data[i], context);
    while (i < data.length && isDigit(data[i])) i++;
  }

  function number() {
    if (data[i] === 0x2d) { i++; if (!isDigit(peek())) fail(data[i], "in numeric literal"); }
    if (data[i] === 0x30) i++;
    else digits("in numeric literal");
    if (i < data.length && data[i] === 0x2e) { i++; digits("after decimal point in numeric literal"); }
    if (i < data.length && (data[i] === 0x65 || data[i] === 0x45)) {
      i++;
      if (peek() === 0x2b || data[i] === 0x2d) i++;
      digits("in exponent of numeric literal");
    }
  }

  function string() {
    for (i++; ; i++) {
      const c = peek();
      if (c === 0x22) { i++; return; }
      if (c < 0x20) fail(c, "in string literal");
      if (c !== 0x5c) continue;
      i++;
      const e = peek();
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) { i++; if (!isHex(peek())) fail(data[i], "in \\u hexadecimal character escape"); }
      } else if (!`"\\/bfnrt`.includes(String.fromCharCode(e))) fail(e, "in string escape code");
    }
  }

  function value() {
    skipSpace();
    const c = peek();
    if (c === 0x7b) return object();
    if (c === 0x5b) return array();
    if (c === 0x22) return string();
    if (c === 0x2d || isDigit(c)) return number();
    if (c === 0x74) return literal("true");
    if (c === 0x66) return literal("false");
    if (c === 0x6e) return literal("null");
    fail(c, "looking for beginning of value");
  }

  function object() {
    i++;
    skipSpace();
    if (peek() === 0x7d) { i++; return; }
    for (;;) {
      skipSpace();
      if (peek() !== 0x22) fail(data[i], "looking for beginning of object key string");
      string();
      skipSpace();
      if (peek() !== 0x3a) fail(data[i], "after object key");
      i++;
      value();
      skipSpace();
      const c = peek();
      i++;
      if (c === 0x7d) return;
      if (c !== 0x2c) fail(c, "after object key:value pair");
    }
  }

  function array() {
    i++;
    skipSpace();
    if (peek() === 0x5d) { i++; return; }
    for (;;) {
      value();
      skipSpace();
      const c = peek();
      i++;
      if (c === 0x5d) return;
      if (c !== 0x2c) fail(c, "after array element");
    }
  }

  try {
    value();
    skipSpace();
    if (i < data.length) fail(data[i], "after top-level value");
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxFailure) return e.message;
    if (e instanceof RangeError) return undefined; // nested past the stack: no exact words then
    throw e;
  }
}

/** Go's name for the JSON type of a parsed value, as its unmarshal errors print it. */
export function goJSONType(v: unknown): string {
  return Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "boolean" ? "bool" : typeof v === "object" ? "object" : typeof v;
}
