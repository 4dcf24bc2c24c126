// pods/NAME/portforward (upstream's PortForwardREST): the pod's node agent located, then the stream
// upgraded — a WebSocket with the channel protocol (relayed to the agent with the query's ports) or with
// SPDY tunneled inside (../streaming/wsportforward.ts), or SPDY itself through the TLS front's upgrade
// check (../streaming/spdyupgrade.ts, which runs ../streaming/spdyportforward.ts).
import { podPortForwardLocation } from "../../registry/podlog.ts";
import type { Registry } from "../../registry/registry.ts";
import { isWebSocketRequest, upgrade } from "../../serving/websocket.ts";
import { TUNNELED_PORTFORWARD_PROTOCOL, WEBSOCKET_PORTFORWARD_PROTOCOLS, parsePorts } from "../../streaming/portforward.ts";
import { pickProtocol } from "../../streaming/remotecommand.ts";
import { LOCATION_HEADER } from "../streaming/spdyupgrade.ts";
import { tunneledPortForward, websocketPortForward } from "../streaming/wsportforward.ts";
import { badRequest, methodNotAllowed } from "../status.ts";
import type { HandlerContext } from "./context.ts";
import type { StreamRequest } from "./podexec.ts";
import type { KubeletClient } from "./podlog.ts";
import { commaList } from "../../util/commalist.ts";

export async function podPortForward(ctx: HandlerContext, registry: Registry, kubelet: KubeletClient, s: StreamRequest): Promise<Response> {
  const { info, url, req } = ctx;
  if (info.verb !== "get" && info.verb !== "create") throw methodNotAllowed("the server does not allow this method on the requested resource");
  const location = await podPortForwardLocation(registry.lookup("", "v1", "pods")!, registry.lookup("", "v1", "nodes")!, info.namespace, info.name, kubelet.preferredAddressTypes);
  if (s.upgradeCheck) return new Response(null, { headers: { [LOCATION_HEADER]: location } });
  if (s.server && isWebSocketRequest(req)) {
    const offered = commaList(req.headers.get("sec-websocket-protocol"));
    if (offered.includes(TUNNELED_PORTFORWARD_PROTOCOL)) {
      if (upgrade(s.server, req, tunneledPortForward(location, kubelet), TUNNELED_PORTFORWARD_PROTOCOL)) return new Response(null);
    } else {
      const ports = parsePorts(url.searchParams, "ports");
      if ("error" in ports) throw badRequest(ports.error);
      if (!ports.length) throw badRequest(`query parameter "port" is required`);
      const protocol = pickProtocol(offered, WEBSOCKET_PORTFORWARD_PROTOCOLS) ?? (offered.length ? undefined : "");
      const to = `${location}?${ports.map((p) => `port=${p}`).join("&")}`;
      if (protocol !== undefined && upgrade(s.server, req, websocketPortForward(to, kubelet), protocol || undefined)) return new Response(null);
    }
  }
  throw badRequest("Upgrade request required");
}
