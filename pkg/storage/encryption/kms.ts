// The KMS v1 plugin API (k8s.io/apiserver envelope v1beta1 KeyManagementService): unary gRPC calls over
// HTTP/2 on the plugin's unix socket, messages written with the project's protobuf wire helpers.
import http2 from "node:http2";
import net from "node:net";
import { Reader, WIRE_LEN, Writer } from "../../protobuf/wire.ts";

const SERVICE = "/v1beta1.KeyManagementService";
const API_VERSION = "v1beta1";

/** A message of string/bytes fields by field number (every KMS v1 message is one). */
export function encode(fields: Record<number, string | Uint8Array>): Uint8Array {
  const w = new Writer();
  for (const [n, v] of Object.entries(fields)) {
    w.uint32((Number(n) << 3) | WIRE_LEN);
    if (typeof v === "string") w.string(v); else w.bytes(v);
  }
  return w.finish();
}

/** The length-delimited fields of a message, by number. */
export function decode(buf: Uint8Array): Map<number, Uint8Array> {
  const r = new Reader(buf);
  const out = new Map<number, Uint8Array>();
  while (r.pos < r.limit) {
    const tag = r.uint32();
    if ((tag & 7) === WIRE_LEN) out.set(tag >>> 3, r.bytes()); else r.skip(tag & 7);
  }
  return out;
}

const CODES = ["OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated"];

/** A call that failed with a gRPC status; `code` is its name (the metrics' status label). */
export class KmsError extends Error {
  constructor(message: string, readonly code: string) { super(message); }
}

export class KmsClient {
  private session?: http2.ClientHttp2Session;

  constructor(readonly socket: string, private timeoutMs: number) {}

  private connect(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const s = http2.connect("http://localhost", { createConnection: () => net.connect(this.socket) });
    s.on("error", () => s.destroy());
    s.unref();
    return (this.session = s);
  }

  /** One unary call; fails with the gRPC status message, or on timeout. */
  private call(method: string, body: Uint8Array): Promise<Map<number, Uint8Array>> {
    return new Promise((resolve, reject) => {
      const frame = Buffer.alloc(5 + body.length);
      frame.writeUInt32BE(body.length, 1);
      frame.set(body, 5);
      const req = this.connect().request({ ":method": "POST", ":path": `${SERVICE}/${method}`, "content-type": "application/grpc", te: "trailers" });
      const timer = setTimeout(() => { req.close(http2.constants.NGHTTP2_CANCEL); reject(new KmsError(`kms ${method}: deadline of ${this.timeoutMs} ms exceeded`, "DeadlineExceeded")); }, this.timeoutMs);
      const chunks: Buffer[] = [];
      let status: string | undefined, message = "";
      const headers = (h: http2.IncomingHttpHeaders) => {
        if (h["grpc-status"] !== undefined) { status = String(h["grpc-status"]); message = decodeURIComponent(String(h["grpc-message"] ?? "")); }
      };
      req.on("response", headers);
      req.on("trailers", headers);
      req.on("data", (d: Buffer) => chunks.push(d));
      req.on("error", (e) => { clearTimeout(timer); reject(new KmsError(`kms ${method}: ${e.message}`, "Unavailable")); });
      req.on("end", () => {
        clearTimeout(timer);
        const code = CODES[Number(status ?? 2)] ?? "Unknown";
        if (status !== "0") return reject(new KmsError(`kms ${method}: rpc error: code = ${code} desc = ${message}`, code));
        const all = Buffer.concat(chunks);
        resolve(decode(all.subarray(5, 5 + all.readUInt32BE(1))));
      });
      req.end(frame);
    });
  }

  async version(): Promise<string> {
    const r = await this.call("Version", encode({ 1: API_VERSION }));
    return new TextDecoder().decode(r.get(1) ?? new Uint8Array());
  }

  async encrypt(plain: Uint8Array): Promise<Uint8Array> {
    return (await this.call("Encrypt", encode({ 1: API_VERSION, 2: plain }))).get(1) ?? new Uint8Array();
  }

  async decrypt(cipher: Uint8Array): Promise<Uint8Array> {
    return (await this.call("Decrypt", encode({ 1: API_VERSION, 2: cipher }))).get(1) ?? new Uint8Array();
  }

  close() { this.session?.close(); }
}
