// The port-forward protocols kubectl and the client libraries speak (upstream's portforward.k8s.io):
// over SPDY, one data and one error stream per forwarded connection, paired by their `requestid` header;
// over WebSocket (the kubelet's protocol, which Kite's node agent serves and the API server relays), the
// ports of the query each get two channels — 2i data, 2i+1 error — whose first message is the port,
// two bytes little-endian. Newer kubectl (1.31+) tunnels the SPDY protocol through a WebSocket instead.

/** The SPDY X-Stream-Protocol-Version. */
export const SPDY_PORTFORWARD_PROTOCOL = "portforward.k8s.io";
/** The WebSocket subprotocol of SPDY tunneled through a WebSocket (kubectl 1.31+). */
export const TUNNELED_PORTFORWARD_PROTOCOL = "SPDY/3.1+portforward.k8s.io";
/** WebSocket subprotocols of the channel protocol, most preferred first. */
export const WEBSOCKET_PORTFORWARD_PROTOCOLS = ["v4.channel.k8s.io", "portforward.k8s.io"];

/**
 * Kite's own addition to the channel protocol between the API server and the agent: [255, channel] says
 * the client sends no more on that data channel (a SPDY FIN), so the agent half-closes the connection.
 */
export const CLOSE_CHANNEL = 255;

/** The port prefix every channel starts with. */
export function portPrefix(port: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(port);
  return b;
}

/** The ports of a query (`name` is `ports` at the API server, `port` at the kubelet), or why they are bad. */
export function parsePorts(q: URLSearchParams, name: string): number[] | { error: string } {
  const ports: number[] = [];
  for (const raw of q.getAll(name).flatMap((v) => v.split(","))) {
    const p = Number(raw.trim());
    if (!/^\d+$/.test(raw.trim()) || p < 1 || p > 65535) return { error: `unable to parse "${raw}" as a port: port must be > 0 and < 65536` };
    ports.push(p);
  }
  return ports;
}
