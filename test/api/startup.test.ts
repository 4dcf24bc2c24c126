// Issue 13 item 7: one server per data dir on the embedded store (a second `kite apiserver` or `kite up`
// exits 2 naming the first's pid and port, leaves the kubeconfig alone, and the first keeps serving; the
// lock dies with its process, kill -9 included); with etcd, servers share their store and may share a
// data dir. Every refused start is one line on stderr, no stack, no source: exit 2 when another process
// holds what the flags ask for (data dir, port), 1 otherwise.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EtcdProcess, startEtcd } from "../helpers/etcd.ts";
import { kiteUp, runKite } from "../helpers/kite.ts";
import { tempDir } from "../helpers/processes.ts";
import { BACKEND, freePort, startServer } from "../helpers/server.ts";
import { expectCode, until } from "./fixtures.ts";

setDefaultTimeout(60_000);

const CMS = "/api/v1/namespaces/default/configmaps";
const cm = (name: string) => ({ metadata: { name }, data: { a: "b" } });

/** Asserts a refused start: the exit code and exactly one stderr line, `Error: ...`, with nothing else. */
function refused(r: Awaited<ReturnType<typeof runKite>>, code: number, line: string | RegExp) {
  expect(r.timedOut).toBe(false);
  expect({ code: r.code, out: r.out }).toEqual({ code, out: "" });
  const lines = r.err.split("\n").filter(Boolean);
  expect(lines).toHaveLength(1);
  if (typeof line === "string") expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
}

let etcd: EtcdProcess | undefined;
beforeAll(async () => {
  if (BACKEND === "etcd") etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});
/** `kite apiserver` on this suite's backend, on loopback. */
const apiserver = (dir: string, port: number, ...extra: string[]) =>
  runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${port}`, `--data-dir=${dir}`, ...(etcd ? [`--etcd-servers=${etcd.endpoints[0]}`] : []), ...extra]);

describe.skipIf(BACKEND === "etcd")("one server per data dir (the embedded store)", () => {
  test("a second kite apiserver on the dir exits 2 naming the first's pid and port; the first still serves writes", async () => {
    const first = await startServer();
    const r = await apiserver(first.dataDir, await freePort());
    refused(r, 2, `Error: data dir ${first.dataDir} is in use by kite pid ${first.proc.pid} (port ${first.port})`);
    expectCode(await first.call("POST", CMS, cm("after-refusal")), 201, "create on the first server");
    expectCode(await first.call("GET", `${CMS}/after-refusal`), 200, "read it back");
    expect(await first.stop()).toBe(0);
    // A clean stop frees the dir at once.
    const again = await startServer([], first.dataDir);
    expectCode(await again.call("GET", `${CMS}/after-refusal`), 200, "read after restart");
    await again.stop();
  });

  test("a second kite up exits 2 and leaves the kubeconfig as it was; after kill -9 of the first, a new kite up starts", async () => {
    const dir = tempDir("kite-up-twice-");
    const port = await freePort();
    const first = await kiteUp(dir, port);
    const kubeconfig = join(dir, "kubeconfig.yaml");
    const before = readFileSync(kubeconfig, "utf8");

    const second = await runKite(["up", `--data-dir=${dir}`, `--secure-port=${await freePort()}`]);
    refused(second, 2, `Error: data dir ${join(dir, "server")} is in use by kite pid ${first.pid} (port ${port})`);
    expect(readFileSync(kubeconfig, "utf8")).toBe(before);
    // kite apiserver on kite up's store is the same store.
    refused(await apiserver(join(dir, "server"), await freePort()), 2, /is in use by kite pid \d+ \(port \d+\)$/);

    // The first still serves writes through that kubeconfig.
    const pki = join(dir, "server", "pki");
    const tls = { ca: readFileSync(join(pki, "ca.crt"), "utf8"), cert: readFileSync(join(pki, "admin.crt"), "utf8"), key: readFileSync(join(pki, "admin.key"), "utf8") };
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`https://127.0.0.1:${port}${path}`, { method, body: body && JSON.stringify(body), headers: { "content-type": "application/json" }, tls } as RequestInit);
    expect((await call("POST", CMS, cm("kept"))).status).toBe(201);

    first.kill(9);
    await first.exited;
    const third = await kiteUp(dir, port);
    expect((await call("GET", `${CMS}/kept`)).status).toBe(200);
    third.kill("SIGINT");
    expect(await third.exited).toBe(0);
  });
});

describe.skipIf(BACKEND !== "etcd")("etcd: servers share their store by design", () => {
  test("a second server on the same etcd and data dir starts (no lock) and sees the first's writes", async () => {
    const first = await startServer([`--etcd-servers=${etcd!.endpoints[0]}`]);
    const second = await startServer([`--etcd-servers=${etcd!.endpoints[0]}`], first.dataDir);
    expectCode(await first.call("POST", CMS, cm("shared")), 201, "create on the first");
    expectCode(await second.call("GET", `${CMS}/shared`), 200, "read on the second");
    await Promise.all([first.stop(), second.stop()]);
  });

  test("the kubernetes Endpoints list every live server (their leases), and drop one that stops", async () => {
    const etcdFlag = `--etcd-servers=${etcd!.endpoints[0]}`;
    const [a, b] = await Promise.all([startServer([etcdFlag]), startServer([etcdFlag])]);
    const ports = async () => {
      const ep = await a.call("GET", "/api/v1/namespaces/default/endpoints/kubernetes");
      return ((ep.body.subsets ?? []) as any[]).map((s) => s.ports[0].port).sort();
    };
    await until(async () => Bun.deepEquals(await ports(), [a.port, b.port].sort()), "both servers in the Endpoints", 20_000);
    await b.stop();
    await until(async () => Bun.deepEquals(await ports(), [a.port]), "only the running server in the Endpoints", 20_000);
    await a.stop();
  });
});

describe("a start that cannot succeed is one line", () => {
  test("a busy port: `port N is in use`, exit 2 (kite apiserver and kite up)", async () => {
    const busy = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      refused(await apiserver(tempDir("kite-busy-"), busy.port), 2, `Error: port ${busy.port} is in use`);
      if (BACKEND === "sqlite") refused(await runKite(["up", `--data-dir=${tempDir("kite-busy-")}`, `--secure-port=${busy.port}`]), 2, `Error: port ${busy.port} is in use`);
    } finally {
      busy.stop(true);
    }
  });

  test("a port another kite server listens on is busy too (no shared port), and that server keeps it", async () => {
    const first = await startServer();
    refused(await apiserver(tempDir("kite-busy-"), first.port), 2, `Error: port ${first.port} is in use`);
    for (let i = 0; i < 8; i++) expectCode(await first.call("POST", CMS, cm(`port-${i}`)), 201, `create ${i} on the first`);
    await first.stop();
  });

  test("a data dir that is a file, under a file, or not readable: exit 1 naming it", async () => {
    const root = tempDir("kite-baddir-");
    const file = join(root, "file");
    writeFileSync(file, "x");
    const port = await freePort();
    refused(await apiserver(file, port), 1, `Error: data dir ${file} is not a directory`);
    refused(await apiserver(join(file, "sub"), port), 1, `Error: data dir ${join(file, "sub")}: mkdir ${join(file, "sub")}: not a directory`);
    if (process.getuid?.() !== 0) { // root reads any directory
      const locked = join(root, "locked");
      mkdirSync(locked, { mode: 0o000 });
      refused(await apiserver(locked, port), 1, new RegExp(`^Error: data dir ${locked}: .*permission denied$`));
      chmodSync(locked, 0o700);
    }
  });

  test("certificate files: missing, not PEM, or a key of another certificate: exit 1 naming the flag and file", async () => {
    const s = await startServer();
    await s.stop();
    const pki = join(s.dataDir, "pki");
    const dir = tempDir("kite-badcert-");
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "not a certificate\n");
    const port = await freePort();
    const tls = (cert: string, key: string) => apiserver(tempDir("kite-badcert-"), port, `--tls-cert-file=${cert}`, `--tls-private-key-file=${key}`);
    refused(await tls(join(dir, "none.crt"), junk), 1, `Error: cannot read --tls-cert-file ${join(dir, "none.crt")}: open ${join(dir, "none.crt")}: no such file or directory`);
    refused(await tls(junk, join(pki, "apiserver.key")), 1, `Error: --tls-cert-file ${junk} is not a PEM certificate`);
    refused(await tls(join(pki, "apiserver.crt"), junk), 1, `Error: --tls-private-key-file ${junk} is not a PEM private key`);
    refused(await tls(join(pki, "apiserver.crt"), join(pki, "ca.key")), 1, `Error: --tls-private-key-file ${join(pki, "ca.key")} does not match --tls-cert-file ${join(pki, "apiserver.crt")}`);
    // A generated certificate that was damaged on disk is named too.
    const gen = tempDir("kite-badcert-");
    mkdirSync(join(gen, "pki"));
    for (const f of ["ca.crt", "ca.key", "apiserver.key"]) copyFileSync(join(pki, f), join(gen, "pki", f));
    copyFileSync(junk, join(gen, "pki", "apiserver.crt"));
    refused(await apiserver(gen, port), 1, `Error: certificate ${join(gen, "pki", "apiserver.crt")} is not a PEM certificate`);
  });

  test.skipIf(BACKEND === "etcd")("etcd that does not answer, or a missing etcd CA file: exit 1", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const port = await freePort();
    const run = (...extra: string[]) => runKite(["apiserver", "--bind-address=127.0.0.1", `--secure-port=${port}`, `--data-dir=${tempDir("kite-noetcd-")}`, `--etcd-servers=${url}`, ...extra]);
    refused(await run(), 1, new RegExp(`^Error: etcd: ${url}: `));
    refused(await run("--etcd-cafile=/nonexistent/ca.crt"), 1, "Error: etcd: open /nonexistent/ca.crt: no such file or directory");
  });
});
