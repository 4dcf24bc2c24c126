// Health endpoints (spec §10): plain, verbose, exclude, single checks, and the shutdown sequence on SIGTERM.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";

// Polls below have their own deadlines; a test timeout would kill the server for the tests after it.
setDefaultTimeout(30_000);

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

async function text(srv: TestServer, path: string) {
  const r = await srv.req(path);
  return { status: r.status, body: await r.text(), type: r.headers.get("content-type") ?? "" };
}

const ENDPOINTS = ["livez", "readyz", "healthz"] as const;

describe("health endpoints", () => {
  for (const ep of ENDPOINTS) {
    test(`/${ep} → 200 ok`, async () => {
      const r = await text(s, `/${ep}`);
      expect(r.status).toBe(200);
      expect(r.body).toBe("ok");
      expect(r.type).toStartWith("text/plain");
    });

    test(`/${ep}?verbose lists each check and ends with "${ep} check passed"`, async () => {
      const r = await text(s, `/${ep}?verbose`);
      expect(r.status).toBe(200);
      const lines = r.body.trimEnd().split("\n");
      expect(lines.at(-1)).toBe(`${ep} check passed`);
      const checks = lines.slice(0, -1);
      expect(checks.length).toBeGreaterThanOrEqual(2);
      for (const l of checks) expect(l).toMatch(/^\[\+\][\w./-]+ ok$/);
      expect(checks).toContain("[+]ping ok");
      expect(checks).toContain("[+]etcd ok");
    });

    test(`/${ep}?verbose&exclude=etcd marks etcd excluded`, async () => {
      const r = await text(s, `/${ep}?verbose&exclude=etcd`);
      expect(r.status).toBe(200);
      const lines = r.body.trimEnd().split("\n");
      expect(lines).toContain("[+]etcd excluded: ok");
      expect(lines).not.toContain("[+]etcd ok");
      expect(lines).toContain("[+]ping ok");
      expect(lines.at(-1)).toBe(`${ep} check passed`);
    });

    test(`/${ep}/ping → 200 ok`, async () => {
      const r = await text(s, `/${ep}/ping`);
      expect(r.status).toBe(200);
      expect(r.body).toBe("ok");
    });

    test(`/${ep}/etcd → 200 ok`, async () => {
      const r = await text(s, `/${ep}/etcd`);
      expect(r.status).toBe(200);
      expect(r.body).toBe("ok");
    });

    test(`/${ep}/no-such-check → 404`, async () => {
      expect((await text(s, `/${ep}/no-such-check`)).status).toBe(404);
    });
  }

  test("?exclude without verbose still answers ok", async () => {
    const r = await text(s, "/readyz?exclude=etcd&exclude=ping");
    expect(r.status).toBe(200);
    expect(r.body).toBe("ok");
  });

  test("/readyz has the shutdown check that /livez lacks", async () => {
    expect((await text(s, "/readyz?verbose")).body).toContain("[+]shutdown ok");
    expect((await text(s, "/livez?verbose")).body).not.toContain("shutdown");
  });
});

describe("shutdown", () => {
  test("on SIGTERM /readyz fails at once, /livez stays 200 for the delay, then the process exits 0", async () => {
    const srv = await startServer(["--shutdown-delay-duration=2s"]);
    try {
      expect((await text(srv, "/readyz")).status).toBe(200);
      const t0 = Date.now();
      srv.proc.kill("SIGTERM");
      // The signal is asynchronous: allow it a moment to arrive, far less than the delay.
      let ready = 200;
      while (Date.now() - t0 < 1000) {
        ready = (await text(srv, "/readyz")).status;
        if (ready !== 200) break;
        await Bun.sleep(10);
      }
      expect(ready).not.toBe(200);
      expect(Date.now() - t0).toBeLessThan(1000);

      const failing = await text(srv, "/readyz?verbose");
      expect(failing.status).not.toBe(200);
      expect(failing.body).toContain("[-]shutdown failed");
      expect(failing.body.trimEnd().split("\n").at(-1)).toBe("readyz check failed");

      // Still live and still serving during the delay.
      expect((await text(srv, "/livez")).status).toBe(200);
      expect((await text(srv, "/healthz")).status).toBe(200);
      expect((await srv.call("GET", "/api/v1/namespaces/default")).status).toBe(200);
      expect(Date.now() - t0).toBeLessThan(1800);

      const code = await Promise.race([srv.proc.exited, Bun.sleep(10_000).then(() => "timeout" as const)]);
      expect(code).toBe(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    } finally {
      if (srv.proc.exitCode === null) srv.proc.kill("SIGKILL");
    }
  }, 20_000);
});
