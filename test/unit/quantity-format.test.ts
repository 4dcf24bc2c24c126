// Quantities in canonical form, as upstream's Quantity.String() prints them in validation messages.
import { expect, test } from "bun:test";
import { canonicalQuantity } from "../../pkg/validation/quantity-format.ts";

const CASES: [string | number, string][] = [
  ["2000m", "2"], ["1500m", "1500m"], ["1.5", "1500m"], ["0.1", "100m"], ["2.5", "2500m"], [2, "2"], [0.25, "250m"],
  ["1000", "1k"], ["2048", "2048"], ["5k", "5k"], ["129M", "129M"], ["1E", "1E"],
  ["1Gi", "1Gi"], ["1536Mi", "1536Mi"], ["1.5Gi", "1536Mi"], ["0.5Gi", "512Mi"], ["1000Ki", "1000Ki"],
  ["0.5Ki", "512"], ["1024", "1024"], ["100Mi", "100Mi"],
  ["1e3", "1e3"], ["12e2", "1200"], ["129e6", "129e6"],
  ["1.5m", "1500u"], ["1n", "1n"], ["0.1n", "1n"], ["0", "0"], ["0Gi", "0"], ["-1", "-1"], ["-12e2", "-1200"],
];

test("each quantity prints as upstream prints it", () => {
  for (const [given, want] of CASES) expect(`${given} → ${canonicalQuantity(given)}`).toBe(`${given} → ${want}`);
});

test("what is no quantity has no canonical form", () => {
  for (const bad of ["lots", "", "1.2.3", "1Qi", ".", true]) expect(canonicalQuantity(bad)).toBeUndefined();
});
