// SPDY upgrades on the secure port. Bun.serve hands over no socket but a WebSocket's, so the TLS front
// (../../serving/tlsfront.ts) keeps a connection whose first request asks for `Upgrade: SPDY/3.1`. The
// request itself still takes the whole filter chain: it is sent to the HTTP server behind, marked as an
// upgrade check (a one-time token naming the front connection's peer), and the handler answers with the
// agent location instead of upgrading. A refusal goes back to the client as it is; otherwise the front
// answers 101 and the session runs here. kubectl 1.31+'s port-forward WebSocket, SPDY tunneled inside, is
// kept the same way (./wstunnel.ts does its framing).
import { randomUUID } from "node:crypto";
import type { KubeletClient } from "../handlers/podlog.ts";
import type { Peer, TakenConnection } from "../../serving/tlsfront.ts";
import { SPDY_EXEC_PROTOCOLS, pickProtocol } from "../../streaming/remotecommand.ts";
import { SPDY_PORTFORWARD_PROTOCOL } from "../../streaming/portforward.ts";
import { spdyExec } from "./spdyexec.ts";
import { spdyPortForward } from "./spdyportforward.ts";
import { commaList } from "../../util/commalist.ts";
import { tunnelAccept, tunnelTransport } from "./wstunnel.ts";

/**
 * The first requests the TLS front keeps: SPDY upgrades, and a pod's port-forward WebSocket asking for
 * SPDY tunneled inside (what else asks for a WebSocket goes to Bun.serve).
 */
export const TAKEN_UPGRADES = /^upgrade:\s*spdy\/|^(?=[\s\S]*^upgrade:\s*websocket\b)(?=[\s\S]*^sec-websocket-key:)(?=[\s\S]*^sec-websocket-protocol:[^\r\n]*SPDY\/3\.1\+portforward\.k8s\.io)GET \/api\/v1\/namespaces\/[^/\s]+\/pods\/[^/\s]+\/portforward(\?\S*)? HTTP\/1\.1\r?$/im;

export const CHECK_HEADER = "x-kite-upgrade-check";
/** The handler's answer to a check: where the stream goes. */
export const LOCATION_HEADER = "x-kite-stream-location";

/** Peers of upgrade checks in flight, by token; a token is good once. */
export class UpgradeChecks {
  private readonly pending = new Map<string, Peer>();

  add(peer: Peer): string {
    const token = randomUUID();
    this.pending.set(token, peer);
    return token;
  }

  take(token: string | null): Peer | undefined {
    const peer = token ? this.pending.get(token) : undefined;
    if (token) this.pending.delete(token);
    return peer;
  }
}

interface Head { method: string; path: string; headers: Headers }

function parseHead(raw: Buffer): Head {
  const [line, ...rest] = raw.subarray(0, raw.indexOf("\r\n\r\n")).toString("latin1").split("\r\n");
  const [method, path] = line.split(" ");
  const headers = new Headers();
  for (const h of rest) {
    const i = h.indexOf(":");
    if (i > 0) headers.append(h.slice(0, i).trim(), h.slice(i + 1).trim());
  }
  return { method, path, headers };
}

const HOP_BY_HOP = ["connection", "upgrade", "keep-alive", "transfer-encoding", "content-length", "host", CHECK_HEADER];

/** Runs one upgrade request the front kept: the check through the filter chain, then the session. */
export async function spdyUpgrade(raw: Buffer, peer: Peer, conn: TakenConnection, backendPort: number, checks: UpgradeChecks, kubelet: KubeletClient): Promise<void> {
  const head = parseHead(raw);
  const headers = new Headers(head.headers);
  for (const h of HOP_BY_HOP) headers.delete(h);
  headers.set(CHECK_HEADER, checks.add(peer));
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${backendPort}${head.path}`, { method: head.method, headers });
  } catch {
    return conn.end();
  }
  const location = res.headers.get(LOCATION_HEADER);
  if (res.status !== 200 || !location) {
    const body = Buffer.from(await res.arrayBuffer());
    const type = res.headers.get("content-type");
    conn.write(Buffer.from(`HTTP/1.1 ${res.status} ${res.statusText}\r\n${type ? `Content-Type: ${type}\r\n` : ""}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`));
    conn.write(body);
    return conn.end();
  }
  await res.arrayBuffer();
  const portForward = new URL(location).pathname.startsWith("/portForward/");
  const wsKey = head.headers.get("sec-websocket-key");
  if (wsKey && portForward) {
    conn.write(Buffer.from(tunnelAccept(wsKey)));
    let session: ReturnType<typeof spdyPortForward> | undefined;
    const transport = tunnelTransport(conn, (bytes) => session?.receive(bytes), () => session?.shut());
    session = spdyPortForward(transport, location, kubelet);
    conn.onClose = () => session?.shut();
    return;
  }
  const offered = commaList(head.headers.get("x-stream-protocol-version"));
  const protocol = portForward ? SPDY_PORTFORWARD_PROTOCOL : pickProtocol(offered, SPDY_EXEC_PROTOCOLS) ?? "channel.k8s.io";
  conn.write(Buffer.from(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n${offered.length ? `X-Stream-Protocol-Version: ${protocol}\r\n` : ""}\r\n`));
  const transport = { write: (b: Uint8Array) => conn.write(b), close: () => conn.end(), queued: () => conn.queued(), drained: () => conn.drained(), pause: () => conn.pause(), resume: () => conn.resume() };
  const session = portForward ? spdyPortForward(transport, location, kubelet) : spdyExec(transport, protocol, new URL(head.path, "http://x").searchParams, location, kubelet);
  conn.onData = (chunk) => session.receive(chunk);
  conn.onClose = () => session.shut();
}
