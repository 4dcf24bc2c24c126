// exec for WebSocket clients (kubectl 1.30+, client libraries): the client's channel messages go to the
// agent as they are, the agent's to the client (v4 and v5 share the framing; only v5 closes channels).
// Either side's reading pauses while the other's queue is past the flow control bound.
import type { KubeletClient } from "../handlers/podlog.ts";
import { type SocketHandlers, type Ws, closeSocket, wsSink } from "../../serving/websocket.ts";
import { Holds, relayTo } from "../../streaming/flow.ts";
import { type AgentStream, dialAgent } from "./agent.ts";

/** Relays a client's WebSocket and the agent's, message for message, each paced by the other. */
export function websocketRelay(dial: (onMessage: (m: Buffer) => void, onEnd: () => void) => AgentStream): SocketHandlers {
  let agent: AgentStream | undefined, fromClient: Holds | undefined;
  return {
    open(ws: Ws) {
      const sink = wsSink(ws);
      fromClient = new Holds(ws);
      const a = dial((m) => relayTo(sink, fromAgent, () => ws.send(m)), () => closeSocket(ws));
      const fromAgent = new Holds(a);
      agent = a;
    },
    message(_ws, data) {
      const a = agent;
      if (a) relayTo(a, fromClient!, () => a.send(data));
    },
    close() { agent?.close(); },
  };
}

export const websocketExec = (location: string, kubelet: KubeletClient): SocketHandlers =>
  websocketRelay((onMessage, onEnd) => dialAgent(location, kubelet, onMessage, onEnd));
