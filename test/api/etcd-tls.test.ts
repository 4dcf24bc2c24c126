// Issue 6 item 1: `--etcd-cafile` — the server talks to an etcd that serves only TLS, both through the
// JSON gateway (requests) and over gRPC (the shared watch that feeds the watch caches), and falls back
// to nothing slower without saying so.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ensureServingCerts } from "../../pkg/pki/certs.ts";
import { etcdAvailable, etcdBinary, freePort } from "../helpers/etcd.ts";
import { track, tempDir } from "../helpers/processes.ts";
import { type TestServer, startServer } from "../helpers/server.ts";
import { createNamespace, expectCode } from "./fixtures.ts";

setDefaultTimeout(30_000);

let dir = "", etcd: Subprocess | undefined, s: TestServer | undefined, endpoint = "", ca = "";

beforeAll(async () => {
  if (!etcdAvailable()) return;
  dir = tempDir("kite-etcd-tls-");
  const certs = ensureServingCerts(join(dir, "pki"));
  ca = certs.caFile;
  const [client, peer] = [await freePort(), await freePort()];
  endpoint = `https://127.0.0.1:${client}`;
  etcd = Bun.spawn([etcdBinary(), `--data-dir=${join(dir, "etcd")}`, `--listen-client-urls=${endpoint}`, `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=http://127.0.0.1:${peer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-cluster=default=http://127.0.0.1:${peer}`, `--cert-file=${certs.certFile}`, `--key-file=${certs.keyFile}`], { stdout: "ignore", stderr: "ignore" });
  track(etcd);
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${endpoint}/health`, { tls: { ca: certs.ca } } as RequestInit)).ok) break;
    } catch { /* not up yet */ }
    if (i > 200) throw new Error("etcd with TLS did not become healthy");
    await Bun.sleep(50);
  }
  s = await startServer([`--etcd-servers=${endpoint}`, `--etcd-cafile=${ca}`]);
  await createNamespace(s, "tls");
});

afterAll(async () => {
  await s?.stop();
  etcd?.kill();
  await etcd?.exited;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!etcdAvailable())("etcd over TLS (--etcd-cafile)", () => {
  test("writes, consistent reads and a watch work, and the shared watch is gRPC over TLS", async () => {
    const base = "/api/v1/namespaces/tls/configmaps";
    const res = await s!.req(`${base}?watch=1&resourceVersion=0`);
    const reader = res.body!.getReader();
    expectCode(await s!.call("POST", base, { metadata: { name: "a" }, data: { k: "v" } }), 201, "create over TLS etcd");
    const got = await s!.call("GET", `${base}/a`);
    expectCode(got, 200, "consistent get over TLS etcd");
    expect(got.body.data).toEqual({ k: "v" });
    let text = "";
    const deadline = Date.now() + 5000;
    while (!text.includes('"name":"a"') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(text).toContain('"type":"ADDED"');
    expect(text).toContain('"name":"a"');
    const code = await s!.stop();
    expect(code).toBe(0);
    const log = await new Response(s!.proc.stderr as ReadableStream<Uint8Array>).text();
    expect(log).not.toContain("watching through the JSON gateway");
    s = undefined;
  });
});
