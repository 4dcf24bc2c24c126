// kubectl 1.31+'s port-forward WebSocket (SPDY tunneled through binary messages) on a connection the TLS
// front kept, as SPDY upgrades are (./spdyupgrade.ts): the WebSocket framing is done here, so the tunnel's
// bytes go from the client's TLS straight to the SPDY session and back, without the front's loopback hop
// to Bun.serve and its WebSocket in between. Flow control is the connection's, as for SPDY.
import type { TakenConnection } from "../../serving/tlsfront.ts";
import type { SpdyTransport } from "../../streaming/spdy/session.ts";
import { FrameReader, MAX_HEADER, acceptKey, binaryFrame, closeFrame, framedInPlace, pongFrame } from "../../streaming/wsframing.ts";
import { TUNNELED_PORTFORWARD_PROTOCOL } from "../../streaming/portforward.ts";

/** The 101 that accepts the client's WebSocket with the tunnel's subprotocol. */
export const tunnelAccept = (key: string) =>
  `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptKey(key)}\r\nSec-WebSocket-Protocol: ${TUNNELED_PORTFORWARD_PROTOCOL}\r\n\r\n`;

/**
 * The SPDY transport of a tunnel on `conn`: each write one binary message. `receive` gets the tunneled
 * bytes as they come, `shut` runs once when the client closes the WebSocket or breaks its framing.
 */
export function tunnelTransport(conn: TakenConnection, receive: (bytes: Uint8Array) => void, shut: () => void): SpdyTransport {
  let closing = false;
  const close = (code = 1000) => {
    if (closing) return;
    closing = true;
    conn.write(closeFrame(code));
    conn.end();
  };
  const reader = new FrameReader({
    data: receive,
    ping: (payload) => conn.write(pongFrame(payload)),
    close: (code) => {
      close(code === 1002 ? 1002 : 1000);
      shut();
    },
  });
  conn.onData = (chunk) => reader.push(chunk);
  return {
    // a data frame has the room for the message's header before it: no copy
    write: (b, roomy) => { if (!closing) conn.write(roomy ? framedInPlace(b) : binaryFrame(b)); },
    room: MAX_HEADER,
    close: () => close(),
    queued: () => conn.queued(),
    drained: () => conn.drained(),
    pause: () => conn.pause(),
    resume: () => conn.resume(),
  };
}
