// `kubectl logs` end to end: stock kubectl (1.20 and 1.33) → the API server's pods/log → the node agent's
// /containerLogs → the container's CRI log file written by its stamper. -c, --tail, --timestamps,
// --since/--since-time, -f seeing lines written later, --previous after a restart, and rotation at a
// small --container-log-max-size.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../helpers/component.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir, track } from "../helpers/processes.ts";
import { ok } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const KUBECTLS = ["/opt/kubernetes-client-1.20/usr/bin/kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"].filter(existsSync);
const NS = "default";
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z /;

let s: TestServer, agent: TestNodeAgent, work: string;

beforeAll(async () => {
  // the test's node name does not resolve: reach the agent by its InternalIP, as most clusters are set up
  s = await startServer(["--kubelet-preferred-address-types=InternalIP,Hostname"]);
  work = tempDir("kite-logs-");
  agent = await startNodeAgent(s, ["--container-log-max-size=2Ki", "--container-log-max-files=3"]);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

async function kubectl(bin: string, args: string[]) {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, "-n", NS, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  track(p);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

const sh = (name: string, script: string) => ({ name, image: "busybox:1.33", command: ["sh", "-c", script] });

async function runPod(name: string, containers: unknown[], restartPolicy = "Always") {
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: agent.name, restartPolicy, containers } });
}

/** The pod once `f` holds of it. */
const podWhen = (name: string, what: string, f: (p: any) => boolean, ms = 20_000) =>
  until(async () => { const r = await s.call("GET", `/api/v1/namespaces/${NS}/pods/${name}`); return r.status === 200 && f(r.body) ? r.body : undefined; }, `${name}: ${what}`, ms);

/** kubectl logs ARGS once its output satisfies `f` (the stamper writes a moment after the container). */
const logsWhen = (bin: string, args: string[], f: (out: string) => boolean, what: string) =>
  until(async () => { const r = await kubectl(bin, ["logs", ...args]); return r.code === 0 && f(r.out) ? r.out : undefined; }, what, 20_000);

beforeAll(async () => {
  await runPod("two", [sh("a", "for i in 1 2 3 4 5; do echo a$i; done; sleep 60"), sh("b", "echo b-out; echo b-err >&2; sleep 60")]);
  await runPod("clock", [sh("c", "echo early; sleep 2; echo late; sleep 60")]);
  await runPod("crash", [sh("c", `if [ -f ${work}/ran ]; then echo second run; sleep 60; else touch ${work}/ran; echo first run; exit 1; fi`)]);
});

for (const bin of KUBECTLS) {
  const version = bin.includes("1.20") ? "1.20" : "1.33";
  describe(`kubectl ${version}`, () => {
    test("-c picks the container; --tail the last lines; --timestamps prefixes each line's RFC 3339 time; --limit-bytes cuts", async () => {
      expect(await logsWhen(bin, ["two", "-c", "a"], (o) => o === "a1\na2\na3\na4\na5\n", "a's five lines")).toBe("a1\na2\na3\na4\na5\n");
      expect((await kubectl(bin, ["logs", "two", "-c", "a", "--tail=2"])).out).toBe("a4\na5\n");
      expect((await kubectl(bin, ["logs", "two", "-c", "a", "--tail=0"])).out).toBe("");
      expect((await kubectl(bin, ["logs", "two", "-c", "a", "--limit-bytes=5"])).out).toBe("a1\na2");
      const stamped = (await kubectl(bin, ["logs", "two", "-c", "a", "--timestamps", "--tail=3"])).out.split("\n").filter(Boolean);
      expect(stamped).toHaveLength(3);
      for (const [i, line] of stamped.entries()) {
        expect(line).toMatch(RFC3339);
        expect(line.endsWith(` a${i + 3}`)).toBe(true);
      }
      // stdout and stderr both
      const b = await logsWhen(bin, ["two", "-c", "b"], (o) => o.includes("b-err"), "b's lines");
      expect(b.split("\n").sort()).toEqual(["", "b-err", "b-out"]);
    });

    test("--since and --since-time leave out older lines", async () => {
      const stamped = await logsWhen(bin, ["clock", "--timestamps"], (o) => o.includes(" late"), "the late line");
      const late = stamped.split("\n").find((l) => l.endsWith(" late"))!.split(" ")[0];
      expect((await kubectl(bin, ["logs", "clock", "--since=1h"])).out).toBe("early\nlate\n");
      expect((await kubectl(bin, ["logs", "clock", `--since-time=${new Date(Math.floor(Date.parse(late) / 1000) * 1000).toISOString()}`])).out).toBe("late\n");
      expect((await kubectl(bin, ["logs", "clock", `--since-time=${new Date(Date.now() + 3_600_000).toISOString()}`])).out).toBe("");
    });

    test("--previous reads the run before the restart; without a previous run it is the kubelet's error", async () => {
      await podWhen("crash", "restarted and running", (p) => p.status?.containerStatuses?.[0]?.restartCount === 1 && !!p.status.containerStatuses[0].state.running);
      expect(await logsWhen(bin, ["crash"], (o) => o === "second run\n", "the second run's line")).toBe("second run\n");
      expect((await kubectl(bin, ["logs", "crash", "--previous"])).out).toBe("first run\n");
      const none = await kubectl(bin, ["logs", "clock", "--previous"]);
      expect(none.code).not.toBe(0);
      expect(none.err).toContain(`Error from server (BadRequest): previous terminated container "c" in pod "clock" not found`);
    });

    test("-f streams lines written after it started, and ends when the container does", async () => {
      const name = `follow-${version.replace(".", "-")}`;
      const [go, end] = [join(work, `${name}.go`), join(work, `${name}.end`)];
      const wait = (f: string) => `while [ ! -f ${f} ]; do sleep 0.05; done`;
      await runPod(name, [sh("c", `echo before; ${wait(go)}; echo after; ${wait(end)}`)], "Never");
      await logsWhen(bin, [name], (o) => o === "before\n", "the first line");
      const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, "-n", NS, "logs", "-f", name], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      track(p);
      let out = "";
      const reading = (async () => { for await (const c of p.stdout) out += new TextDecoder().decode(c); })();
      await until(async () => (out === "before\n" ? true : undefined), "-f to print the first line");
      writeFileSync(go, "");
      await until(async () => (out === "before\nafter\n" ? true : undefined), "-f to print the line written later");
      expect(p.exitCode).toBeNull();
      writeFileSync(end, "");
      expect(await until(async () => p.exitCode ?? undefined, "-f to end with the container", 15_000)).toBe(0);
      await reading;
      expect(out).toBe("before\nafter\n");
    });
  });
}

test("rotation at --container-log-max-size: at most --container-log-max-files files, the newest lines readable", async () => {
  const line = "x".repeat(99);
  await runPod("chatty", [sh("c", `i=0; while [ $i -lt 200 ]; do i=$((i+1)); echo "$i ${line}"; done; sleep 60`)]);
  const last = await logsWhen(KUBECTLS[0], ["chatty", "--tail=1"], (o) => o.startsWith("200 "), "the last line");
  expect(last).toBe(`200 ${line}\n`);
  const pod = (await s.call("GET", `/api/v1/namespaces/${NS}/pods/chatty`)).body;
  const dir = join(agent.rootDir, "pods", pod.metadata.uid, "containers", "c");
  // (the runtime's records of the run live beside its logs)
  const files = readdirSync(dir).filter((f) => f.startsWith("0.log")).sort();
  expect(files).toHaveLength(3);
  expect(files[0]).toBe("0.log");
  for (const f of files.slice(1)) expect(f).toMatch(/^0\.log\.\d{8}-\d{6}(\.\d{3})?$/);
  // only the current file is read, as upstream: the first lines are gone with the rotated files
  const all = (await kubectl(KUBECTLS[0], ["logs", "chatty"])).out;
  expect(all.length).toBeLessThanOrEqual(2048);
  expect(all).not.toContain(`1 ${line}\n`);
});
