// The server side of a SPDY/3.1 connection as kubectl uses one: the client opens every stream (SYN_STREAM
// with its headers), we accept each with a SYN_REPLY, data flows both ways, either side half-closes with
// FIN, PINGs are echoed, and the connection ends with a GOAWAY. Like spdystream, no flow control: window
// updates are ignored and none are sent.
import {
  ControlType, FLAG_FIN, FrameReader, HeaderCodec, type Headers, dataFrame, goAwayFrame, headerBlockOffset,
  payloadStreamId, pingFrame, rstStreamFrame, synReplyFrame, RstStatus,
} from "./frames.ts";

/** A data frame carries at most this much (the spdystream writer's chunking). */
const MAX_CHUNK = 32 * 1024;

export class SpdyStream {
  /** Our side sent FIN (or RST). */
  localClosed = false;
  /** The client sent FIN (or RST). */
  remoteClosed = false;
  onData: (data: Uint8Array) => void = () => {};
  onEnd: () => void = () => {};

  constructor(readonly id: number, readonly headers: Headers, private readonly session: SpdySession) {}

  write(data: Uint8Array) {
    if (this.localClosed) return;
    for (let at = 0; at < data.length; at += MAX_CHUNK) this.session.send(dataFrame(this.id, data.subarray(at, at + MAX_CHUNK)));
  }

  /** Half-closes our side. */
  end() {
    if (this.localClosed) return;
    this.localClosed = true;
    this.session.send(dataFrame(this.id, new Uint8Array(0), true));
  }

  /** @internal the client's FIN or RST */
  remoteEnd() {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.onEnd();
  }
}

export interface SpdyTransport {
  write(bytes: Uint8Array): void;
  close(): void;
}

export class SpdySession {
  private readonly reader = new FrameReader();
  private readonly codec = new HeaderCodec();
  private readonly streams = new Map<number, SpdyStream>();
  /** Frames in, handled one at a time (header blocks inflate asynchronously, in order). */
  private inbound: Promise<void> = Promise.resolve();
  /** Frames out, in order: a SYN_REPLY waits for its deflated headers, what follows waits for it. */
  private outbound: Promise<void> = Promise.resolve();
  private lastStreamId = 0;
  closed = false;
  onStream: (s: SpdyStream) => void = () => {};
  onClose: () => void = () => {};

  constructor(private readonly transport: SpdyTransport) {}

  /** Bytes from the client. */
  receive(chunk: Uint8Array) {
    if (this.closed) return;
    let frames;
    try {
      frames = this.reader.push(chunk);
    } catch {
      this.close(1);
      return;
    }
    for (const f of frames) this.inbound = this.inbound.then(() => this.handle(f)).catch(() => this.close(1));
  }

  /** @internal */
  send(frame: Uint8Array | Promise<Uint8Array>) {
    if (this.closed) return;
    if (frame instanceof Uint8Array) {
      // the common case, nothing pending: straight out
      this.outbound = this.outbound.then(() => { if (!this.closed) this.transport.write(frame); });
      return;
    }
    this.outbound = this.outbound.then(async () => {
      const f = await frame;
      if (!this.closed) this.transport.write(f);
    });
  }

  private async handle(f: ReturnType<FrameReader["push"]>[number]) {
    if (!f.control) {
      const s = this.streams.get(f.streamId);
      if (!s) return this.send(rstStreamFrame(f.streamId, RstStatus.INVALID_STREAM));
      if (f.data.length) s.onData(f.data);
      if (f.flags & FLAG_FIN) this.finished(s, "remote");
      return;
    }
    switch (f.type) {
      case ControlType.SYN_STREAM: {
        const id = payloadStreamId(f.payload);
        const headers = await this.codec.decode(f.payload.subarray(headerBlockOffset(f.type)));
        if (id <= this.lastStreamId || id % 2 === 0) return this.send(rstStreamFrame(id, RstStatus.PROTOCOL_ERROR));
        this.lastStreamId = id;
        const s = new SpdyStream(id, headers, this);
        this.streams.set(id, s);
        this.send(this.codec.encode({}).then((block) => synReplyFrame(id, block)));
        if (f.flags & FLAG_FIN) s.remoteClosed = true;
        this.onStream(s);
        return;
      }
      case ControlType.HEADERS:
        await this.codec.decode(f.payload.subarray(headerBlockOffset(f.type)));
        return;
      case ControlType.RST_STREAM: {
        const s = this.streams.get(payloadStreamId(f.payload));
        if (s) {
          s.localClosed = true;
          this.finished(s, "remote");
        }
        return;
      }
      case ControlType.PING:
        return this.send(pingFrame(Buffer.from(f.payload).readUInt32BE(0)));
      case ControlType.GOAWAY:
        return this.close();
      default:
        // SETTINGS, WINDOW_UPDATE, SYN_REPLY from a client: nothing to do
        return;
    }
  }

  private finished(s: SpdyStream, side: "remote") {
    if (side === "remote") s.remoteEnd();
    if (s.localClosed && s.remoteClosed) this.streams.delete(s.id);
  }

  /** Says GOAWAY once what is queued has gone, then closes the transport. */
  close(status = 0) {
    if (this.closed) return;
    this.send(goAwayFrame(this.lastStreamId, status));
    this.outbound = this.outbound.then(() => this.shut());
  }

  /** The transport went away (or we are done): every stream ends. */
  shut() {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.remoteEnd();
    this.streams.clear();
    this.codec.close();
    this.transport.close();
    this.onClose();
  }
}
