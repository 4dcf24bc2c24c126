// The API server's WebSocket to a node agent's /exec (v5.channel.k8s.io), authenticated with the
// kubelet client credentials; what the client side sends waits until it is open.
import type { KubeletClient } from "../handlers/podlog.ts";
import { Channel, channelMessage, internalStatus } from "../../streaming/remotecommand.ts";

export interface AgentStream {
  send(message: Uint8Array): void;
  close(): void;
}

/**
 * Opens `location` (https://node:port/exec/...) as a WebSocket. `onMessage` gets each channel message;
 * `onEnd` runs once, after the agent closed — with an error Status first when it never sent one
 * (unreachable, or gone mid-stream).
 */
export function dialAgent(location: string, kubelet: KubeletClient, onMessage: (m: Buffer) => void, onEnd: () => void): AgentStream {
  const ws = new WebSocket(location.replace(/^https:/, "wss:"), {
    protocols: ["v5.channel.k8s.io"],
    tls: { cert: kubelet.cert, key: kubelet.key, ca: kubelet.ca, rejectUnauthorized: !!kubelet.ca },
  } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const pending: Uint8Array[] = [];
  let opened = false, statusSeen = false, ended = false;
  ws.onopen = () => {
    opened = true;
    for (const m of pending.splice(0)) ws.send(m);
  };
  ws.onmessage = (e) => {
    const m = Buffer.from(e.data as ArrayBuffer);
    if (m[0] === Channel.error) statusSeen = true;
    onMessage(m);
  };
  const end = () => {
    if (ended) return;
    ended = true;
    if (!statusSeen) {
      const why = opened ? "error reading from the node agent: the stream ended before the command did" : `error dialing backend: could not reach the node agent at ${new URL(location).host}`;
      onMessage(channelMessage(Channel.error, JSON.stringify(internalStatus(why))));
    }
    onEnd();
  };
  ws.onclose = end;
  ws.onerror = end;
  return {
    send: (m) => (opened ? ws.send(m) : pending.push(m)),
    close: () => {
      ended = true;
      ws.close();
    },
  };
}
