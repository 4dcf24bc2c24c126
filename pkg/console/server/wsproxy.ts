// WebSockets through the console (a terminal's exec): the page's socket is accepted with the subprotocol it
// asked for, and one to the API server is opened with the kubeconfig's credentials and that subprotocol;
// messages go both ways as they are (the channel framing is the page's and the server's business).
import type { ServerWebSocket, WebSocketHandler } from "bun";
import type { Transport } from "../../client/transport.ts";

export interface Relay {
  path: string;
  protocol: string;
  upstream?: WebSocket;
  /** What the page sent before the API server's socket was open. */
  pending: (string | Uint8Array)[];
}

/** Close codes that may not be sent in a close frame become 1000 (normal) or 1011 (an error). */
const sendable = (code: number) => (code === 1005 ? 1000 : code === 1006 || code === 1015 ? 1011 : code);

export function relayHandler(transport: Transport): WebSocketHandler<Relay> {
  return {
    open(ws: ServerWebSocket<Relay>) {
      const up = transport.websocket(ws.data.path, [ws.data.protocol]);
      up.binaryType = "arraybuffer";
      ws.data.upstream = up;
      up.onopen = () => {
        for (const m of ws.data.pending) up.send(m);
        ws.data.pending = [];
      };
      up.onmessage = (e) => ws.send(typeof e.data === "string" ? e.data : new Uint8Array(e.data as ArrayBuffer));
      up.onclose = (e) => ws.close(sendable(e.code), e.reason);
      up.onerror = () => ws.close(1011, "the API server's socket failed");
    },
    message(ws, message) {
      const up = ws.data.upstream;
      const m = typeof message === "string" ? message : new Uint8Array(message);
      if (up?.readyState === WebSocket.OPEN) up.send(m);
      else ws.data.pending.push(m);
    },
    close(ws) {
      ws.data.upstream?.close();
    },
  };
}
