// A small keep-alive HTTP/1.1 client for etcd's JSON gateway: POST a body, read the answer. fetch hands
// every request to Bun's HTTP client thread and back; on a busy server that handoff (and the thread's
// own socket work) was a sixth of the CPU of a create. Here requests are written and answers parsed
// on the event loop, on Bun sockets kept open per member.
import type { Socket } from "bun";

export interface Http1Options {
  tls?: { ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean };
}

/** A failed request: `sent` says whether any of it may have reached the server. */
export class Http1Error extends Error {
  constructor(message: string, readonly code: "ConnectionRefused" | "Timeout" | "Closed", readonly sent: boolean) { super(message); }
}

export interface Http1Response { status: number; text: string }

interface Pending { resolve(r: Http1Response): void; reject(e: Error): void; timer: Timer }

class Conn {
  sock: Socket<undefined> | null = null;
  private reader = new ResponseReader();
  pending: Pending | null = null;
  private unsent: Buffer | null = null;
  dead = false;

  constructor(private onIdle: (c: Conn) => void, private onDead: (c: Conn) => void) {}

  request(bytes: Buffer, p: Pending) {
    this.pending = p;
    this.unsent = bytes;
    this.flush();
  }

  flush() {
    if (!this.unsent || !this.sock) return;
    const n = this.sock.write(this.unsent);
    this.unsent = n >= this.unsent.length ? null : this.unsent.subarray(Math.max(0, n));
  }

  data(d: Buffer) {
    if (this.dead) return;
    let r: Http1Response | null;
    try {
      r = this.reader.feed(d);
    } catch (e) {
      return this.kill(new Http1Error((e as Error).message, "Closed", true));
    }
    if (!r) return;
    const p = this.pending;
    this.pending = null;
    if (p) { clearTimeout(p.timer); p.resolve(r); }
    if (this.reader.close) this.kill(new Http1Error("connection closed by the server", "Closed", true));
    else this.onIdle(this);
  }

  /** The connection is unusable: a request on it fails (it may have been sent). */
  kill(err: Http1Error) {
    if (this.dead) return;
    this.dead = true;
    this.sock?.end();
    this.onDead(this);
    const p = this.pending;
    this.pending = null;
    if (p) { clearTimeout(p.timer); p.reject(err); }
  }
}

/**
 * Reads one answer at a time from the bytes as they come: a status line and headers, then a
 * Content-Length or chunked body. Body bytes are kept as the pieces they arrived in and joined once
 * (a list of thousands of objects arrives in thousands of reads).
 */
class ResponseReader {
  /** Bytes not yet consumed: a partial head, chunk-size line or chunk trailer (always small). */
  private buf: Buffer = Buffer.alloc(0);
  private status = 0;
  private parts: Buffer[] = [];
  /** Body bytes still expected: of the whole body (length), or of the current chunk (chunked). */
  private remaining = 0;
  private state: "head" | "length" | "chunk-size" | "chunk" | "chunk-end" | "trailer" = "head";
  /** The server will close the connection after this answer. */
  close = false;

  /** The answer once all of it is here, else null. */
  feed(d: Buffer): Http1Response | null {
    // the socket may reuse its read buffer: what is kept is copied
    let b = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    this.buf = Buffer.alloc(0);
    for (;;) {
      if (this.state === "length" || this.state === "chunk") {
        const n = Math.min(this.remaining, b.length);
        if (n > 0) this.parts.push(Buffer.from(b.subarray(0, n)));
        b = b.subarray(n);
        this.remaining -= n;
        if (this.remaining > 0) return null;
        if (this.state === "length") return this.done(b);
        this.state = "chunk-end";
        continue;
      }
      const eol = b.indexOf(this.state === "head" || this.state === "trailer" ? "\r\n\r\n" : "\r\n");
      if (this.state === "trailer" && b.subarray(0, 2).equals(CRLF)) { b = b.subarray(2); return this.done(b); }
      if (eol < 0) { this.buf = Buffer.from(b); return null; }
      const line = b.toString("latin1", 0, eol);
      switch (this.state) {
        case "head": {
          b = b.subarray(eol + 4);
          this.head(line);
          continue;
        }
        case "chunk-size":
          b = b.subarray(eol + 2);
          this.remaining = parseInt(line, 16);
          if (Number.isNaN(this.remaining)) throw new Error(`bad chunk size "${line}"`);
          this.state = this.remaining === 0 ? "trailer" : "chunk";
          continue;
        case "chunk-end":
          b = b.subarray(eol + 2);
          this.state = "chunk-size";
          continue;
        case "trailer":
          b = b.subarray(eol + 4);
          return this.done(b);
      }
    }
  }

  private head(h: string) {
    this.status = Number(h.slice(9, 12));
    const lower = h.toLowerCase();
    this.close = /\r\nconnection: *close/.test(lower);
    const len = this.status === 204 || this.status === 304 ? ["", "0"] : /\r\ncontent-length: *(\d+)/.exec(lower);
    if (len) { this.state = "length"; this.remaining = Number(len[1]); return; }
    if (!lower.includes("\r\ntransfer-encoding: chunked")) throw new Error(`etcd answered without a length (${h.split("\r\n")[0]})`);
    this.state = "chunk-size";
  }

  private done(rest: Buffer): Http1Response {
    if (rest.length) throw new Error("etcd sent more than one answer to one request");
    const text = (this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts)).toString("utf8");
    this.parts = [];
    this.state = "head";
    return { status: this.status, text };
  }
}

const CRLF = Buffer.from("\r\n");

/** At most this many connections per member; further requests wait for one to be free. */
const MAX_CONNS = 128;

interface Member { idle: Conn[]; count: number; waiting: { resolve(c: Conn): void; reject(e: Error): void }[] }

/** Keep-alive connections to the members, opened as needed (one request at a time on each). */
export class Http1Pool {
  private members = new Map<string, Member>();
  private closed = false;

  constructor(private o: Http1Options = {}) {}

  /** POSTs body to url (http://host:port/path or https://...) and resolves with the answer. */
  async post(url: string, body: string, timeoutMs: number): Promise<Http1Response> {
    if (this.closed) throw new Http1Error("client closed", "Closed", false);
    const slash = url.indexOf("/", url.indexOf("//") + 2);
    const origin = url.slice(0, slash), path = url.slice(slash);
    const head = `POST ${path} HTTP/1.1\r\nHost: ${origin.slice(origin.indexOf("//") + 2)}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const bytes = Buffer.from(head + body); // the head is ASCII: one UTF-8 encoding serves both
    const deadline = Date.now() + timeoutMs;
    const conn = await this.take(origin, timeoutMs);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => conn.kill(new Http1Error(`no answer within ${timeoutMs} ms`, "Timeout", true)), Math.max(1, deadline - Date.now()));
      conn.request(bytes, { resolve, reject, timer });
    });
  }

  private member(origin: string): Member {
    let m = this.members.get(origin);
    if (!m) this.members.set(origin, (m = { idle: [], count: 0, waiting: [] }));
    return m;
  }

  /** An idle connection, a new one while under MAX_CONNS, else the next one freed. */
  private take(origin: string, timeoutMs: number): Promise<Conn> {
    const m = this.member(origin);
    const c = m.idle.pop();
    if (c) return Promise.resolve(c);
    if (m.count < MAX_CONNS) return this.connect(origin, m, timeoutMs);
    return new Promise((resolve, reject) => {
      const w = { resolve: (c: Conn) => { clearTimeout(t); resolve(c); }, reject: (e: Error) => { clearTimeout(t); reject(e); } };
      const t = setTimeout(() => {
        m.waiting.splice(m.waiting.indexOf(w), 1);
        reject(new Http1Error(`no free connection to ${origin} within ${timeoutMs} ms`, "Timeout", false));
      }, timeoutMs);
      m.waiting.push(w);
    });
  }

  private connect(origin: string, m: Member, timeoutMs: number): Promise<Conn> {
    const u = new URL(origin);
    const secure = u.protocol === "https:";
    m.count++;
    const conn: Conn = new Conn(
      (c) => {
        if (this.closed) return c.kill(new Http1Error("client closed", "Closed", false));
        const w = m.waiting.shift();
        if (w) w.resolve(c); else m.idle.push(c);
      },
      (c) => {
        m.count--;
        const i = m.idle.indexOf(c);
        if (i >= 0) m.idle.splice(i, 1);
        // a request waiting for a connection gets a new one in its place
        const w = !this.closed && m.waiting.shift();
        if (w) this.connect(origin, m, timeoutMs).then(w.resolve, w.reject);
      },
    );
    return new Promise((resolve, reject) => {
      const failed = (e: Http1Error) => { clearTimeout(timer); conn.kill(e); reject(e); };
      const timer = setTimeout(() => failed(new Http1Error(`connect to ${origin} timed out after ${timeoutMs} ms`, "Timeout", false)), timeoutMs);
      const ready = (sock: Socket<undefined>) => { clearTimeout(timer); conn.sock = sock; resolve(conn); };
      Bun.connect({
        hostname: u.hostname.replace(/^\[|\]$/g, ""),
        port: Number(u.port || (secure ? 443 : 80)),
        tls: secure ? this.o.tls ?? true : undefined,
        socket: {
          open: (sock) => { if (!secure) ready(sock); },
          handshake: (sock, ok, err) => ok ? ready(sock) : failed(new Http1Error(`TLS to ${origin}: ${err?.message ?? "handshake failed"}`, "Closed", false)),
          data: (_s, d) => conn.data(d),
          drain: () => conn.flush(),
          close: () => conn.kill(new Http1Error(`connection to ${origin} closed`, "Closed", true)),
          error: (_s, e) => conn.kill(new Http1Error(`${origin}: ${e.message}`, "Closed", true)),
          connectError: (_s, e) => failed(new Http1Error(`${origin}: ${e.message}`, "ConnectionRefused", false)),
        },
      }).catch((e: Error) => failed(new Http1Error(`${origin}: ${e.message}`, "ConnectionRefused", false)));
    });
  }

  close() {
    this.closed = true;
    for (const m of this.members.values()) {
      for (const c of [...m.idle]) c.kill(new Http1Error("client closed", "Closed", false)); // kill() takes it off m.idle
      for (const w of m.waiting) w.reject(new Http1Error("client closed", "Closed", false));
    }
    this.members.clear();
  }
}
