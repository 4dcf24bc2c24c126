// The userspace proxy's UDP side: one socket per portal; each client address gets a session, a socket
// connected to the endpoint the balancer picked, whose replies go back to the client from the portal.
// A session idle for upstream's --udp-timeout (250 ms) closes; one whose endpoint refuses (an ICMP port
// unreachable) closes at once, so the client's next datagram goes to the next endpoint.
import type { udp } from "bun";
import { consola } from "consola";
import type { RoundRobin } from "./balancer.ts";

/** Upstream's kube-proxy --udp-timeout default. */
const UDP_IDLE_MS = 250;

interface Session {
  up?: udp.ConnectedSocket<"buffer">;
  /** Datagrams from the client while the session's socket is being made. */
  waiting: Buffer[];
  timer?: ReturnType<typeof setTimeout>;
  closed: boolean;
}

export interface UDPPortal { readonly port: number; stop(): void }

/** Listens on hostname:port (0: a free port) and relays datagrams; rejects when the port cannot be had. */
export async function listenUDP(hostname: string, port: number, balancer: RoundRobin, name: string): Promise<UDPPortal> {
  const sessions = new Map<string, Session>();
  const close = (key: string, s: Session) => {
    s.closed = true;
    clearTimeout(s.timer);
    s.up?.close();
    if (sessions.get(key) === s) sessions.delete(key);
  };
  const touch = (key: string, s: Session) => {
    clearTimeout(s.timer);
    s.timer = setTimeout(() => close(key, s), UDP_IDLE_MS);
  };
  const open = async (key: string, s: Session, clientPort: number, clientAddress: string) => {
    const b = balancer.pick(clientAddress);
    if (!b) return close(key, s);
    try {
      s.up = await Bun.udpSocket({
        connect: { hostname: b.ip, port: b.port },
        socket: {
          data(_up, reply) {
            if (s.closed) return;
            touch(key, s);
            portal.send(reply, clientPort, clientAddress);
          },
          error() { close(key, s); },
        },
      });
    } catch (e) {
      consola.debug(`service proxy: ${name}: udp ${b.ip}:${b.port}: ${(e as Error).message}`);
      return close(key, s);
    }
    if (s.closed) return void s.up.close();
    for (const d of s.waiting) s.up.send(d);
    s.waiting = [];
  };
  const portal = await Bun.udpSocket({
    hostname, port,
    socket: {
      data(_sock, datagram, clientPort, clientAddress) {
        const key = `${clientAddress}:${clientPort}`;
        let s = sessions.get(key);
        if (!s) {
          s = { waiting: [], closed: false };
          sessions.set(key, s);
          void open(key, s, clientPort, clientAddress);
        }
        touch(key, s);
        if (s.up) s.up.send(datagram);
        else s.waiting.push(Buffer.from(datagram));
      },
    },
  });
  return {
    port: portal.port,
    stop() {
      for (const [key, s] of sessions) close(key, s);
      portal.close();
    },
  };
}
