// The metrics flags every program takes (component-base's, v1.21): --disabled-metrics drops families
// from /metrics, --allow-metric-labels turns label values outside an allow-list into "unexpected", and
// --show-hidden-metrics-for-version accepts only the previous minor version. Applied to the Prometheus
// text at scrape time, so every registry of the process (upstream's one legacy registry) is covered.
import { UsageError, repeated } from "../cli/args.ts";
import { VERSION_INFO } from "../version.ts";

export const METRICS_ARGS = {
  "show-hidden-metrics-for-version": { type: "string", description: "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.16'. (Kite hides no metric, so this shows nothing more.)" },
  "disabled-metrics": { type: "string", description: "This flag provides an escape hatch for misbehaving metrics. You must provide the fully qualified metric name in order to disable it. Disclaimer: disabling metrics is higher in precedence than showing hidden metrics. (Comma-separated, repeatable.)" },
  "allow-metric-labels": { type: "string", description: `The map from metric-label to value allow-list of this label. The key's format is <MetricName>,<LabelName>. The value's format is <allowed_value>,<allowed_value>...e.g. metric1,label1='v1,v2,v3', metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'. (Repeatable; a value not allowed is reported as "unexpected".)` },
} as const;

export interface MetricsOptions {
  disabled: Set<string>;
  /** metric → label → allowed values */
  allowLabels: Map<string, Map<string, Set<string>>>;
}

const METRIC = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = "[a-zA-Z_][a-zA-Z0-9_]*";
const BAD_LABELS = "--allow-metric-labels must has a list of kv pair with format `metricName:labelName=labelValue, labelValue,...`";

/** Splits at commas outside quotes, each piece unquoted. */
function fields(v: string): string[] {
  const out: string[] = [];
  let cur = "", quote = "";
  for (const ch of v) {
    if (quote) { if (ch === quote) quote = ""; else cur += ch; continue; }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ",") { out.push(cur.trim()); cur = ""; }
    else cur += ch;
  }
  out.push(cur.trim());
  return out.filter(Boolean);
}

/** Pairs `metric,label=values`: the whole pair quoted ("m,l=a,b") or the values quoted (m,l='a,b'). */
function allowLabels(values: string[], out: MetricsOptions["allowLabels"]) {
  const whole = new RegExp(`^(${METRIC}),(${LABEL})=(.*)$`, "s");
  for (const v of values) {
    const f = fields(v);
    for (let i = 0; i < f.length; i++) {
      let m = whole.exec(f[i]);
      if (!m && new RegExp(`^${METRIC}$`).test(f[i]) && i + 1 < f.length) {
        const rest = new RegExp(`^(${LABEL})=(.*)$`, "s").exec(f[i + 1]);
        if (rest) m = [f[i] + "," + f[++i], f[i - 1], rest[1], rest[2]] as unknown as RegExpExecArray;
      }
      if (!m) throw new UsageError(BAD_LABELS);
      const byLabel = out.get(m[1]) ?? new Map<string, Set<string>>();
      byLabel.set(m[2], new Set(m[3].split(",").map((x) => x.trim()).filter(Boolean)));
      out.set(m[1], byLabel);
    }
  }
}

export function parseMetricsOptions(a: Record<string, any>, rawArgs: string[]): MetricsOptions {
  const shown = String(a["show-hidden-metrics-for-version"] ?? "");
  const previous = `${VERSION_INFO.major}.${Number(VERSION_INFO.minor) - 1}`;
  if (shown && shown !== previous) throw new UsageError(`--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`);
  const given = (flag: string) => { const r = repeated(rawArgs, flag); return r.length ? r : [String(a[flag] ?? "")]; };
  const disabled = new Set(given("disabled-metrics").flatMap((v) => v.split(",")).map((x) => x.trim()).filter(Boolean));
  const labels: MetricsOptions["allowLabels"] = new Map();
  allowLabels(given("allow-metric-labels").filter(Boolean), labels);
  return { disabled, allowLabels: labels };
}

let current: MetricsOptions = { disabled: new Set(), allowLabels: new Map() };

/** Sets the options every /metrics of this process applies from now on. */
export function configureMetrics(o: MetricsOptions) { current = o; }

const SUFFIXES = ["_bucket", "_sum", "_count", "_created", "_total", "_info"];
const familyOf = (name: string, families: Set<string>) => families.has(name) ? name : SUFFIXES.map((s) => name.endsWith(s) ? name.slice(0, -s.length) : "").find((f) => f && families.has(f)) ?? name;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(.*)$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The Prometheus text with the configured metrics dropped and label values outside allow-lists replaced. */
export function applyMetricsOptions(text: string, o: MetricsOptions = current): string {
  if (o.disabled.size === 0 && o.allowLabels.size === 0) return text;
  const families = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
  const out: string[] = [];
  const merged = new Map<string, number>();
  for (const line of text.split("\n")) {
    const meta = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (meta) { if (!o.disabled.has(meta[1])) out.push(line); continue; }
    const s = SAMPLE.exec(line);
    if (!s) { if (line) out.push(line); continue; }
    const family = familyOf(s[1], families);
    if (o.disabled.has(family)) continue;
    const allowed = o.allowLabels.get(family);
    if (!allowed) { out.push(line); continue; }
    const labels = (s[2] ?? "").replace(LABEL_PAIR, (pair, k: string, v: string) => (allowed.get(k) && !allowed.get(k)!.has(v) ? `${k}="unexpected"` : pair));
    // values that became "unexpected" fold into one series, as upstream records them
    const key = `${s[1]}{${labels}}`;
    if (merged.has(key)) { merged.set(key, merged.get(key)! + Number(s[3])); continue; }
    merged.set(key, Number(s[3]));
    out.push(key);
  }
  return out.map((l) => (merged.has(l) ? `${l} ${merged.get(l)}` : l)).join("\n") + "\n";
}
