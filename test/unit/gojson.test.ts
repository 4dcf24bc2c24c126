// Go's encoding/json words for the first syntax error of a document, which upstream's decoding errors quote.
import { expect, test } from "bun:test";
import { goJSONSyntaxError } from "../../pkg/util/gojson.ts";

const CASES: [string, string | undefined][] = [
  ['{"a": [1, 2.5e-3, "x\\u00e9", true, false, null], "b": {}}', undefined],
  ["apiVersion: v1\nkind: Namespace", "invalid character 'a' looking for beginning of value"],
  ["", "unexpected end of JSON input"],
  ["  \n", "unexpected end of JSON input"],
  ['{"a":1', "unexpected end of JSON input"],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ["{a:1}", "invalid character 'a' looking for beginning of object key string"],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
  ["[1 2]", "invalid character '2' after array element"],
  ["[1,]", "invalid character ']' looking for beginning of value"],
  ['"a\\qb"', "invalid character 'q' in string escape code"],
  ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
  ['"a\tb"', "invalid character '\\t' in string literal"],
  ["-x", "invalid character 'x' in numeric literal"],
  ["1.x", "invalid character 'x' after decimal point in numeric literal"],
  ["1e+x", "invalid character 'x' in exponent of numeric literal"],
  ["trux", "invalid character 'x' in literal true (expecting 'e')"],
  ["nulL", "invalid character 'L' in literal null (expecting 'l')"],
  ["{}x", "invalid character 'x' after top-level value"],
  ["01", "invalid character '1' after top-level value"],
  ["'", "invalid character '\\'' looking for beginning of value"],
  ["\u00ff", "invalid character 'Ã' looking for beginning of value"],
];

test("syntax errors in Go's words", () => {
  for (const [doc, want] of CASES) expect({ doc, got: goJSONSyntaxError(new TextEncoder().encode(doc)) }).toEqual({ doc, got: want });
});
