// The metrics flags applied to Prometheus text: disabled families vanish, label values outside an
// allow-list become "unexpected" (their series folded into one), and only the previous minor version
// may be shown hidden.
import { expect, test } from "bun:test";
import parse from "parse-prometheus-text-format";
import { UsageError } from "../../pkg/cli/args.ts";
import { applyMetricsOptions, parseMetricsOptions } from "../../pkg/metrics/options.ts";

const TEXT = `# HELP req_total Requests.
# TYPE req_total counter
req_total{verb="GET",code="200"} 3
req_total{verb="LIST",code="200"} 2
req_total{verb="WATCH",code="200"} 4
# HELP lat_seconds Latency.
# TYPE lat_seconds histogram
lat_seconds_bucket{le="1"} 1
lat_seconds_bucket{le="+Inf"} 1
lat_seconds_sum 0.5
lat_seconds_count 1
`;

test("--disabled-metrics drops a family; --allow-metric-labels folds other values into \"unexpected\"", () => {
  const o = parseMetricsOptions({}, ["--disabled-metrics=lat_seconds", "--allow-metric-labels", "req_total,verb='GET'"]);
  const families = parse(applyMetricsOptions(TEXT, o));
  expect(families.map((f) => f.name)).toEqual(["req_total"]);
  expect(families[0].metrics).toEqual([{ labels: { verb: "GET", code: "200" }, value: "3" }, { labels: { verb: "unexpected", code: "200" }, value: "6" }]);
  // the whole pair quoted, as upstream's flag parses it
  expect(parseMetricsOptions({}, ['--allow-metric-labels="req_total,verb=GET,LIST"']).allowLabels.get("req_total")?.get("verb")).toEqual(new Set(["GET", "LIST"]));
});

test("without options the text is left as it is", () => {
  expect(applyMetricsOptions(TEXT, parseMetricsOptions({}, []))).toBe(TEXT);
});

test("--show-hidden-metrics-for-version takes only the previous minor version; bad label lists are refused", () => {
  expect(() => parseMetricsOptions({ "show-hidden-metrics-for-version": "1.20" }, [])).not.toThrow();
  expect(() => parseMetricsOptions({ "show-hidden-metrics-for-version": "1.19" }, [])).toThrow(new UsageError("--show-hidden-metrics-for-version must be omitted or have the value '1.20'. Only the previous minor version is allowed"));
  expect(() => parseMetricsOptions({}, ["--allow-metric-labels=req_total"])).toThrow("--allow-metric-labels must has a list of kv pair");
});
