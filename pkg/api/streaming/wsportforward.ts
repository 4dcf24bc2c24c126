// port-forward for WebSocket clients: the channel protocol relayed to the agent as it is (client
// libraries), or SPDY tunneled through the WebSocket's binary messages (kubectl 1.31+) run here.
import type { KubeletClient } from "../handlers/podlog.ts";
import type { SocketHandlers, Ws } from "../../serving/websocket.ts";
import type { SpdySession } from "../../streaming/spdy/session.ts";
import { type AgentStream, openAgentSocket } from "./agent.ts";
import { spdyPortForward } from "./spdyportforward.ts";

/** The channels relayed: `location` already names the ports. */
export function websocketPortForward(location: string, kubelet: KubeletClient): SocketHandlers {
  let agent: AgentStream | undefined;
  return {
    open(ws: Ws) {
      agent = openAgentSocket(location, kubelet, "v4.channel.k8s.io", (m) => ws.send(m), () => ws.close(1000));
    },
    message(_ws, data) { agent?.send(data); },
    close() { agent?.close(); },
  };
}

/** SPDY inside the WebSocket. */
export function tunneledPortForward(location: string, kubelet: KubeletClient): SocketHandlers {
  let session: SpdySession | undefined;
  return {
    open(ws: Ws) {
      session = spdyPortForward({ write: (b) => void ws.send(b), close: () => ws.close(1000) }, location, kubelet);
    },
    message(_ws, data) { session?.receive(data); },
    close() { session?.shut(); },
  };
}
