// port-forward for SPDY clients (kubectl up to 1.30 over an upgraded connection, 1.31+ tunneled through a
// WebSocket): per forwarded connection the client opens an error and a data stream with one `requestid`;
// once both are there, a WebSocket to the agent's /portForward for that port carries the connection. The
// agent's error channel goes to the error stream; the connection's end ends both streams. Reading from an
// agent pauses while the client's connection is full, reading the client's while an agent's socket is.
import type { KubeletClient } from "../handlers/podlog.ts";
import { CLOSE_CHANNEL } from "../../streaming/portforward.ts";
import { type SpdyStream, SpdySession, type SpdyTransport, withChannel } from "../../streaming/spdy/session.ts";
import { type AgentStream, agentFailure, openAgentSocket } from "./agent.ts";
import { Holds, relayTo } from "../../streaming/flow.ts";

interface Pair { data?: SpdyStream; error?: SpdyStream; agent?: AgentStream }

export function spdyPortForward(transport: SpdyTransport, location: string, kubelet: KubeletClient): SpdySession {
  const session = new SpdySession(transport);
  const pairs = new Map<string, Pair>();

  const start = (id: string, p: Required<Omit<Pair, "agent">> & Pair, port: string) => {
    const seen = new Set<number>();
    const to = `${location}?port=${encodeURIComponent(port)}`;
    const agent = openAgentSocket(to, kubelet, "v4.channel.k8s.io", (m) => {
      // each channel's first message is its port
      if (!seen.has(m[0])) return void seen.add(m[0]);
      relayTo(session.transport, fromAgent, () => (m[0] === 0 ? p.data : p.error).write(m.subarray(1)));
    }, (opened) => {
      if (!opened) p.error.write(Buffer.from(agentFailure(to, false)));
      p.data.end();
      p.error.end();
      pairs.delete(id);
    });
    const fromAgent = new Holds(agent);
    p.agent = agent;
    p.data.onData = (d) => relayTo(agent, session.holds, () => agent.send(withChannel(0, d)));
    p.data.onEnd = () => agent.send(Buffer.from([CLOSE_CHANNEL, 0]));
  };

  session.onStream = (s) => {
    const type = s.headers.streamtype, port = s.headers.port ?? "";
    // kubectl before requestIDs: one connection per port at a time
    const id = s.headers.requestid ?? `port ${port}`;
    if ((type !== "data" && type !== "error") || !port) return s.end();
    const p = pairs.get(id) ?? {};
    if (p[type]) return s.end();
    p[type] = s;
    pairs.set(id, p);
    if (p.data && p.error) start(id, p as Required<Omit<Pair, "agent">>, port);
  };
  session.onClose = () => {
    for (const p of pairs.values()) p.agent?.close();
    pairs.clear();
  };
  return session;
}
