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
  private buf: Buffer = Buffer.alloc(0);
  pending: Pending | null = null;
  private unsent: Buffer | null = null;
  dead = false;

  constructor(private onIdle: (c: Conn) => void, private onDead: (c: Conn) => void) {}

  request(head: string, body: Buffer, p: Pending) {
    this.pending = p;
    this.unsent = Buffer.concat([Buffer.from(head, "latin1"), body]);
    this.flush();
  }

  flush() {
    if (!this.unsent || !this.sock) return;
    const n = this.sock.write(this.unsent);
    this.unsent = n >= this.unsent.length ? null : this.unsent.subarray(Math.max(0, n));
  }

  data(d: Buffer) {
    if (this.dead) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    let r: ReturnType<typeof parse>;
    try {
      r = parse(this.buf);
    } catch (e) {
      return this.kill(new Http1Error((e as Error).message, "Closed", true));
    }
    if (!r) { if (this.buf === d) this.buf = Buffer.from(d); return; } // the socket may reuse its buffer
    this.buf = r.rest.length ? Buffer.from(r.rest) : Buffer.alloc(0);
    const p = this.pending;
    this.pending = null;
    if (p) { clearTimeout(p.timer); p.resolve(r.res); }
    if (r.close) this.kill(new Http1Error("connection closed by the server", "Closed", true));
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

/** One status line and headers, then a Content-Length or chunked body; null until it is all here. */
function parse(b: Buffer): { res: Http1Response; rest: Buffer; close: boolean } | null {
  const head = b.indexOf("\r\n\r\n");
  if (head < 0) return null;
  const h = b.toString("latin1", 0, head);
  const status = Number(h.slice(9, 12));
  const lower = h.toLowerCase();
  const close = /\r\nconnection: *close/.test(lower);
  const len = /\r\ncontent-length: *(\d+)/.exec(lower);
  let at = head + 4;
  if (len) {
    const end = at + Number(len[1]);
    if (b.length < end) return null;
    return { res: { status, text: b.toString("utf8", at, end) }, rest: b.subarray(end), close };
  }
  if (!lower.includes("\r\ntransfer-encoding: chunked")) throw new Error(`etcd answered without a length (${h.split("\r\n")[0]})`);
  const parts: Buffer[] = [];
  for (;;) {
    const eol = b.indexOf("\r\n", at);
    if (eol < 0) return null;
    const size = parseInt(b.toString("latin1", at, eol), 16);
    if (size === 0) {
      const end = b.indexOf("\r\n\r\n", eol);
      if (end < 0) return null;
      return { res: { status, text: Buffer.concat(parts).toString("utf8") }, rest: b.subarray(end + 4), close };
    }
    if (b.length < eol + 2 + size + 2) return null;
    parts.push(b.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

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
    const bytes = Buffer.from(body);
    const head = `POST ${path} HTTP/1.1\r\nHost: ${origin.slice(origin.indexOf("//") + 2)}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`;
    const conn = await this.take(origin, timeoutMs);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => conn.kill(new Http1Error(`no answer within ${timeoutMs} ms`, "Timeout", true)), timeoutMs);
      conn.request(head, bytes, { resolve, reject, timer });
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
    return new Promise((resolve, reject) => m.waiting.push({ resolve, reject }));
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
      for (const c of m.idle) c.kill(new Http1Error("client closed", "Closed", false));
      for (const w of m.waiting) w.reject(new Http1Error("client closed", "Closed", false));
    }
    this.members.clear();
  }
}
