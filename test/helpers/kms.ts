// A real KMS v1 plugin for tests: the v1beta1 KeyManagementService over gRPC (HTTP/2) on a unix socket.
// It wraps data keys with AES-256-GCM under a key of its own and counts the calls it answered.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import http2 from "node:http2";
import { join } from "node:path";
import { decode as fields, encode } from "../../pkg/storage/encryption/kms.ts";
import { atCleanup, tempDir } from "./processes.ts";

export interface KmsPlugin { socket: string; calls: Record<string, number>; close(): void }

function message(f: Record<number, string | Uint8Array>): Buffer {
  const body = encode(f);
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, 5);
  return frame;
}

export async function startKmsPlugin(): Promise<KmsPlugin> {
  const socket = join(tempDir("kite-kms-"), "kms.sock");
  const kek = randomBytes(32);
  const calls: Record<string, number> = { Version: 0, Encrypt: 0, Decrypt: 0 };
  const wrap = (plain: Uint8Array) => {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", kek, iv);
    return Buffer.concat([iv, c.update(plain), c.final(), c.getAuthTag()]);
  };
  const unwrap = (data: Uint8Array) => {
    const d = createDecipheriv("aes-256-gcm", kek, data.subarray(0, 12));
    d.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([d.update(data.subarray(12, data.length - 16)), d.final()]);
  };
  const server = http2.createServer();
  server.on("stream", (stream: http2.ServerHttp2Stream, headers) => {
    const method = String(headers[":path"]).replace("/v1beta1.KeyManagementService/", "");
    const chunks: Buffer[] = [];
    stream.on("data", (d: Buffer) => chunks.push(d));
    stream.on("end", () => {
      const all = Buffer.concat(chunks);
      const req = fields(all.subarray(5, 5 + all.readUInt32BE(1)));
      calls[method] = (calls[method] ?? 0) + 1;
      const reply = method === "Version" ? message({ 1: "v1beta1", 2: "test-kms", 3: "0.1" })
        : method === "Encrypt" ? message({ 1: wrap(req.get(2)!) })
        : method === "Decrypt" ? message({ 1: unwrap(req.get(2)!) }) : undefined;
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers(reply ? { "grpc-status": "0" } : { "grpc-status": "12", "grpc-message": "unknown method" }));
      stream.end(reply ?? Buffer.alloc(0));
    });
  });
  await new Promise<void>((r) => server.listen(socket, r));
  const close = () => server.close();
  atCleanup(close);
  return { socket, calls, close };
}
