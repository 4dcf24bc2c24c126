// `kubectl cp` both ways (exec + tar, tar running in the container's mount namespace) and `kubectl logs -f`
// while the container writes, with kubectl 1.20 (SPDY) and 1.33 (WebSocket); exec without a command.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { STREAM_KUBECTLS, type StreamCluster, runKubectl, runningPod, sha, startKubectl, startStreamCluster, versionOf } from "../helpers/streams.ts";

const NS = "default";
let c: StreamCluster;

beforeAll(async () => {
  c = await startStreamCluster();
  await Promise.all([
    runningPod(c, NS, "box", { volumes: [{ name: "data", emptyDir: {} }], containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], volumeMounts: [{ name: "data", mountPath: "/data" }] }] }),
    runningPod(c, NS, "ticker", { containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "i=0; while :; do echo tick $i; i=$((i+1)); sleep 0.1; done"] }] }),
  ]);
});
afterAll(async () => {
  await c?.agent.stop();
  await c?.s.stop();
});

for (const bin of [STREAM_KUBECTLS[0], STREAM_KUBECTLS.at(-1)!]) {
  const v = versionOf(bin);
  test(`kubectl ${v} cp: a directory into the pod and back, intact`, async () => {
    const src = join(tempDir("kite-cp-"), "src");
    mkdirSync(join(src, "sub"), { recursive: true });
    const big = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE(i * 2654435761 >>> 0, i);
    writeFileSync(join(src, "big.bin"), big);
    writeFileSync(join(src, "sub", "note.txt"), `from kubectl ${v}\n`);
    const into = await runKubectl(c.s, bin, ["-n", NS, "cp", src, `box:/data/${v}`]);
    expect(into.code).toBe(0);
    // inside the container, at its volume's mountPath
    const seen = await runKubectl(c.s, bin, ["-n", NS, "exec", "box", "--", "cat", `/data/${v}/sub/note.txt`]);
    expect(seen.out).toBe(`from kubectl ${v}\n`);
    const back = join(tempDir("kite-cp-"), "back");
    const out = await runKubectl(c.s, bin, ["-n", NS, "cp", `box:/data/${v}`, back]);
    expect(out.code).toBe(0);
    expect(sha(readFileSync(join(back, "big.bin")))).toBe(sha(big));
    expect(readFileSync(join(back, "sub", "note.txt"), "utf8")).toBe(`from kubectl ${v}\n`);
  });

  test(`kubectl ${v} logs -f: lines as the container writes them`, async () => {
    const k = startKubectl(c.s, bin, ["-n", NS, "logs", "-f", "--tail=1", "ticker"]);
    try {
      await k.waitFor(/tick \d+/, "a first line");
      const first = Number(k.out.match(/tick (\d+)/)![1]);
      await k.waitFor(new RegExp(`tick ${first + 5}\\n`), "five lines more");
      expect(k.proc.exitCode).toBeNull();
    } finally {
      await k.stop();
    }
  });
}

test("exec without a command: upstream's 400", async () => {
  const r = await c.s.call("POST", `/api/v1/namespaces/${NS}/pods/box/exec?stdout=1`);
  expect(r.body).toMatchObject({ code: 400, message: "you must specify at least 1 command" });
});
