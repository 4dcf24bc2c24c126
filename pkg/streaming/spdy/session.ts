// The server side of a SPDY/3.1 connection as kubectl uses one: the client opens every stream (SYN_STREAM
// with its headers), we accept each with a SYN_REPLY, data flows both ways, either side half-closes with
// FIN, PINGs are echoed, and the connection ends with a GOAWAY. Like spdystream, no SPDY flow control
// (window updates are ignored and none are sent): the transport is a flow control sink instead
// (../flow.ts), whose writers pause their sources while it is full.
import {
  ControlType, FLAG_FIN, type Frame, FrameReader, HeaderCodec, type Headers, dataFrame, dataFrames, goAwayFrame, headerBlockOffset,
  payloadStreamId, pingFrame, rstStreamFrame, synReplyFrame, RstStatus,
} from "./frames.ts";
import { Holds, type Pausable, type Sink } from "../flow.ts";
import { channelMessage } from "../remotecommand.ts";

/** A data frame carries at most this much (the spdystream writer's chunking; kubectl 1.33's tunnel slows on larger). */
const MAX_CHUNK = 32 * 1024;

/**
 * A channel message (the channel, then the bytes) of a data frame's bytes, without copying them: the
 * frame's header before them in the buffer has been read, so its last byte becomes the channel.
 */
export function withChannel(channel: number, data: Uint8Array): Uint8Array {
  if (data.byteOffset === 0) return channelMessage(channel, data);
  const m = new Uint8Array(data.buffer, data.byteOffset - 1, data.length + 1);
  m[0] = channel;
  return m;
}

export class SpdyStream {
  /** Our side sent FIN (or RST). */
  localClosed = false;
  /** The client sent FIN (or RST). */
  remoteClosed = false;
  /** A data frame's bytes, which follow the frame's header in their buffer (see `withChannel`). */
  onData: (data: Uint8Array) => void = () => {};
  onEnd: () => void = () => {};

  constructor(readonly id: number, readonly headers: Headers, private readonly session: SpdySession) {}

  write(data: Uint8Array) {
    if (this.localClosed || !data.length) return;
    // frames of at most MAX_CHUNK, written together
    const room = this.session.transport.room ?? 0;
    this.session.send(dataFrames(this.id, data, false, room, MAX_CHUNK), room > 0);
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

export interface SpdyTransport extends Sink, Pausable {
  /** `roomy`: `room` bytes before `bytes` in their buffer are free (a data frame built with room). */
  write(bytes: Uint8Array, roomy?: boolean): void;
  /**
   * Bytes a transport that frames what it writes (a WebSocket) wants free before each data frame, so that
   * its framing goes there instead of into a copy of the frame.
   */
  room?: number;
  close(): void;
}

export class SpdySession {
  private readonly reader = new FrameReader();
  private readonly codec = new HeaderCodec();
  private readonly streams = new Map<number, SpdyStream>();
  /** Frames in, handled one at a time (header blocks inflate asynchronously, in order). */
  private inbound: Promise<void> = Promise.resolve();
  /** Frames in `inbound` not yet handled. */
  private handling = 0;
  /** Frames out, in order: a SYN_REPLY waits for its deflated headers, what follows waits for it. */
  private outbound: Promise<void> = Promise.resolve();
  /** Frames in `outbound` not yet written; while none, a frame goes straight out. */
  private waiting = 0;
  private lastStreamId = 0;
  closed = false;
  onStream: (s: SpdyStream) => void = () => {};
  onClose: () => void = () => {};

  /** Pauses reading the client's bytes while some stream's destination is full. */
  readonly holds: Holds;

  constructor(readonly transport: SpdyTransport) {
    this.holds = new Holds(transport);
  }

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
    for (const f of frames) {
      // a data frame with nothing before it in flight is handled at once; others keep their order
      if (!f.control && !this.handling) {
        this.data(f);
        continue;
      }
      this.handling++;
      this.inbound = this.inbound.then(() => this.handle(f)).catch(() => this.close(1)).finally(() => void this.handling--);
    }
  }

  /** @internal */
  send(frame: Uint8Array | Promise<Uint8Array>, roomy = false) {
    if (this.closed) return;
    // the common case, nothing pending: straight out
    if (frame instanceof Uint8Array && !this.waiting) return this.transport.write(frame, roomy);
    this.waiting++;
    this.outbound = this.outbound.then(async () => {
      const f = await frame;
      this.waiting--;
      if (!this.closed) this.transport.write(f, roomy);
    });
  }

  private data(f: Extract<Frame, { control: false }>) {
    const s = this.streams.get(f.streamId);
    if (!s) return this.send(rstStreamFrame(f.streamId, RstStatus.INVALID_STREAM));
    if (f.data.length) s.onData(f.data);
    if (f.flags & FLAG_FIN) this.finished(s, "remote");
  }

  private async handle(f: Frame) {
    if (!f.control) return this.data(f);
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
    this.waiting++;
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
