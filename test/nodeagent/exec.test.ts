// `kubectl exec` end to end: stock kubectl (1.20 and 1.28 over SPDY/3.1, 1.33 over WebSocket v5) → the
// API server's pods/exec → the node agent's /exec → a command inside the container's namespaces with its
// environment. stdout, stderr, stdin and its end, exit codes through the error channel, a missing
// container and command; and the file descriptors and processes every session held are freed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateServingCerts } from "../../pkg/pki/certs.ts";
import { until } from "../helpers/component.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir, track } from "../helpers/processes.ts";
import { ok } from "../helpers/scheduler.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { terminal } from "../helpers/terminal.ts";

const KUBECTLS = ["/opt/kubernetes-client-1.20/usr/bin/kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.28", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"].filter(existsSync);
const NS = "default";

let s: TestServer, agent: TestNodeAgent;

async function kubectl(bin: string, args: string[], stdin?: string) {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, "-n", NS, ...args], { stdin: stdin === undefined ? "ignore" : new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
  track(p);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

beforeAll(async () => {
  // a client CA puts the TLS front before the server, which takes SPDY upgrades (as under `kite up`)
  const ca = join(tempDir("kite-exec-"), "client-ca.crt");
  writeFileSync(ca, generateServingCerts("exec-test-ca", "unused", ["localhost"]).ca);
  s = await startServer(["--kubelet-preferred-address-types=InternalIP,Hostname", `--client-ca-file=${ca}`]);
  agent = await startNodeAgent(s);
  await ok(s, "POST", `/api/v1/namespaces/${NS}/pods`, {
    apiVersion: "v1", kind: "Pod", metadata: { name: "box" },
    spec: { nodeName: agent.name, containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"], env: [{ name: "GREETING", value: "hello from box" }], workingDir: "/tmp" }] },
  });
  await until(async () => (await s.call("GET", `/api/v1/namespaces/${NS}/pods/box`)).body?.status?.phase === "Running" || undefined, "box running", 20_000);
});
afterAll(async () => {
  await agent?.stop();
  await s?.stop();
});

for (const bin of KUBECTLS) {
  const version = bin.match(/1\.\d+/)![0];
  describe(`kubectl ${version}`, () => {
    test("stdout and stderr apart, the container's environment and working directory", async () => {
      const r = await kubectl(bin, ["exec", "box", "--", "sh", "-c", `echo "$GREETING in $(pwd)"; echo oops >&2`]);
      expect(r).toEqual({ code: 0, out: "hello from box in /tmp\n", err: "oops\n" });
    });

    test("stdin to the command, and its end", async () => {
      const r = await kubectl(bin, ["exec", "-i", "box", "--", "sh", "-c", "wc -c; echo done"], "x".repeat(100_000));
      expect(r.out).toBe("100000\ndone\n");
      expect(r.code).toBe(0);
    });

    test("a non-zero exit code passes through, in kubectl's words", async () => {
      const r = await kubectl(bin, ["exec", "box", "--", "sh", "-c", "exit 3"]);
      expect(r.code).toBe(3);
      expect(r.err).toContain("command terminated with exit code 3");
    });

    test("a missing container or command: upstream's errors", async () => {
      const r = await kubectl(bin, ["exec", "box", "-c", "nope", "--", "true"]);
      expect(r.code).not.toBe(0);
      expect(r.err).toContain("container nope is not valid for pod box");
      const m = await kubectl(bin, ["exec", "box", "--", "no-such-command"]);
      expect(m.code).not.toBe(0);
      expect(m.err).toContain(`exec: "no-such-command": executable file not found in $PATH`);
    });
  });
}

test("a plain request without an upgrade is refused as upstream refuses it", async () => {
  const r = await s.call("POST", `/api/v1/namespaces/${NS}/pods/box/exec?command=true&stdout=1`);
  expect(r.body).toMatchObject({ code: 400, message: "Upgrade request required" });
});

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
/** How many processes have `pid` as their parent. */
const children = (pid: number) => readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
  try { return readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ")[1] === String(pid); } catch { return false; }
}).length;

test("sessions free what they held: file descriptors of the API server and the agent, processes", async () => {
  const bins = KUBECTLS.slice(0, 1).concat(KUBECTLS.slice(-1));
  const run = () => Promise.all(bins.flatMap((b) => [kubectl(b, ["exec", "box", "--", "true"]), kubectl(b, ["exec", "-i", "box", "--", "cat"], "abc")]));
  await run();
  const before = { server: fds(s.proc.pid), agent: fds(agent.proc.pid), kids: children(agent.proc.pid) };
  for (let i = 0; i < 10; i++) expect((await run()).map((r) => r.code)).toEqual(bins.flatMap(() => [0, 0]));
  await until(async () => (fds(s.proc.pid) <= before.server + 2 && fds(agent.proc.pid) <= before.agent + 2 && children(agent.proc.pid) <= before.kids) || undefined, "descriptors back", 10_000);
});

describe.if(!!Bun.which("tmux"))("exec -it through a terminal", () => {
  for (const bin of [KUBECTLS[0], KUBECTLS.at(-1)!]) {
    test(`kubectl ${bin.match(/1\.\d+/)![0]}: a shell on a tty, sized as the terminal`, async () => {
      const screen = await terminal([bin, `--kubeconfig=${s.kubeconfig}`, "-n", NS, "exec", "-it", "box", "--", "sh"],
        ["echo product=$((6*7)); [ -t 0 ] && echo on-a-tty; stty size"], /on-a-tty\s+30 120/);
      expect(screen).toContain("product=42");
    });
  }
});
