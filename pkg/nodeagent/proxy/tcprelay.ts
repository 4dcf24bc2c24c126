// The userspace proxy's TCP side: a listening socket per portal (cluster IP, node port or proxy port of a
// Service port); each accepted connection is relayed to an endpoint the balancer picks. A dial that fails
// (refused, or not answered within upstream's growing timeouts) falls over to the next endpoint; when
// every try fails the client's connection is closed.
import type { Socket, TCPSocketListener } from "bun";
import { consola } from "consola";
import { SocketPipe } from "../../util/socketpipe.ts";
import type { RoundRobin } from "./balancer.ts";
import type { Backend } from "./serviceports.ts";

/** Upstream's userspace proxier's EndpointDialTimeouts: one try each, then the connection is dropped. */
const DIAL_TIMEOUTS_MS = [250, 500, 1000, 2000];

/** A client connection and its connection to the endpoint. */
class Relay {
  client?: Socket<Relay>;
  up?: Socket<Relay>;
  closed = false;
  readonly toUp = new SocketPipe(() => this.client, () => this.up);
  readonly toClient = new SocketPipe(() => this.up, () => this.client);
}

/** Connects to `b`; rejects when it refuses or does not answer within `timeoutMs`. */
function dial(b: Backend, relay: Relay, timeoutMs: number): Promise<Socket<Relay>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connecting = Bun.connect<Relay>({
    hostname: b.ip, port: b.port, data: relay,
    socket: {
      data(up, chunk) { up.data.toClient.send(chunk); },
      drain(up) { up.data.toUp.flush(); },
      end(up) { up.data.toClient.end(); },
      close(up) { if (up.data.up === up) up.data.toClient.end(); },
      error(up) { if (up.data.up === up) up.data.client?.end(); },
    },
  });
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // a socket that connects after all is closed at once
      void connecting.then((s) => s.terminate(), () => {});
      reject(new Error(`dial timeout after ${timeoutMs}ms`));
    }, timeoutMs);
  });
  return Promise.race([connecting, late]).finally(() => clearTimeout(timer));
}

/** Relays `relay`'s client to the first endpoint that answers. */
async function connectUp(relay: Relay, balancer: RoundRobin, name: string): Promise<void> {
  const clientIP = relay.client!.remoteAddress;
  for (const [i, timeoutMs] of DIAL_TIMEOUTS_MS.entries()) {
    const b = balancer.pick(clientIP, i > 0);
    if (!b) break;
    try {
      const up = await dial(b, relay, timeoutMs);
      if (relay.closed) return void up.end();
      up.setNoDelay(true);
      relay.up = up;
      relay.toUp.flush();
      return;
    } catch (e) {
      consola.debug(`service proxy: ${name}: dial ${b.ip}:${b.port}: ${(e as Error).message}`);
    }
  }
  consola.warn(`service proxy: ${name}: no endpoint answered a connection from ${clientIP}`);
  relay.client?.terminate();
}

/** Listens on hostname:port (0: a free port) and relays every connection; throws when the port cannot be had. */
export function listenTCP(hostname: string, port: number, balancer: RoundRobin, name: string): TCPSocketListener<Relay> {
  return Bun.listen<Relay>({
    hostname, port, exclusive: true,
    socket: {
      open(s) {
        s.data = new Relay();
        s.data.client = s;
        s.setNoDelay(true);
        // held until the endpoint answers; its bytes wait in the pipe
        s.pause();
        void connectUp(s.data, balancer, name);
      },
      data(s, chunk) { s.data.toUp.send(chunk); },
      drain(s) { s.data.toClient.flush(); },
      end(s) { s.data.toUp.end(); },
      close(s) {
        s.data.closed = true;
        s.data.up?.end();
      },
      error(s) {
        s.data.closed = true;
        s.data.up?.end();
      },
    },
  });
}
