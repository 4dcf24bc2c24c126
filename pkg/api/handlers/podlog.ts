// GET pods/NAME/log (upstream's LogREST): the options checked, the pod's log located on its node's agent
// (../../registry/podlog.ts), and the agent's answer streamed through as text/plain — or, when the agent
// refuses, its words in a Status as upstream's GenericHttpResponseChecker makes them.
import { QueryError, parsePodLogOptions, validatePodLogOptions } from "../podlogoptions.ts";
import { DEFAULT_ADDRESS_TYPES, podLogLocation } from "../../registry/podlog.ts";
import type { Registry } from "../../registry/registry.ts";
import { StatusError, badRequest, internal, invalid, methodNotAllowed } from "../status.ts";
import type { HandlerContext } from "./context.ts";

/** How the API server reaches agents: --kubelet-client-certificate/-key, --kubelet-certificate-authority, --kubelet-timeout, --kubelet-preferred-address-types. */
export interface KubeletClient {
  cert?: string;
  key?: string;
  /** Without a CA the agent's certificate is not verified, as upstream. */
  ca?: string;
  timeoutMs: number;
  preferredAddressTypes: string[];
}

export const DEFAULT_KUBELET_CLIENT: KubeletClient = { timeoutMs: 5000, preferredAddressTypes: DEFAULT_ADDRESS_TYPES };

const POD_LOG = "pods/log";
/** How much of a refusal's body is read (upstream's maxReadLength). */
const MAX_READ = 50_000;

/** An agent's non-2xx answer as upstream's response checker words it. */
function agentError(code: number, body: string, name: string): StatusError {
  if (code === 500) return internal(body);
  if (code === 400) return badRequest(body);
  const generic: Record<number, [string, string]> = {
    401: ["Unauthorized", "the server has asked for the client to provide credentials"],
    403: ["Forbidden", body],
    404: ["NotFound", "the server could not find the requested resource"],
    422: ["Invalid", "the server rejected our request due to an error in our request"],
    503: ["ServiceUnavailable", "the server is currently unable to handle the request"],
  };
  const [reason, message] = generic[code] ?? (code > 500
    ? ["InternalError", `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`]
    : ["", `the server responded with the status code ${code} but did not return more information`]);
  return new StatusError(code, reason, `${message} ( ${POD_LOG} ${name})`, { name, kind: POD_LOG });
}

export async function podLog(ctx: HandlerContext, registry: Registry, kubelet: KubeletClient): Promise<Response> {
  const { info, url } = ctx;
  if (info.verb !== "get") throw methodNotAllowed("the server does not allow this method on the requested resource");
  let o;
  try {
    o = parsePodLogOptions(url.searchParams);
  } catch (e) {
    if (e instanceof QueryError) throw badRequest(e.message);
    throw e;
  }
  const errs = validatePodLogOptions(o);
  if (errs.causes.length) throw invalid({ group: "", resource: "pods", kind: "PodLogOptions" }, info.name, errs.causes);
  const location = await podLogLocation(registry.lookup("", "v1", "pods")!, registry.lookup("", "v1", "nodes")!, info.namespace, info.name, o, kubelet.preferredAddressTypes);
  if (!location) return new Response(null, { headers: { "Content-Type": "text/plain" } });

  // --kubelet-timeout bounds the wait for the agent's answer; the client's leaving ends the stream
  const abort = new AbortController();
  ctx.req.signal.addEventListener("abort", () => abort.abort(), { once: true });
  const timer = setTimeout(() => abort.abort(new Error(`dial timeout after ${kubelet.timeoutMs}ms`)), kubelet.timeoutMs);
  let res: Response;
  try {
    res = await fetch(location, {
      signal: abort.signal,
      tls: { cert: kubelet.cert, key: kubelet.key, ca: kubelet.ca, rejectUnauthorized: !!kubelet.ca && !o.insecureSkipTLSVerifyBackend },
    } as RequestInit);
  } catch (e) {
    const timedOut = abort.signal.reason instanceof Error && !ctx.req.signal.aborted;
    const why = timedOut ? (abort.signal.reason as Error).message
      : ["ConnectionRefused", "ECONNREFUSED"].includes((e as { code?: string }).code ?? "") ? `dial tcp ${new URL(location).host}: connect: connection refused` : (e as Error).message;
    throw new StatusError(500, "", `Get ${JSON.stringify(location)}: ${why}`);
  } finally {
    clearTimeout(timer);
  }
  if (res.status < 200 || res.status > 206) {
    const body = (await res.text()).slice(0, MAX_READ);
    throw agentError(res.status, body, info.name);
  }
  return new Response(res.body, { headers: { "Content-Type": "text/plain" } });
}
