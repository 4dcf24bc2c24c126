// A WebSocket through pods/, services/ and nodes/proxy: the client's connection is upgraded here, one to
// the upstream is opened with the same subprotocols and headers, and messages and closes are relayed both
// ways (what the client sends before the upstream is open waits).
import type { SocketHandlers, Ws } from "../../serving/websocket.ts";

interface Tls { cert?: string; key?: string; ca?: string; rejectUnauthorized: boolean }

/** The codes an endpoint may send itself (1005, 1006 only report a close without one): others become 1000. */
const sendable = (code: number) => (code === 1000 || (code >= 3000 && code < 5000) ? code : 1000);

export function websocketProxy(url: string, headers: Headers, protocols: string[], tls: Tls): SocketHandlers {
  let upstream: WebSocket | undefined;
  const pending: (string | Buffer)[] = [];
  const relay = (m: string | Buffer) => (upstream?.readyState === WebSocket.OPEN ? upstream.send(m) : pending.push(m));
  return {
    open(ws: Ws) {
      const u = new WebSocket(url, { headers: Object.fromEntries(headers), protocols, tls } as unknown as string[]);
      upstream = u;
      u.binaryType = "arraybuffer";
      u.onopen = () => { for (const m of pending.splice(0)) u.send(m); };
      u.onmessage = (e) => ws.send(typeof e.data === "string" ? e.data : Buffer.from(e.data as ArrayBuffer));
      u.onclose = (e) => ws.close(sendable(e.code), e.reason);
      u.onerror = () => ws.close(1011, "error trying to reach service");
    },
    message(_ws, data) { relay(data); },
    text(_ws, data) { relay(data); },
    close(_ws, code, reason) { upstream?.close(sendable(code), reason); },
  };
}
