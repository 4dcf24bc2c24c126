// install.sh: inside a checkout it builds and installs; piped from a release URL it downloads the
// binary for this OS/CPU, checks its sha256, installs it, and --uninstall removes it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRelease } from "../../pkg/release/package.ts";
import { ROOT } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";

let release: string, server: ReturnType<typeof Bun.serve>, url: string, binName: string;

async function sh(cmd: string, env: Record<string, string>, cwd = ROOT) {
  const p = Bun.spawn(["sh", "-c", cmd], { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

beforeAll(async () => {
  const build = await sh("npm run --silent build", {});
  expect(build.code).toBe(0);
  release = tempDir("kite-release-");
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => {
    const f = Bun.file(join(release, new URL(req.url).pathname));
    return f.size ? new Response(f) : new Response("not found", { status: 404 });
  } });
  url = `http://127.0.0.1:${server.port}`;
  binName = packageRelease(ROOT, url, release);
}, 120_000);
afterAll(() => server.stop(true));

test("curl URL/install.sh | sh installs the release binary, and --uninstall removes it", async () => {
  const dest = tempDir("kite-bin-");
  const env = { KITE_INSTALL_DIR: dest, PATH: "/usr/bin:/bin" };
  const r = await sh(`curl -fsSL ${url}/install.sh | sh`, env, tmpdir());
  expect(r.code).toBe(0);
  expect(r.err).toContain(`downloading ${url}/${binName}`);
  expect(r.err).toContain(`is not on your PATH`);
  const v = Bun.spawnSync([join(dest, "kite"), "version", "--client"]);
  expect(v.stdout.toString()).toMatch(/^Client Version: kite \d+\.\d+\.\d+/);
  const u = await sh(`curl -fsSL ${url}/install.sh | sh -s -- --uninstall`, env, tmpdir());
  expect(u.code).toBe(0);
  expect(existsSync(join(dest, "kite"))).toBe(false);
}, 60_000);

test("a binary whose sha256 does not match is refused", async () => {
  const dest = tempDir("kite-bin-");
  writeFileSync(join(release, "SHA256SUMS"), `${"0".repeat(64)}  ${binName}\n`);
  const r = await sh(`curl -fsSL ${url}/install.sh | sh`, { KITE_INSTALL_DIR: dest }, tmpdir());
  expect(r.code).not.toBe(0);
  expect(r.err).toContain("checksum mismatch");
  expect(existsSync(join(dest, "kite"))).toBe(false);
  packageRelease(ROOT, url, release); // restore
}, 60_000);

test("./install.sh inside the checkout builds and installs kite", async () => {
  const dest = tempDir("kite-bin-");
  const r = await sh("./install.sh", { KITE_INSTALL_DIR: dest, PATH: `${dest}:${process.env.PATH}` });
  expect(r.code).toBe(0);
  expect(r.err).toContain(`installed ${dest}/kite`);
  expect(r.err).not.toContain("not on your PATH");
  expect(Bun.spawnSync([join(dest, "kite"), "--help"]).exitCode).toBe(0);
}, 120_000);
