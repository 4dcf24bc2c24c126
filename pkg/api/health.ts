// Health endpoints (spec §10): /healthz, /livez, /readyz, one check by name, ?verbose and ?exclude.

export interface Check {
  name: string;
  /** Resolves to null when healthy, or a reason. */
  run(): Promise<string | null>;
  /** Which endpoints include it. */
  in: ("livez" | "readyz" | "healthz")[];
  /** Counts as passing during the livez grace period (unfinished start-up hooks). */
  startup?: boolean;
}

export class Health {
  private checks: Check[] = [];
  private readonly started = Date.now();

  constructor(private livezGraceMs: number) {}

  add(c: Check) { this.checks.push(c); }

  async handle(url: URL): Promise<Response | undefined> {
    const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(url.pathname);
    if (!m) return undefined;
    const endpoint = m[1] as "livez" | "readyz" | "healthz";
    let checks = this.checks.filter((c) => c.in.includes(endpoint));
    if (m[2]) {
      checks = checks.filter((c) => c.name === m[2]);
      if (checks.length === 0) return new Response("404 page not found\n", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    }
    const excluded = new Set(url.searchParams.getAll("exclude"));
    const verbose = url.searchParams.has("verbose");
    const lines: string[] = [];
    let failed = false;
    const inGrace = Date.now() - this.started < this.livezGraceMs;
    const results = await Promise.all(checks.map(async (c) => {
      if (excluded.has(c.name)) return `[+]${c.name} excluded: ok`;
      let reason: string | null;
      try { reason = await c.run(); } catch (e) { reason = (e as Error).message; }
      if (reason !== null && endpoint === "livez" && c.startup && inGrace) reason = null;
      if (reason === null) return `[+]${c.name} ok`;
      failed = true;
      return `[-]${c.name} failed: reason withheld`;
    }));
    lines.push(...results);
    const unknown = [...excluded].filter((x) => !checks.some((c) => c.name === x));
    if (unknown.length) lines.push(`warn: some health checks cannot be excluded: no matches for ${unknown.map((u) => `"${u}"`).join(",")}`);
    const headers = { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" };
    if (failed) return new Response(`${lines.join("\n")}\n${endpoint} check failed\n`, { status: 500, headers });
    if (!verbose) return new Response("ok", { headers });
    return new Response(`${lines.join("\n")}\n${endpoint} check passed\n`, { headers });
  }
}
