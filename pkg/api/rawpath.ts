// The path as the client sent it. Bun builds request.url with the URL parser, which resolves `.` and `..`
// segments (`%2e` spellings too), reads `\` as `/` and ends the path at `#`: `DELETE .../configmaps/..`
// would arrive as a DELETE of the namespace itself. Bun's router matches the raw request-target, so
// routes of one to MAX_SEGMENTS parameters hand the handler every segment as sent (percent-decoded).
import type { Server } from "bun";

/** The deepest resource path is /apis/G/V/watch/namespaces/NS/R/NAME/SUB: nine segments. */
export const MAX_SEGMENTS = 10;

/**
 * What the router knew of a request's raw path: its segments, or `unmatched` when no route took it
 * (an empty segment, a trailing slash, or more segments than any resource path has).
 */
export type RawPath = string[] | "unmatched";

type Handle = (req: Request, server: Server<undefined>, raw: RawPath) => Response | Promise<Response>;

/** Routes `/:p0` … `/:p0/…/:p9`, each passing its parameters on as the raw segments. */
export function rawSegmentRoutes(handle: Handle): Record<string, (req: Request & { params: Record<string, string> }, server: Server<undefined>) => Response | Promise<Response>> {
  const routes: Record<string, (req: Request & { params: Record<string, string> }, server: Server<undefined>) => Response | Promise<Response>> = {};
  for (let n = 1; n <= MAX_SEGMENTS; n++) {
    const names = Array.from({ length: n }, (_, i) => `p${i}`);
    routes[`/:${names.join("/:")}`] = (req, server) => handle(req, server, names.map((k) => req.params[k]));
  }
  return routes;
}
