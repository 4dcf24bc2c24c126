// YAML output must read back as the same strings under YAML 1.1 (kubectl, go-yaml) and 1.2, quoting
// exactly the values that would otherwise be read as something else — and quickly, for large objects.
import { expect, test } from "bun:test";
import YAML from "yaml";
import { toYAML } from "../../pkg/api/negotiate.ts";

const TRICKY = ["yes", "Yes", "NO", "off", "On", "y", "N", "null", "Null", "~", "true", "False", "e1", "E5", "e-3", "0644", "1:20",
  "2026-11-23", "1e3", ".5", "0x1F", "app", "nginx-1", "a/b", "x_y", "k0", "v-1", "abc-", "inf", "nan", ".inf", "-", "a b", "#x", "*a", "&a"];

test("every string reads back as itself under YAML 1.1 and 1.2", () => {
  const out = toYAML({ data: Object.fromEntries(TRICKY.map((s, i) => [`k${i}`, s])) });
  for (const version of ["1.1", "1.2"] as const) {
    expect(Object.values(YAML.parse(out, { version }).data)).toEqual(TRICKY);
  }
});

test("plain words are not quoted, words a reader would take for another type are", () => {
  const out = toYAML({ a: "nginx", b: "yes", c: "e1" });
  expect(out).toBe(`a: nginx\nb: "yes"\nc: "e1"\n`);
});

test("an object of 100,000 plain values is written in well under a second", () => {
  const data = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, `v${i}`]));
  const t0 = performance.now();
  toYAML({ data });
  expect(performance.now() - t0).toBeLessThan(500);
});
