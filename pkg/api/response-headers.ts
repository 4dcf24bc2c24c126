// Headers the server adds before any other filter runs, as upstream's outermost filters do: CORS for the
// origins --cors-allowed-origins allows (a preflight OPTIONS is answered here, unauthenticated) and the
// Strict-Transport-Security header of --strict-transport-security-directives.

const ALLOW_METHODS = "POST, GET, OPTIONS, PUT, DELETE, PATCH";
const ALLOW_HEADERS = "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since";

export interface ResponseHeaderOptions {
  corsAllowedOrigins?: RegExp[];
  /** The Strict-Transport-Security value. */
  hsts?: string;
}

export class ResponseHeaders {
  constructor(private o: ResponseHeaderOptions) {}

  get active(): boolean { return !!this.o.hsts || !!this.o.corsAllowedOrigins?.length; }

  /** The headers a request's answer gets, whatever the answer. */
  private headers(req: Request): [string, string][] {
    const out: [string, string][] = [];
    if (this.o.hsts) out.push(["Strict-Transport-Security", this.o.hsts]);
    const origin = req.headers.get("origin");
    if (origin && this.o.corsAllowedOrigins?.some((re) => re.test(origin))) {
      out.push(
        ["Access-Control-Allow-Origin", origin],
        ["Access-Control-Allow-Methods", ALLOW_METHODS],
        ["Access-Control-Allow-Headers", ALLOW_HEADERS],
        ["Access-Control-Expose-Headers", "Date"],
        ["Access-Control-Allow-Credentials", "true"],
      );
    }
    return out;
  }

  /** A preflight from an allowed origin ends here with 204; anything else goes on to the filters. */
  preflight(req: Request): Response | undefined {
    if (req.method !== "OPTIONS") return undefined;
    const headers = this.headers(req);
    return headers.some(([k]) => k === "Access-Control-Allow-Origin") ? new Response(null, { status: 204, headers }) : undefined;
  }

  apply(req: Request, res: Response): Response {
    for (const [k, v] of this.headers(req)) res.headers.set(k, v);
    return res;
  }
}
