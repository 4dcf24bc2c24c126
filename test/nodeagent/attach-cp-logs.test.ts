// `kubectl attach`, `kubectl run -i --rm`, `kubectl cp` and `kubectl logs -f` with kubectl 1.20 (SPDY) and
// 1.33 (WebSocket): a container with stdin: true reads what attached clients type (its stdin stays open
// between sessions), its stdout and stderr reach them while its log keeps being written; stdinOnce ends
// its input with the first session. cp is exec + tar (tar in the container's mount namespace).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../helpers/component.ts";
import { tempDir } from "../helpers/processes.ts";
import { terminal } from "../helpers/terminal.ts";
import { STREAM_KUBECTLS, type StreamCluster, runKubectl, runningPod, sha, startKubectl, startStreamCluster, versionOf } from "../helpers/streams.ts";

const NS = "default";
const [OLD, NEW] = [STREAM_KUBECTLS[0], STREAM_KUBECTLS.at(-1)!];
let c: StreamCluster;

beforeAll(async () => {
  c = await startStreamCluster();
  await Promise.all([
    runningPod(c, NS, "reader", { containers: [{ name: "main", image: "busybox", stdin: true, command: ["sh", "-c", `while read line; do echo "got: $line"; echo "err: $line" >&2; done; echo "stdin closed"; sleep 3600`] }] }),
    runningPod(c, NS, "box", { volumes: [{ name: "data", emptyDir: {} }], containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], volumeMounts: [{ name: "data", mountPath: "/data" }] }] }),
    runningPod(c, NS, "ticker", { containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "i=0; while :; do echo tick $i; i=$((i+1)); sleep 0.1; done"] }] }),
    runningPod(c, NS, "once", { containers: [{ name: "main", image: "busybox", stdin: true, stdinOnce: true, command: ["sh", "-c", `cat; echo "input ended"; sleep 3600`] }] }),
  ]);
});
afterAll(async () => {
  await c?.agent.stop();
  await c?.s.stop();
});

const logs = async (pod: string) => (await runKubectl(c.s, OLD, ["-n", NS, "logs", pod])).out;

test("attach -i: typed lines reach the container, its stdout and stderr come back; stdin stays open across sessions", async () => {
  for (const bin of [OLD, NEW]) {
    const v = versionOf(bin);
    const k = startKubectl(c.s, bin, ["-n", NS, "attach", "-i", "reader"]);
    try {
      // what is typed before the session is up is typed again until it is
      await until(async () => {
        k.proc.stdin.write(`hello ${v}\n`);
        k.proc.stdin.flush();
        await Bun.sleep(300);
        return k.out.includes(`got: hello ${v}\n`) || undefined;
      }, `the echo through kubectl ${v} (out: ${k.out} err: ${k.err})`, 15_000);
      await k.waitFor(`err: hello ${v}`, "stderr");
      expect(k.err).toContain(`err: hello ${v}\n`);
    } finally {
      await k.stop();
    }
  }
  const log = await logs("reader");
  expect(log).toContain("got: hello 1.20\n");
  expect(log).toContain("got: hello 1.33\n");
  expect(log).not.toContain("stdin closed");
});

test("stdinOnce: the container's input ends with the first session", async () => {
  const k = startKubectl(c.s, OLD, ["-n", NS, "attach", "-i", "once"]);
  try {
    await until(async () => {
      k.proc.stdin.write("line\n");
      k.proc.stdin.flush();
      await Bun.sleep(300);
      return k.out.includes("line\n") || undefined;
    }, `the echo (out: ${k.out} err: ${k.err})`, 15_000);
    k.proc.stdin.end();
    await until(async () => (await logs("once")).includes("input ended") || undefined, "the container to read the end of its input", 15_000);
  } finally {
    await k.stop();
  }
});

// (--command: the process runtime runs command + args, kubectl run would put the words in args)
for (const bin of [OLD, NEW]) {
  test(`kubectl ${versionOf(bin)} run -i --rm --restart=Never: attaches, types, and deletes the pod after`, async () => {
    const name = `run-${versionOf(bin).replace(".", "-")}`;
    const r = await runKubectl(c.s, bin, ["-n", NS, "run", name, "--image=busybox", "-i", "--rm", "--restart=Never", "--pod-running-timeout=20s", `--overrides={"apiVersion":"v1","spec":{"nodeName":"${c.agent.name}"}}`, "--command", "--", "sh", "-c", `read x; echo "hello $x"`], "world\n");
    expect(`${r.out}${r.err}`).toContain("hello world");
    expect(r.code).toBe(0);
    expect((await c.s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`)).status).toBe(404);
  });
}

for (const bin of [OLD, NEW]) {
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

// a container with tty: true runs on a terminal of its own: attached through tmux, it is a terminal,
// sized as the person's (kubectl run -it creates the pod and attaches, as `kubectl attach -it` does)
describe.if(!!Bun.which("tmux"))("run -it / attach -it to a tty: true container", () => {
  for (const bin of [OLD, NEW]) {
    test(`kubectl ${versionOf(bin)}: a shell on a terminal, sized as the terminal`, async () => {
      const name = `tty-${versionOf(bin).replace(".", "-")}`;
      const screen = await terminal([bin, `--kubeconfig=${c.s.kubeconfig}`, "-n", NS, "run", name, "-it", "--image=busybox", "--restart=Never", "--pod-running-timeout=20s",
        `--overrides={"apiVersion":"v1","spec":{"nodeName":"${c.agent.name}"}}`, "--command", "--", "sh"],
      ["", "echo product=$((6*7)); [ -t 0 ] && echo on-a-tty; stty size"], /on-a-tty\s+30 120/, /If you don't see a command prompt/);
      expect(screen).toContain("product=42");
      const pod = (await c.s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`)).body;
      expect(pod.spec.containers[0]).toMatchObject({ tty: true, stdin: true });
    });
  }
});
