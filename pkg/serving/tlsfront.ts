// The TLS front: Bun.serve cannot show a request's client certificate, Bun's TLS sockets can. When client
// certificates are asked for (--client-ca-file, --requestheader-client-ca-file), the front terminates TLS
// on the secure port, notes each connection's certificate, and pipes the plain bytes to the HTTP server on
// a loopback port. The HTTP server finds a request's certificate by the source port of the front's
// connection to it (server.requestIP), and refuses connections the front did not open.
import type { X509Certificate } from "node:crypto";
import type { Socket, SocketAddress, TCPSocketListener } from "bun";

/** What the handshake showed of one client connection. */
export interface Peer {
  /** The client's certificate (as a chain of one), when it sent one; verified or not: the authenticators judge it. */
  certificates?: X509Certificate[];
}

export interface TlsFrontOptions {
  hostname: string;
  port: number;
  /** The serving certificate and key, TLS minimum version; `ca` is every CA a client certificate may come from. */
  tls: { cert: string; key: string; ca: string[]; minVersion?: number };
  /** The loopback port of the HTTP server behind the front. */
  upstreamPort: number;
}

/** A handshake that has not finished within this long is dropped (Bun.serve's own limit is about the same). */
const HANDSHAKE_SECONDS = 10;

/** One direction of a connection: bytes the destination could not take yet wait here, the source paused. */
class Pipe {
  private queue: Uint8Array[] = [];
  private ending = false;
  constructor(private src: () => Socket<Conn> | undefined, private dst: () => Socket<Conn> | undefined) {}

  send(chunk: Uint8Array) {
    const dst = this.dst();
    if (!dst || this.queue.length) {
      this.queue.push(Uint8Array.from(chunk));
      return;
    }
    const n = dst.write(chunk);
    if (n < chunk.length) {
      this.queue.push(Uint8Array.from(chunk.subarray(Math.max(n, 0))));
      this.src()?.pause();
    }
  }

  /** The destination can take more (it drained, or just connected). */
  flush() {
    const dst = this.dst();
    if (!dst) return;
    while (this.queue.length) {
      const head = this.queue[0];
      const n = dst.write(head);
      if (n < head.length) {
        this.queue[0] = head.subarray(Math.max(n, 0));
        this.src()?.pause();
        return;
      }
      this.queue.shift();
    }
    if (this.ending) dst.end();
    else this.src()?.resume();
  }

  /** The source is done: end the destination once what is queued has gone. */
  end() {
    this.ending = true;
    const dst = this.dst();
    if (dst && !this.queue.length) dst.end();
  }
}

/** A client connection and its loopback connection to the HTTP server. */
class Conn {
  client?: Socket<Conn>;
  up?: Socket<Conn>;
  peer: Peer = {};
  /** The loopback connection's source port, its key in TlsFront.byPort. */
  upPort = 0;
  closed = false;
  readonly toUp = new Pipe(() => this.client, () => this.up);
  readonly toClient = new Pipe(() => this.up, () => this.client);
}

export class TlsFront {
  private readonly listener: TCPSocketListener<Conn>;
  /** The front's open loopback connections, by their source port. */
  private readonly byPort = new Map<number, Peer>();
  /** Open client connections, so that a stop lets their last bytes go out. */
  private readonly open = new Set<Conn>();

  constructor(private readonly o: TlsFrontOptions) {
    const front = this;
    this.listener = Bun.listen<Conn>({
      hostname: o.hostname,
      port: o.port,
      // A second server on the port is refused, not silently sharing it (as Bun.serve's reusePort: false).
      exclusive: true,
      // The handshake asks for a certificate and accepts any: upstream also verifies it per request, so an
      // expired or foreign one is a 401 Status, not a failed handshake.
      tls: { cert: o.tls.cert, key: o.tls.key, ca: o.tls.ca, requestCert: true, rejectUnauthorized: false, ...(o.tls.minVersion ? { minVersion: o.tls.minVersion } : {}) } as any,
      socket: {
        open(s) {
          s.data = new Conn();
          s.data.client = s;
          front.open.add(s.data);
          s.timeout(HANDSHAKE_SECONDS);
          s.setNoDelay(true);
        },
        handshake(s, _authorized, _err) {
          s.timeout(0);
          const c = s.data;
          const cert = s.getPeerX509Certificate();
          c.peer = cert ? { certificates: [cert] } : {};
          front.connectUp(c);
        },
        data(s, chunk) { s.data.toUp.send(chunk); },
        drain(s) { s.data.toClient.flush(); },
        end(s) { s.data.toUp.end(); },
        close(s) { front.close(s.data); },
        error(s) { front.close(s.data); },
        timeout(s) { s.terminate(); },
      },
    });
  }

  get port(): number { return this.listener.port; }

  private connectUp(c: Conn) {
    const front = this;
    Bun.connect<Conn>({
      hostname: "127.0.0.1",
      port: this.o.upstreamPort,
      data: c,
      socket: {
        open(up) {
          if (c.closed) {
            up.end();
            return;
          }
          up.setNoDelay(true);
          c.upPort = up.localPort;
          front.byPort.set(c.upPort, c.peer);
          c.up = up;
          c.toUp.flush();
        },
        data(up, chunk) { up.data.toClient.send(chunk); },
        drain(up) { up.data.toUp.flush(); },
        end(up) { up.data.toClient.end(); },
        close(up) {
          front.byPort.delete(c.upPort);
          up.data.toClient.end();
        },
        error(up) { up.data.client?.end(); },
        connectError() { c.client?.terminate(); },
      },
    }).catch(() => c.client?.terminate());
  }

  private close(c: Conn) {
    this.open.delete(c);
    c.closed = true;
    c.up?.end();
  }

  /** The peer of the front connection a request came on; undefined when the front did not open it. */
  peer(from: SocketAddress | null): Peer | undefined {
    return from ? this.byPort.get(from.port) : undefined;
  }

  /** Stops accepting connections. */
  stop() {
    this.listener.stop(false);
  }

  /**
   * Once the HTTP server behind has stopped (so every loopback connection is ending), waits up to
   * `graceMs` for the client connections to take their last bytes, then closes what is left.
   */
  async drain(graceMs = 2000) {
    const deadline = performance.now() + graceMs;
    while (this.open.size && performance.now() < deadline) await Bun.sleep(10);
    this.listener.stop(true);
  }
}
