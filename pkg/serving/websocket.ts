// WebSocket connections on a Bun.serve listener: each upgraded connection carries its own handlers in its
// data, so one `websocket` option serves every kind of stream a server upgrades. Each is also a flow
// control sink (../streaming/flow.ts): what send() queued, and its drain.
import type { ServerWebSocket, WebSocketHandler } from "bun";
import { HIGH_WATER, type Sink, Waiters } from "../streaming/flow.ts";

export interface SocketHandlers {
  open?(ws: Ws): void;
  message?(ws: Ws, data: Buffer): void;
  /** Text frames, for relays that keep them text; without it they come to `message` as bytes. */
  text?(ws: Ws, data: string): void;
  close?(ws: Ws, code: number, reason: string): void;
}

export interface WsData { handlers: SocketHandlers; drains?: Waiters }
export type Ws = ServerWebSocket<WsData>;

/** Past this a WebSocket's send() would drop messages: far above HIGH_WATER, which the relays keep to. */
const BACKPRESSURE_LIMIT = 64 * HIGH_WATER;

export const websocketDispatch: WebSocketHandler<WsData> = {
  open: (ws) => ws.data.handlers.open?.(ws),
  message: (ws, m) => {
    const h = ws.data.handlers;
    if (typeof m === "string" && h.text) h.text(ws, m);
    else h.message?.(ws, typeof m === "string" ? Buffer.from(m) : m);
  },
  drain: (ws) => ws.data.drains?.release(),
  close: (ws, code, reason) => {
    ws.data.drains?.release();
    ws.data.handlers.close?.(ws, code, reason);
  },
  perMessageDeflate: false,
  backpressureLimit: BACKPRESSURE_LIMIT,
};

/** A server WebSocket as a flow control sink. */
export const wsSink = (ws: Ws): Sink => ({
  queued: () => (ws.readyState === 1 ? ws.getBufferedAmount() : 0),
  drained: () => (ws.readyState === 1 ? (ws.data.drains ??= new Waiters()).wait() : Promise.resolve()),
});

/** Closes a WebSocket that flow control may have paused: it reads again, or the peer's close frame would wait. */
export function closeSocket(ws: Ws, code = 1000) {
  ws.resume();
  ws.close(code);
}

/** Upgrades `req` with `handlers` and the chosen subprotocol; false when it is no WebSocket request. */
export function upgrade(server: { upgrade(req: Request, o: object): boolean }, req: Request, handlers: SocketHandlers, protocol?: string): boolean {
  return server.upgrade(req, { data: { handlers }, headers: protocol ? { "Sec-WebSocket-Protocol": protocol } : {} });
}

export const isWebSocketRequest = (req: Request) => (req.headers.get("upgrade") ?? "").toLowerCase() === "websocket";
