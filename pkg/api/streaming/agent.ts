// The API server's WebSockets to a node agent's streams (/exec, /attach: v5.channel.k8s.io; /portForward:
// the kubelet's port-forward channels), authenticated with the kubelet client credentials; what the
// client side sends waits until it is open. Each is a flow control sink (../../streaming/flow.ts) and a
// source that pauses: reading from the agent stops while the client's side is full.
import type { KubeletClient } from "../handlers/podlog.ts";
import { Channel, channelMessage, internalStatus } from "../../streaming/remotecommand.ts";
import { type Pausable, type Sink, polledDrain } from "../../streaming/flow.ts";

export interface AgentStream extends Sink, Pausable {
  send(message: Uint8Array): void;
  close(): void;
}

/**
 * Opens `location` (https://node:port/...) as a WebSocket speaking `protocol`. `onMessage` gets each
 * channel message; `onEnd` runs once, after the agent closed (or could not be reached: `opened` false).
 */
export function openAgentSocket(location: string, kubelet: KubeletClient, protocol: string, onMessage: (m: Buffer) => void, onEnd: (opened: boolean) => void): AgentStream {
  const ws = new WebSocket(location.replace(/^https:/, "wss:"), {
    protocols: [protocol],
    tls: { cert: kubelet.cert, key: kubelet.key, ca: kubelet.ca, rejectUnauthorized: !!kubelet.ca },
  } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const pending: Uint8Array[] = [];
  let opened = false, ended = false, queuedBeforeOpen = 0;
  ws.onopen = () => {
    opened = true;
    for (const m of pending.splice(0)) ws.send(m);
    queuedBeforeOpen = 0;
  };
  ws.onmessage = (e) => onMessage(Buffer.from(e.data as ArrayBuffer));
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd(opened);
  };
  ws.onclose = end;
  ws.onerror = end;
  const queued = () => (opened ? ws.bufferedAmount : queuedBeforeOpen);
  return {
    send: (m) => {
      if (opened) return ws.send(m);
      pending.push(m);
      queuedBeforeOpen += m.length;
    },
    close: () => {
      ended = true;
      // reading again: a paused socket would never see the agent's close frame
      ws.resume();
      ws.close();
    },
    queued,
    // a client WebSocket says nothing when it drains
    drained: () => polledDrain(queued, () => ended),
    pause: () => void ws.pause(),
    resume: () => void ws.resume(),
  };
}

/** Why a stream to the agent failed, in words for the client. */
export const agentFailure = (location: string, opened: boolean) => opened
  ? "error reading from the node agent: the stream ended before the command did"
  : `error dialing backend: could not reach the node agent at ${new URL(location).host}`;

/**
 * The agent's /exec or /attach: as openAgentSocket, with an error Status on the error channel first when
 * the agent never sent one (unreachable, or gone mid-stream).
 */
export function dialAgent(location: string, kubelet: KubeletClient, onMessage: (m: Buffer) => void, onEnd: () => void): AgentStream {
  let statusSeen = false;
  return openAgentSocket(location, kubelet, "v5.channel.k8s.io", (m) => {
    if (m[0] === Channel.error) statusSeen = true;
    onMessage(m);
  }, (opened) => {
    if (!statusSeen) onMessage(channelMessage(Channel.error, JSON.stringify(internalStatus(agentFailure(location, opened)))));
    onEnd();
  });
}
