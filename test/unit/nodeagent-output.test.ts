// The per-container stamper (forked by a real perl shim, without namespaces): CRI lines per stream, lines
// over 16 KiB cut into partial lines, a last line without a newline, nothing but the log in its folder.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCRILine } from "../../pkg/nodeagent/logs/crilog.ts";
import { DEFAULT_LOG_ROTATION } from "../../pkg/nodeagent/runtime/output.ts";
import { shimArgv } from "../../pkg/nodeagent/runtime/shim.ts";
import { tempDir, track } from "../helpers/processes.ts";

const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => parseCRILine(l)!);

test("CRI lines per stream; a line over 16 KiB is cut into a partial line; the last line needs no newline; nothing else in its folder", async () => {
  const dir = tempDir("kite-output-");
  const log = join(dir, "c", "0.log");
  const argv = ["sh", "-c", `echo one; echo two >&2; head -c 20000 /dev/zero | tr '\\0' x; echo; printf last`];
  const p = Bun.spawn(shimArgv("perl", {
    prefix: join(tempDir("kite-run-"), "r"), workingDir: "/", argv, env: { PATH: "/usr/bin:/bin" }, mounts: [], namespaces: false, cgroups: [],
    logPath: log, maxBytes: DEFAULT_LOG_ROTATION.maxBytes, maxFiles: DEFAULT_LOG_ROTATION.maxFiles,
  }), { stdio: ["ignore", "ignore", "ignore"] });
  track(p);
  await p.exited;
  const deadline = Date.now() + 5000;
  while (!(existsSync(log) && readFileSync(log, "utf8").includes(" F last")) && Date.now() < deadline) await Bun.sleep(20);
  const got = lines(log);
  expect(got.find((l) => l.partial)?.content.length).toBe(16384);
  expect(got.filter((l) => l.stream === "stdout").map((l) => l.content.length > 50 ? l.content.length : l.content)).toEqual(["one\n", 16384, 3617, "last\n"]);
  expect(got.filter((l) => l.stream === "stderr").map((l) => l.content)).toEqual(["two\n"]);
  for (const l of got) expect(Date.parse(l.time)).toBeGreaterThan(Date.now() - 60_000);
  expect(readdirSync(join(dir, "c"))).toEqual(["0.log"]);
});
