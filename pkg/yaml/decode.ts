// One YAML request body as upstream's decoder reads it (YAML 1.1 scalars, the last of a repeated key wins),
// in time linear in its size: the fast reader takes what manifests use, at any size up to the request
// limit (some 50 ms per megabyte); the full reader takes the rest, but only up to FULL_MAX characters: it
// needs up to 6 µs per character of flow collections (a second for 64 KiB of `[[],[],...`, more before
// the JIT warms up), all of it on the event loop.
import { parseYamlFast } from "./fast.ts";
import { type OnRepeat, parseYamlFull } from "./full.ts";
import { YamlLimitError } from "./limits.ts";

export const FULL_MAX = 32 * 1024;

/** The value of a body that holds exactly one YAML document; throws on anything else. `repeated` is told
 * of every repeated key (whose last value is kept). */
export function decodeYaml(text: string, repeated?: OnRepeat): unknown {
  const found: [number, string][] = [];
  let docs = parseYamlFast(text, { lastKeyWins: true, repeated: repeated && ((line, key) => found.push([line, key])) });
  if (!docs) {
    if (text.length > FULL_MAX) {
      throw new YamlLimitError(`YAML over ${FULL_MAX} characters may use block and one-line flow collections, plain, quoted and literal scalars only (no anchors, tags, folded or multi-line scalars); send it as JSON`);
    }
    docs = parseYamlFull(text, repeated);
  } else for (const [line, key] of found) repeated!(line, key);
  if (docs.length !== 1) throw new Error(`expected one YAML document, found ${docs.length}`);
  return docs[0];
}
