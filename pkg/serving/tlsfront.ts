// The TLS front: Bun.serve cannot show a request's client certificate, Bun's TLS sockets can. When client
// certificates are asked for (--client-ca-file, --requestheader-client-ca-file), the front terminates TLS
// on the secure port, notes each connection's certificate, and pipes the plain bytes to an HTTP server on
// a Unix socket that serves only that peer's connections (peerlisteners.ts): the listener a request
// arrives on names its certificate.
import type { X509Certificate } from "node:crypto";
import type { Socket, TCPSocketListener } from "bun";
import { type Pausable, type Sink } from "../streaming/flow.ts";
import { SocketPipe } from "../util/socketpipe.ts";
import type { Upstreams } from "./peerlisteners.ts";

/** What the handshake showed of one client connection. */
export interface Peer {
  /** The client's certificate (as a chain of one), when it sent one; verified or not: the authenticators judge it. */
  certificates?: X509Certificate[];
  /** The client's address, for the audit log's sourceIPs. */
  address?: string;
}

export interface TlsFrontOptions {
  hostname: string;
  port: number;
  /** The serving certificate and key, TLS minimum version; `ca` is every CA a client certificate may come from. */
  tls: { cert: string; key: string; ca: string[]; minVersion?: number; ciphers?: string };
  /** The HTTP servers behind the front, one socket per peer. */
  upstreams: Upstreams;
  /**
   * Keeps connections whose first request asks for a protocol Bun.serve cannot upgrade to (SPDY): called
   * with that request's head; the connection is the callee's from then on.
   */
  takeOver?: { upgrade: RegExp; run(head: Buffer, peer: Peer, conn: TakenConnection): void };
}

/**
 * A client connection the front handed over: its bytes, its writes (queued while the socket is full; a
 * flow control sink), its end, and pausing its reading.
 */
export interface TakenConnection extends Sink, Pausable {
  write(bytes: Uint8Array): void;
  end(): void;
  onData: (chunk: Uint8Array) => void;
  onClose: () => void;
}

/** The longest first request head the front looks at for an upgrade. */
const MAX_SNIFF = 16 * 1024;

/** A handshake that has not finished within this long is dropped (Bun.serve's own limit is about the same). */
const HANDSHAKE_SECONDS = 10;

/** A client connection the front handed over to `takeOver.run`. */
class Taken implements TakenConnection {
  readonly out: SocketPipe;
  onData: (chunk: Uint8Array) => void = () => {};
  onClose: () => void = () => {};
  constructor(private readonly s: Socket<Conn>) { this.out = new SocketPipe(() => undefined, () => s); }
  write(bytes: Uint8Array) { this.out.send(bytes); }
  end() { this.out.end(); }
  queued() { return this.out.queued(); }
  drained() { return this.out.drained(); }
  pause() { this.s.pause(); }
  resume() { this.s.resume(); }
}

/** A client connection and its loopback connection to the HTTP server. */
class Conn {
  client?: Socket<Conn>;
  up?: Socket<Conn>;
  peer: Peer = {};
  /** The first request's bytes while the front looks for an upgrade it keeps; then undefined. */
  sniff?: Buffer;
  taken?: Taken;
  /** The socket of the HTTP server the connection is piped to, while it is held. */
  upPath?: string;
  closed = false;
  readonly toUp = new SocketPipe(() => this.client, () => this.up);
  readonly toClient = new SocketPipe(() => this.up, () => this.client);
}

export class TlsFront {
  private readonly listener: TCPSocketListener<Conn>;
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
      tls: { cert: o.tls.cert, key: o.tls.key, ca: o.tls.ca, requestCert: true, rejectUnauthorized: false, ...(o.tls.minVersion ? { minVersion: o.tls.minVersion } : {}), ...(o.tls.ciphers ? { ciphers: o.tls.ciphers } : {}) } as any,
      socket: {
        open(s) {
          s.data = new Conn();
          s.data.client = s;
          if (o.takeOver) s.data.sniff = Buffer.alloc(0);
          front.open.add(s.data);
          s.timeout(HANDSHAKE_SECONDS);
          s.setNoDelay(true);
        },
        handshake(s, _authorized, _err) {
          s.timeout(0);
          const c = s.data;
          const cert = s.getPeerX509Certificate();
          c.peer = cert ? { certificates: [cert], address: s.remoteAddress } : { address: s.remoteAddress };
          front.connectUp(c);
        },
        data(s, chunk) { front.received(s, chunk); },
        drain(s) { s.data.taken ? s.data.taken.out.flush() : s.data.toClient.flush(); },
        end(s) { s.data.taken ? s.data.taken.end() : s.data.toUp.end(); },
        close(s) { front.close(s.data); },
        error(s) { front.close(s.data); },
        timeout(s) { s.terminate(); },
      },
    });
  }

  get port(): number { return this.listener.port; }

  /** A client's bytes: to the HTTP server, unless the first request is an upgrade the front keeps. */
  private received(s: Socket<Conn>, chunk: Uint8Array) {
    const c = s.data;
    if (c.taken) return c.taken.onData(chunk);
    if (c.sniff) {
      const sniffed = Buffer.concat([c.sniff, chunk]);
      const end = sniffed.indexOf("\r\n\r\n");
      if (end < 0 && sniffed.length < MAX_SNIFF) return void (c.sniff = sniffed);
      c.sniff = undefined;
      const takeOver = this.o.takeOver!;
      if (end >= 0 && takeOver.upgrade.test(sniffed.subarray(0, end).toString("latin1"))) {
        c.taken = new Taken(s);
        c.up?.end();
        takeOver.run(sniffed, c.peer, c.taken);
        return;
      }
      chunk = sniffed;
    }
    c.toUp.send(chunk);
  }

  private connectUp(c: Conn) {
    const upstreams = this.o.upstreams;
    c.upPath = upstreams.acquire(c.peer);
    const release = () => {
      if (c.upPath) upstreams.release(c.upPath);
      c.upPath = undefined;
    };
    Bun.connect<Conn>({
      unix: c.upPath,
      data: c,
      socket: {
        open(up) {
          if (c.closed || c.taken) {
            up.end();
            return;
          }
          c.up = up;
          c.toUp.flush();
        },
        data(up, chunk) { if (!up.data.taken) up.data.toClient.send(chunk); },
        drain(up) { up.data.toUp.flush(); },
        end(up) { if (!c.taken) up.data.toClient.end(); },
        close(up) {
          release();
          if (!c.taken) up.data.toClient.end();
        },
        error(up) { if (!c.taken) up.data.client?.end(); },
        connectError() {
          release();
          c.client?.terminate();
        },
      },
    }).catch(() => {
      release();
      c.client?.terminate();
    });
  }

  private close(c: Conn) {
    this.open.delete(c);
    c.closed = true;
    c.taken?.out.closed();
    c.taken?.onClose();
    c.up?.resume();
    c.up?.end();
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
