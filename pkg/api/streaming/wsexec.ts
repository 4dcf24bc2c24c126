// exec for WebSocket clients (kubectl 1.30+, client libraries): the client's channel messages go to the
// agent as they are, the agent's to the client (v4 and v5 share the framing; only v5 closes channels).
import type { KubeletClient } from "../handlers/podlog.ts";
import type { SocketHandlers, Ws } from "../../serving/websocket.ts";
import { type AgentStream, dialAgent } from "./agent.ts";

export function websocketExec(location: string, kubelet: KubeletClient): SocketHandlers {
  let agent: AgentStream | undefined;
  return {
    open(ws: Ws) {
      agent = dialAgent(location, kubelet, (m) => ws.send(m), () => ws.close(1000));
    },
    message(_ws, data) { agent?.send(data); },
    close() { agent?.close(); },
  };
}
