// The kite client reads binary replies and refuses one without the 4-byte prefix (spec §2.6).
import { afterAll, expect, test } from "bun:test";
import { Transport } from "../../pkg/client/transport.ts";
import { encodeObject } from "../../pkg/protobuf/index.ts";

const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "default" }, data: { a: "b" } };
const good = encodeObject(cm);
const server = Bun.serve({
  hostname: "127.0.0.1", port: 0,
  fetch(req) {
    const body = new URL(req.url).pathname === "/good" ? good : good.slice(4); // the same bytes without the prefix
    return new Response(body, { headers: { "Content-Type": "application/vnd.kubernetes.protobuf" } });
  },
});
afterAll(() => server.stop(true));

const transport = new Transport({
  server: `http://127.0.0.1:${server.port}`, insecure: false, namespace: "default", explicitNamespace: false, source: "test", cacheDir: "/tmp",
});

test("a binary reply with the prefix is decoded", async () => {
  expect(await transport.json("/good", { accept: "application/vnd.kubernetes.protobuf" })).toEqual(cm);
});

test("a binary reply without the prefix is refused", async () => {
  await expect(transport.json("/bad", { accept: "application/vnd.kubernetes.protobuf" })).rejects.toThrow(/refusing the server's binary reply/);
});
