// The page's streams (watches, followed logs) all share one WebSocket to the console (server/streammux.ts),
// so however many a page follows, they hold one connection, not one of the browser's six per host. The
// socket is opened on first use and again after it is lost; a lost socket fails every stream on it as
// "Disconnected", which the lists and object pages answer by reconnecting.
import { ApiError } from "./api.ts";

interface Open { onLines(lines: string[]): void; resolve(): void; reject(e: unknown): void }

const PROTOCOL = "kite.console.streams";
let socket: Promise<WebSocket> | undefined;
const open = new Map<number, Open>();
let nextId = 1;

const disconnected = (why: string) => new ApiError({ code: 0, reason: "Disconnected", message: why });

function connect(): Promise<WebSocket> {
  return (socket ??= new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(`${location.origin.replace(/^http/, "ws")}/streams`, PROTOCOL);
    const lost = (why: string) => {
      socket = undefined;
      for (const s of open.values()) s.reject(disconnected(why));
      open.clear();
    };
    ws.onopen = () => resolve(ws);
    ws.onerror = () => reject(disconnected("the console is not reachable"));
    ws.onclose = () => lost("the console's stream connection closed");
    ws.onmessage = (e) => {
      const m = JSON.parse(String(e.data));
      const s = open.get(m.id);
      if (!s) return;
      if (m.lines) {
        try {
          s.onLines(m.lines);
        } catch (err) {
          end(ws, m.id);
          s.reject(err);
        }
      } else if (m.error) {
        open.delete(m.id);
        s.reject(new ApiError(m.error));
      } else if (m.end) {
        open.delete(m.id);
        s.resolve();
      }
    };
  }).catch((e) => { socket = undefined; throw e; }));
}

function end(ws: WebSocket, id: number) {
  open.delete(id);
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ id, close: true }));
}

/**
 * Follows `path` (an API path through the console) line by line until the server ends it; rejects with
 * the server's Status when it refuses, "Disconnected" when the connection is lost, or whatever onLines
 * throws (the stream is closed then). Aborting the signal closes the stream.
 */
export async function follow(path: string, accept: string, signal: AbortSignal, onLines: (lines: string[]) => void): Promise<void> {
  const ws = await connect();
  const id = nextId++;
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new DOMException("aborted", "AbortError"));
    open.set(id, { onLines, resolve, reject });
    signal.addEventListener("abort", () => {
      end(ws, id);
      reject(new DOMException("aborted", "AbortError"));
    }, { once: true });
    ws.send(JSON.stringify({ id, path, accept }));
  });
}
