// port-forward for WebSocket clients: the channel protocol relayed to the agent as it is (client
// libraries), or SPDY tunneled through the WebSocket's binary messages (kubectl 1.31+) run here.
import type { KubeletClient } from "../handlers/podlog.ts";
import { type SocketHandlers, type Ws, closeSocket, wsSink } from "../../serving/websocket.ts";
import type { SpdySession } from "../../streaming/spdy/session.ts";
import { openAgentSocket } from "./agent.ts";
import { spdyPortForward } from "./spdyportforward.ts";
import { websocketRelay } from "./wsexec.ts";

/** The channels relayed: `location` already names the ports. */
export const websocketPortForward = (location: string, kubelet: KubeletClient): SocketHandlers =>
  websocketRelay((onMessage, onEnd) => openAgentSocket(location, kubelet, "v4.channel.k8s.io", onMessage, onEnd));

/** SPDY inside the WebSocket. */
export function tunneledPortForward(location: string, kubelet: KubeletClient): SocketHandlers {
  let session: SpdySession | undefined;
  return {
    open(ws: Ws) {
      session = spdyPortForward({ ...wsSink(ws), write: (b) => void ws.send(b), close: () => closeSocket(ws), pause: () => ws.pause(), resume: () => ws.resume() }, location, kubelet);
    },
    message(_ws, data) { session?.receive(data); },
    close() { session?.shut(); },
  };
}
