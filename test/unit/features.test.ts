// --feature-gates as upstream v1.21 parses it: every known gate, AllAlpha/AllBeta, locked GA gates,
// Go's bool spellings, upstream's reasons, the warnings of GA and deprecated gates, and the --help list.
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../pkg/cli/args.ts";
import { parseGates } from "../../pkg/cli/component-flags.ts";
import { knownFeatures, parseFeatureGates } from "../../pkg/features/featuregate.ts";
import { GATES } from "../../pkg/features/gates.ts";

describe("parseFeatureGates", () => {
  test("defaults are upstream v1.21's", () => {
    const { features, warnings } = parseFeatureGates([]);
    expect(features).toMatchObject({ APIListChunking: true, ServerSideApply: true, WarningHeaders: true, APIServerIdentity: false, EphemeralContainers: false, DownwardAPIHugePages: false, WatchBookmark: true, AllAlpha: false, AllBeta: false });
    expect(Object.keys(features).length).toBeGreaterThan(120);
    expect(warnings).toEqual([]);
  });

  test("key=value pairs, comma-separated, with Go's bool spellings; later occurrences add to earlier ones", () => {
    const { features } = parseFeatureGates(["APIListChunking=false, EphemeralContainers=T", "ServerSideApply=0,APIListChunking=1"]);
    expect(features).toMatchObject({ APIListChunking: true, EphemeralContainers: true, ServerSideApply: false });
  });

  test("AllAlpha and AllBeta set the gates of their stage that are not named", () => {
    const { features } = parseFeatureGates(["AllAlpha=true,AllBeta=false,APIServerIdentity=false"]);
    expect(features).toMatchObject({ AllAlpha: true, EphemeralContainers: true, APIServerIdentity: false, APIListChunking: false, WatchBookmark: true, StreamingProxyRedirects: true });
  });

  test("GA and deprecated gates warn in upstream's words", () => {
    const { features, warnings } = parseFeatureGates(["StreamingProxyRedirects=false,DryRun=true"]);
    expect(features.StreamingProxyRedirects).toBe(false);
    expect(warnings).toEqual([
      "Setting deprecated feature gate StreamingProxyRedirects=false. It will be removed in a future release.",
      "Setting GA feature gate DryRun=true. It will be removed in a future release.",
    ]);
  });

  test.each([
    ["NoSuchGate=true", "unrecognized feature gate: NoSuchGate"],
    ["APIListChunking=maybe", 'invalid value of APIListChunking=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["APIListChunking", "missing bool value for APIListChunking"],
    ["WatchBookmark=false", "cannot set feature gate WatchBookmark to false, feature is locked to true"],
    ["LegacyNodeRoleBehavior=true", "cannot set feature gate LegacyNodeRoleBehavior to true, feature is locked to false"],
  ])("%p is refused: %s", (value, reason) => {
    expect(() => parseFeatureGates([value])).toThrow(reason);
    expect(() => parseGates(["APIListChunking=true", value])).toThrow(new UsageError(`invalid argument "${value}" for "--feature-gates" flag: ${reason}`));
  });
});

test("--help lists every ALPHA and BETA gate, sorted, as upstream prints them, and no GA or deprecated one", () => {
  const known = knownFeatures();
  expect(known).toContain("APIListChunking=true|false (BETA - default=true)");
  expect(known).toContain("AllAlpha=true|false (ALPHA - default=false)");
  expect(known).toContain("APIServerIdentity=true|false (ALPHA - default=false)");
  expect(known).toEqual([...known].sort());
  expect(known.length).toBe(Object.values(GATES).filter((g) => g.stage === "ALPHA" || g.stage === "BETA").length);
  expect(known.some((k) => k.startsWith("WatchBookmark=") || k.startsWith("StreamingProxyRedirects="))).toBe(false);
});
