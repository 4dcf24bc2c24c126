// Every stream a page follows (watches, followed logs) on ONE WebSocket: a browser keeps at most six
// HTTP/1.1 connections per host, and each open watch holds one, so a page with a list, an object, its
// events and a log would starve its own requests. The page sends {id, path, accept} to open a stream and
// {id, close: true} to end it; the console answers {id, lines: [...]} as the API server's answer arrives
// (its lines, split on newlines), then {id, end: true}, or {id, error: Status} for a refused request.
import type { ServerWebSocket, WebSocketHandler } from "bun";
import type { Transport } from "../../client/transport.ts";
import { PROXIED } from "./proxy.ts";

export const MUX_PROTOCOL = "kite.console.streams";

export interface Mux { streams: Map<number, AbortController> }

type Sock = ServerWebSocket<Mux>;

const send = (ws: Sock, m: object) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };

async function follow(transport: Transport, ws: Sock, id: number, path: string, accept: string, abort: AbortController) {
  try {
    if (!PROXIED.test(new URL(path, "http://console").pathname)) {
      return send(ws, { id, error: { kind: "Status", code: 404, reason: "NotFound", message: `the console streams no ${path}` } });
    }
    const res = await transport.forward(path, { method: "GET", headers: { accept }, signal: abort.signal });
    if (!res.ok) {
      const text = await res.text();
      let error: unknown;
      try { error = JSON.parse(text); } catch { error = { message: text || res.statusText }; }
      return send(ws, { id, error: { ...(error as object), code: res.status } });
    }
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const lines = (rest + value).split("\n");
      rest = lines.pop()!;
      if (lines.length) send(ws, { id, lines });
    }
    if (rest) send(ws, { id, lines: [rest] });
    send(ws, { id, end: true });
  } catch (e) {
    if (abort.signal.aborted) return;
    send(ws, { id, error: { code: 0, reason: "Disconnected", message: `the console lost the stream: ${(e as Error).message}` } });
  } finally {
    ws.data.streams.delete(id);
  }
}

export function muxHandler(transport: Transport): WebSocketHandler<Mux> {
  return {
    open() {},
    message(ws, message) {
      let m: { id?: unknown; path?: unknown; accept?: unknown; close?: unknown };
      try { m = JSON.parse(String(message)); } catch { return ws.close(1003, "messages are JSON"); }
      if (typeof m.id !== "number") return ws.close(1003, "a message names its stream's id");
      if (m.close) {
        ws.data.streams.get(m.id)?.abort();
        ws.data.streams.delete(m.id);
        return;
      }
      if (typeof m.path !== "string" || ws.data.streams.has(m.id)) return ws.close(1003, "a new stream needs a path and an unused id");
      const abort = new AbortController();
      ws.data.streams.set(m.id, abort);
      void follow(transport, ws, m.id, m.path, typeof m.accept === "string" ? m.accept : "application/json", abort);
    },
    close(ws) {
      for (const a of ws.data.streams.values()) a.abort();
      ws.data.streams.clear();
    },
  };
}
