// A raw HTTP/1.1 client on a TLS (or plain) socket: the request goes out byte for byte as given, since
// fetch normalises paths (`..`, `%2e%2e`), adds headers and refuses malformed requests — the very inputs
// the hardening tests must send. Responses are parsed as they arrive, several per connection.
import { connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as received, dechunked, cut at the exchange's `keep` bytes. */
  body: Buffer;
  bodyBytes: number;
  /** The whole message arrived (a streamed one cut by the caller or the peer is not complete). */
  complete: boolean;
}

export interface Exchange {
  responses: RawResponse[];
  /** The server closed the connection (or reset it). */
  closed: boolean;
  timedOut: boolean;
  /** The first answer was read for holdMs and the connection dropped by us (a watch still open). */
  held?: boolean;
  error?: string;
  ms: number;
}

export interface ExchangeOptions {
  port: number;
  /** The CA of a TLS server; without it the socket is plain TCP. */
  ca?: string;
  /** Written in order; a number is a pause in milliseconds between writes. */
  parts: (string | Uint8Array | number)[];
  timeoutMs: number;
  /** Resolve once this many responses are complete (or, with `heads`, have begun). */
  want?: number;
  /** Count a response once its head has arrived (a watch never completes). */
  heads?: boolean;
  /** Methods of the requests sent, in order, so a HEAD answer is known to have no body. */
  methods?: string[];
  /** After the first head, read this long, then drop the connection (a watch that should stay open). */
  holdMs?: number;
  /** Streamed body bytes of the response in progress (watches). Keeps the socket open until timeoutMs. */
  onBody?: (bytes: Buffer, r: RawResponse) => void;
  /** Bytes of each body kept (256 KB unless set); bodyBytes counts them all. */
  keep?: number;
  /** Called once with the socket, so a caller can end a stream early. */
  onSocket?: (s: Socket) => void;
}

const CRLF2 = Buffer.from("\r\n\r\n");

/** Incremental parser of a sequence of HTTP/1.x responses on one connection. */
class ResponseParser {
  private buf: Buffer = Buffer.alloc(0);
  private cur?: RawResponse;
  private mode: "length" | "chunk-size" | "chunk-data" | "chunk-crlf" | "trailer" | "close" = "length";
  private left = 0;
  readonly done: RawResponse[] = [];
  private index = 0;

  constructor(private methods: string[], private keep: number, private onHead: (r: RawResponse) => void, private onBody?: (b: Buffer, r: RawResponse) => void) {}

  get current() { return this.cur; }

  /** The peer closed: a body delimited by the close is complete. */
  end() {
    if (this.cur && this.mode === "close") this.finish();
  }

  push(data: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, data]) : data;
    while (this.step()) { /* parse as far as the bytes go */ }
  }

  private body(b: Buffer) {
    const r = this.cur!;
    r.bodyBytes += b.length;
    if (r.body.length < this.keep) r.body = Buffer.concat([r.body, b.subarray(0, this.keep - r.body.length)]);
    this.onBody?.(b, r);
  }

  private finish() {
    this.cur!.complete = true;
    this.done.push(this.cur!);
    this.cur = undefined;
  }

  /** One parsing step; false when more bytes are needed. */
  private step(): boolean {
    if (!this.cur) {
      const end = this.buf.indexOf(CRLF2);
      if (end < 0) return false;
      const lines = this.buf.subarray(0, end).toString("latin1").split("\r\n");
      this.buf = this.buf.subarray(end + 4);
      const m = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0]);
      const r: RawResponse = { status: m ? Number(m[1]) : 0, headers: {}, body: Buffer.alloc(0), bodyBytes: 0, complete: false };
      for (const l of lines.slice(1)) {
        const i = l.indexOf(":");
        if (i > 0) r.headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      if (r.status >= 100 && r.status < 200) return true; // 100 Continue: the real answer follows
      const method = this.methods[this.index++] ?? "GET";
      this.cur = r;
      this.onHead(r);
      if (method === "HEAD" || r.status === 204 || r.status === 304) this.finish();
      else if (/chunked/i.test(r.headers["transfer-encoding"] ?? "")) this.mode = "chunk-size";
      else if (r.headers["content-length"] !== undefined) {
        this.mode = "length";
        this.left = Number(r.headers["content-length"]);
        if (this.left === 0) this.finish();
      } else this.mode = "close";
      return true;
    }
    switch (this.mode) {
      case "close":
        if (this.buf.length) this.body(this.buf);
        this.buf = Buffer.alloc(0);
        return false;
      case "length": {
        if (!this.buf.length) return false;
        const n = Math.min(this.left, this.buf.length);
        this.body(this.buf.subarray(0, n));
        this.buf = this.buf.subarray(n);
        this.left -= n;
        if (this.left === 0) this.finish();
        return true;
      }
      case "chunk-size": {
        const i = this.buf.indexOf("\r\n");
        if (i < 0) return false;
        this.left = parseInt(this.buf.subarray(0, i).toString("latin1"), 16);
        this.buf = this.buf.subarray(i + 2);
        this.mode = this.left > 0 ? "chunk-data" : "trailer";
        return true;
      }
      case "chunk-data": {
        if (!this.buf.length) return false;
        const n = Math.min(this.left, this.buf.length);
        this.body(this.buf.subarray(0, n));
        this.buf = this.buf.subarray(n);
        this.left -= n;
        if (this.left === 0) this.mode = "chunk-crlf";
        return true;
      }
      case "chunk-crlf":
        if (this.buf.length < 2) return false;
        this.buf = this.buf.subarray(2);
        this.mode = "chunk-size";
        return true;
      case "trailer": {
        const i = this.buf.indexOf("\r\n");
        if (i < 0) return false;
        this.buf = this.buf.subarray(i + 2);
        if (i === 0) this.finish();
        return true;
      }
    }
  }
}

/** Opens a connection, writes the parts, and collects the responses until `want`, close or timeout. */
export function exchange(o: ExchangeOptions): Promise<Exchange> {
  const t0 = performance.now();
  const want = o.want ?? Infinity;
  return new Promise((resolve) => {
    let settled = false;
    let heads = 0;
    let sock: Socket;
    const parser = new ResponseParser(o.methods ?? [], o.keep ?? 256 * 1024, () => {
      if (++heads === 1 && o.holdMs !== undefined) setTimeout(() => settle({ held: true }), o.holdMs);
      check();
    }, o.onBody);
    const settle = (x: Partial<Exchange>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const responses = [...parser.done];
      if (parser.current) responses.push(parser.current);
      sock?.destroy();
      resolve({ responses, closed: false, timedOut: false, ms: performance.now() - t0, ...x });
    };
    const check = () => {
      if ((o.heads ? heads : parser.done.length) >= want && !o.onBody && o.holdMs === undefined) settle({});
    };
    const timer = setTimeout(() => settle({ timedOut: true }), o.timeoutMs);
    sock = o.ca
      ? tlsConnect({ host: "127.0.0.1", port: o.port, ca: o.ca })
      : tcpConnect({ host: "127.0.0.1", port: o.port });
    o.onSocket?.(sock);
    sock.on("data", (d: Buffer) => {
      try {
        parser.push(d);
        check();
      } catch (e) {
        settle({ error: `unparseable response: ${(e as Error).message}` });
      }
    });
    sock.on("error", (e) => settle({ closed: true, error: e.message }));
    sock.on("close", () => {
      parser.end();
      settle({ closed: true });
    });
    sock.once(o.ca ? "secureConnect" : "connect", async () => {
      for (const p of o.parts) {
        if (settled) return;
        if (typeof p === "number") await Bun.sleep(p);
        else sock.write(p);
      }
    });
  });
}

/** The bytes of one HTTP/1.1 request: Host and Content-Length are added unless the headers name them. */
export function requestBytes(method: string, target: string, headers: Record<string, string>, body?: string | Uint8Array, opts: { host?: boolean; close?: boolean } = {}): Buffer {
  const b = body === undefined ? undefined : typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
  const names = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  let head = `${method} ${target} HTTP/1.1\r\n`;
  if (opts.host !== false && !names.has("host")) head += "Host: 127.0.0.1\r\n";
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  if (b && !names.has("content-length") && !names.has("transfer-encoding")) head += `Content-Length: ${b.length}\r\n`;
  if (opts.close !== false && !names.has("connection")) head += "Connection: close\r\n";
  head += "\r\n";
  return b ? Buffer.concat([Buffer.from(head), b]) : Buffer.from(head);
}
