// The apiserver command line: help, flag errors, TLS set-up and certificate reuse.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KITE, startServer } from "../helpers/server.ts";

async function run(args: string[]) {
  const p = Bun.spawn([...KITE, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

test("kite --help and kite apiserver --help describe the commands and flags", async () => {
  const root = await run(["--help"]);
  expect(root.code).toBe(0);
  expect(root.out).toContain("apiserver");
  const help = await run(["apiserver", "--help"]);
  expect(help.code).toBe(0);
  for (const f of ["--secure-port", "--bind-address", "--cert-dir", "--tls-cert-file", "--tls-private-key-file", "--tls-min-version",
    "--advertise-address", "--request-timeout", "--shutdown-delay-duration", "--livez-grace-period", "--etcd-prefix",
    "--etcd-compaction-interval", "--data-dir", "--storage-backend"]) expect(help.out).toContain(f);
  expect(help.out).toContain("6443");
  expect(help.out).toContain("5m0s");
});

test("an unknown flag, command or bad value exits 2 with one line", async () => {
  for (const args of [["apiserver", "--no-such-flag"], ["apiserver", "--request-timeout=soon"], ["apiserver", "--secure-port=0"], ["no-such-command"],
    ["apiserver", "--tls-min-version=VersionTLS99"], ["apiserver", "--storage-backend=mysql"], ["apiserver", "--feature-gates=NoSuchGate=true"],
    ["apiserver", "--feature-gates=ServerSideApply=maybe"]]) {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n").length).toBe(1);
    expect(r.err).toMatch(/^Error: /);
  }
});

test("certificates are generated once and reused on restart", async () => {
  const a = await startServer();
  const ca = readFileSync(join(a.dataDir, "pki", "ca.crt"), "utf8");
  const cert = readFileSync(join(a.dataDir, "pki", "apiserver.crt"), "utf8");
  expect(await a.stop()).toBe(0);
  const b = await startServer([], a.dataDir);
  expect(readFileSync(join(a.dataDir, "pki", "ca.crt"), "utf8")).toBe(ca);
  expect(readFileSync(join(a.dataDir, "pki", "apiserver.crt"), "utf8")).toBe(cert);
  // The server presents that certificate: a client trusting only the CA connects.
  expect((await b.req("/readyz")).status).toBe(200);
  await b.stop();
});

test("--tls-min-version refuses older TLS handshakes", async () => {
  const s = await startServer(["--tls-min-version=VersionTLS13"]);
  const handshake = async (v: string) => {
    const p = Bun.spawn(["openssl", "s_client", "-connect", `127.0.0.1:${s.port}`, v], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    await p.exited;
    // A completed handshake names its cipher; a refused one says "Cipher is (NONE)" and an alert.
    return /Cipher is TLS_/.test(out) && !/alert protocol version/.test(err);
  };
  expect(await handshake("-tls1_2")).toBe(false);
  expect(await handshake("-tls1_3")).toBe(true);
  await s.stop();
});

test("--feature-gates ServerSideApply=false turns apply off and keeps no managedFields (spec 9.1 rule 13)", async () => {
  const s = await startServer(["--feature-gates=ServerSideApply=false"]);
  const cms = "/api/v1/namespaces/default/configmaps";
  const created = await s.call("POST", `${cms}?fieldManager=me`, { metadata: { name: "plain" }, data: { a: "1" } });
  expect(created.status).toBe(201);
  expect(created.body.metadata.managedFields).toBeUndefined();
  const applied = await s.call("PATCH", `${cms}/plain?fieldManager=me`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "plain" }, data: { a: "2" } }, { "content-type": "application/apply-patch+yaml" });
  expect(applied.status).toBe(415);
  expect(applied.body.message).not.toContain("apply-patch");
  expect((await s.call("GET", `${cms}/plain`)).body.data.a).toBe("1");
  await s.stop();
});
