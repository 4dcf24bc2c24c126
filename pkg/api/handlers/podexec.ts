// pods/NAME/exec and pods/NAME/attach (upstream's ExecREST, AttachREST): the pod's container located on its node's agent
// (../../registry/podlog.ts), then the stream upgraded — to a WebSocket here (../streaming/wsexec.ts), or
// for SPDY answered as the front's upgrade check (../streaming/spdyupgrade.ts) — and relayed to the agent.
import type { Server } from "bun";
import { podStreamLocation } from "../../registry/podlog.ts";
import type { Registry } from "../../registry/registry.ts";
import { isWebSocketRequest, upgrade } from "../../serving/websocket.ts";
import { WEBSOCKET_EXEC_PROTOCOLS, execStreams, pickProtocol } from "../../streaming/remotecommand.ts";
import { LOCATION_HEADER } from "../streaming/spdyupgrade.ts";
import { websocketExec } from "../streaming/wsexec.ts";
import { badRequest, methodNotAllowed } from "../status.ts";
import type { HandlerContext } from "./context.ts";
import type { KubeletClient } from "./podlog.ts";
import { commaList } from "../../util/commalist.ts";

export interface StreamRequest {
  server?: Server<any>;
  /** The request is the TLS front's check of a SPDY upgrade: answer where it goes, do not upgrade. */
  upgradeCheck: boolean;
}

/** pods/exec and pods/attach: one protocol, attach without a command. */
export async function podExec(ctx: HandlerContext, registry: Registry, kubelet: KubeletClient, s: StreamRequest, kind: "exec" | "attach" = "exec"): Promise<Response> {
  const { info, url, req } = ctx;
  if (info.verb !== "get" && info.verb !== "create") throw methodNotAllowed("the server does not allow this method on the requested resource");
  if (kind === "exec" && !url.searchParams.getAll("command").length) throw badRequest("you must specify at least 1 command");
  const io = execStreams(url.searchParams);
  if (!io.stdin && !io.stdout && !io.stderr) throw badRequest("you must specify at least 1 of stdin, stdout, stderr");
  const location = await podStreamLocation(registry.lookup("", "v1", "pods")!, registry.lookup("", "v1", "nodes")!, info.namespace, info.name, kind, url.searchParams, kubelet.preferredAddressTypes);
  if (s.upgradeCheck) return new Response(null, { headers: { [LOCATION_HEADER]: location } });
  if (s.server && isWebSocketRequest(req)) {
    const protocol = pickProtocol(commaList(req.headers.get("sec-websocket-protocol")), WEBSOCKET_EXEC_PROTOCOLS);
    if (protocol && upgrade(s.server, req, websocketExec(location, kubelet), protocol)) return new Response(null);
  }
  throw badRequest("Upgrade request required");
}
