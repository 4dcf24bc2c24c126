// WebSocket connections on a Bun.serve listener: each upgraded connection carries its own handlers in its
// data, so one `websocket` option serves every kind of stream a server upgrades.
import type { ServerWebSocket, WebSocketHandler } from "bun";

export interface SocketHandlers {
  open?(ws: Ws): void;
  message?(ws: Ws, data: Buffer): void;
  /** Text frames, for relays that keep them text; without it they come to `message` as bytes. */
  text?(ws: Ws, data: string): void;
  close?(ws: Ws, code: number, reason: string): void;
}

export interface WsData { handlers: SocketHandlers }
export type Ws = ServerWebSocket<WsData>;

export const websocketDispatch: WebSocketHandler<WsData> = {
  open: (ws) => ws.data.handlers.open?.(ws),
  message: (ws, m) => {
    const h = ws.data.handlers;
    if (typeof m === "string" && h.text) h.text(ws, m);
    else h.message?.(ws, typeof m === "string" ? Buffer.from(m) : m);
  },
  close: (ws, code, reason) => ws.data.handlers.close?.(ws, code, reason),
  perMessageDeflate: false,
};

/** Upgrades `req` with `handlers` and the chosen subprotocol; false when it is no WebSocket request. */
export function upgrade(server: { upgrade(req: Request, o: object): boolean }, req: Request, handlers: SocketHandlers, protocol?: string): boolean {
  return server.upgrade(req, { data: { handlers }, headers: protocol ? { "Sec-WebSocket-Protocol": protocol } : {} });
}

export const isWebSocketRequest = (req: Request) => (req.headers.get("upgrade") ?? "").toLowerCase() === "websocket";
