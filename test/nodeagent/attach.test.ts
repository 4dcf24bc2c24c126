// `kubectl attach` and `kubectl run -i --rm` with kubectl 1.20 (SPDY) and 1.33 (WebSocket): a container
// with stdin: true reads what attached clients type (its stdin stays open between sessions), its stdout
// and stderr reach them while its log keeps being written; stdinOnce ends its input with the first session.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { until } from "../helpers/component.ts";
import { STREAM_KUBECTLS, type StreamCluster, runKubectl, runningPod, startKubectl, startStreamCluster, versionOf } from "../helpers/streams.ts";

const NS = "default";
const [OLD, NEW] = [STREAM_KUBECTLS[0], STREAM_KUBECTLS.at(-1)!];
let c: StreamCluster;

beforeAll(async () => {
  c = await startStreamCluster();
  await Promise.all([
    runningPod(c, NS, "reader", { containers: [{ name: "main", image: "busybox", stdin: true, command: ["sh", "-c", `while read line; do echo "got: $line"; echo "err: $line" >&2; done; echo "stdin closed"; sleep 3600`] }] }),
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
