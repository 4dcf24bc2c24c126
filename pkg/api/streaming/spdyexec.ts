// exec for SPDY/3.1 clients (kubectl up to 1.29, and newer ones falling back): after the 101 the client
// opens one stream per channel (header `streamtype`: error, stdin, stdout, stderr, resize); once every
// stream the query asks for is there, the agent's WebSocket opens and the channels are relayed. The
// error stream gets the Status (v4) or its message (v1–v3); then every stream ends and so does the session.
// Reading from the agent pauses while the client's connection is full, reading the client's while the
// agent's socket is.
import type { KubeletClient } from "../handlers/podlog.ts";
import { Channel, channelMessage, execStreams } from "../../streaming/remotecommand.ts";
import { type SpdyStream, SpdySession, type SpdyTransport, withChannel } from "../../streaming/spdy/session.ts";
import { type AgentStream, dialAgent } from "./agent.ts";
import { Holds, relayTo } from "../../streaming/flow.ts";

/** How long the client has to open its streams (upstream's 30 s stream creation timeout). */
const STREAMS_TIMEOUT_MS = 30_000;

const CHANNELS: Record<string, number> = { stdout: Channel.stdout, stderr: Channel.stderr, error: Channel.error };

export function spdyExec(transport: SpdyTransport, protocol: string, query: URLSearchParams, location: string, kubelet: KubeletClient): SpdySession {
  const session = new SpdySession(transport);
  const io = execStreams(query);
  const expected = ["error", ...(["stdin", "stdout", "stderr"] as const).filter((k) => io[k])];
  if (io.tty && !["channel.k8s.io", "v2.channel.k8s.io"].includes(protocol)) expected.push("resize");
  const streams = new Map<string, SpdyStream>();
  let agent: AgentStream | undefined, fromAgent: Holds | undefined;
  const timer = setTimeout(() => session.close(), STREAMS_TIMEOUT_MS);

  const relay = (m: Buffer) => {
    const payload = m.subarray(1);
    const channel = Object.keys(CHANNELS).find((k) => CHANNELS[k] === m[0]);
    const s = channel && streams.get(channel);
    if (!s) return;
    if (m[0] !== Channel.error || protocol === "v4.channel.k8s.io") return relayTo(session.transport, fromAgent!, () => s.write(payload));
    // before v4 the error stream carries only a failure's message
    const status = JSON.parse(payload.toString());
    if (status.status !== "Success") s.write(Buffer.from(status.message ?? ""));
  };
  const finish = () => {
    for (const s of streams.values()) s.end();
    session.close();
  };
  const start = () => {
    clearTimeout(timer);
    const a = dialAgent(location, kubelet, relay, finish);
    agent = a;
    fromAgent = new Holds(a);
    const stdin = streams.get("stdin");
    if (stdin) {
      stdin.onData = (d) => relayTo(a, session.holds, () => a.send(withChannel(Channel.stdin, d)));
      stdin.onEnd = () => agent?.send(Buffer.from([Channel.close, Channel.stdin]));
    }
    const resize = streams.get("resize");
    // each size is a JSON object; several may come in one frame
    if (resize) resize.onData = (d) => { for (const size of d.toString().match(/\{[^}]*\}/g) ?? []) agent?.send(channelMessage(Channel.resize, size)); };
  };
  session.onStream = (s) => {
    const type = s.headers.streamtype ?? "";
    if (!expected.includes(type) || streams.has(type)) return s.end();
    streams.set(type, s);
    if (expected.every((t) => streams.has(t))) start();
  };
  session.onClose = () => {
    clearTimeout(timer);
    agent?.close();
  };
  return session;
}
