// A node's or pod's CPU and memory from the metrics API (metrics.k8s.io, as `kubectl top` reads it), as two
// small charts of the last five minutes drawn by uPlot (loaded only when the tab opens). The metrics API
// cannot be watched: it is read every REFRESH_MS while the tab is open, and the points live in the page.
import { useEffect, useRef, useState } from "preact/hooks";
import "uplot/dist/uPlot.min.css";
import { ApiError, getJSON } from "./api.ts";
import { ErrorState } from "./states.tsx";
import { parseQuantity } from "../../util/quantity.ts";

/** A quantity the metrics API reported, in base units (cores, bytes); 0 when missing. */
const quantity = (q: string | undefined) => parseQuantity(q) ?? 0;

const REFRESH_MS = 5000;
const KEEP = 60;
const WINDOW_S = KEEP * REFRESH_MS / 1000;
/** A figure to read at a glance: whole units from 10 up, one decimal below. */
const shown = (n: number) => (n >= 10 ? String(Math.round(n)) : n.toFixed(1));

/** The usage a metrics object reports: a node's own, a pod's summed over its containers. */
function usage(m: any): { cpu: number; memory: number } {
  const parts = m.usage ? [m.usage] : (m.containers ?? []).map((c: any) => c.usage);
  return parts.reduce((t: { cpu: number; memory: number }, u: any) => ({ cpu: t.cpu + quantity(u?.cpu), memory: t.memory + quantity(u?.memory) }), { cpu: 0, memory: 0 });
}

export const metricsPath = (kind: "nodes" | "pods", ns: string | undefined, name: string) =>
  `/apis/metrics.k8s.io/v1beta1${kind === "pods" ? `/namespaces/${encodeURIComponent(ns ?? "")}` : ""}/${kind}/${encodeURIComponent(name)}`;

export function Metrics({ kind, ns, name }: { kind: "nodes" | "pods"; ns?: string; name: string }) {
  const [points, setPoints] = useState<{ t: number; cpu: number; memory: number }[]>([]);
  const [error, setError] = useState<ApiError | undefined>();
  useEffect(() => {
    const abort = new AbortController();
    const read = async () => {
      try {
        const m = await getJSON(metricsPath(kind, ns, name), "application/json", abort.signal);
        setError(undefined);
        setPoints((p) => [...p, { t: Date.parse(m.timestamp) / 1000 || Date.now() / 1000, ...usage(m) }].slice(-KEEP));
      } catch (e) {
        if (!abort.signal.aborted) setError(e instanceof ApiError ? e : new ApiError({ code: 0, reason: "Disconnected", message: String(e) }));
      }
    };
    void read();
    const timer = setInterval(read, REFRESH_MS);
    return () => { abort.abort(); clearInterval(timer); };
  }, [kind, ns, name]);
  if (error && !points.length) return <ErrorState error={error} />;
  const last = points[points.length - 1];
  return (
    <div class="metrics">
      <Chart title="CPU" unit="millicores" value={last && `${shown(last.cpu * 1000)}m`} points={points.map((p) => [p.t, p.cpu * 1000])} />
      <Chart title="Memory" unit="MiB" value={last && `${shown(last.memory / 1024 ** 2)}Mi`} points={points.map((p) => [p.t, p.memory / 1024 ** 2])} />
    </div>
  );
}

function Chart({ title, unit, value, points }: { title: string; unit: string; value?: string; points: [number, number][] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<any>(null);
  const data = (): [number[], number[]] => [points.map((p) => p[0]), points.map((p) => p[1])];
  const latest = useRef(data);
  latest.current = data;
  useEffect(() => {
    let disposed = false;
    (async () => {
      const { default: UPlot } = await import("uplot");
      if (disposed || !box.current) return;
      const color = getComputedStyle(document.documentElement).getPropertyValue("--accent").trim() || "#2563eb";
      plot.current = new UPlot({
        width: 360, height: 120, legend: { show: false },
        // the last five minutes, whatever has been read of them so far
        scales: { x: { time: true, range: (_u: unknown, _min: number, max: number) => [max - WINDOW_S, max + REFRESH_MS / 1000] } },
        series: [{}, { label: `${title} (${unit})`, stroke: color, fill: `${color}22`, width: 1.5, points: { show: true, size: 5 } }],
        axes: [
          { stroke: "currentColor", values: (_u: unknown, ticks: number[]) => ticks.map((t) => new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false })), space: 60 },
          { stroke: "currentColor", size: 50 },
        ],
      }, latest.current(), box.current);
    })();
    return () => { disposed = true; plot.current?.destroy(); plot.current = null; };
  }, []);
  useEffect(() => { plot.current?.setData(data()); }, [points]);
  return (
    <figure class="chart" data-metric={title.toLowerCase()}>
      <figcaption>{title} <span class="value">{value ?? "…"}</span> <span class="muted">{unit}</span></figcaption>
      <div ref={box} />
    </figure>
  );
}
