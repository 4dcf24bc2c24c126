// GET /exec/{podNamespace}/{podID}/{containerName}?command=...&input=1&output=1&error=1&tty=1, upgraded
// to a WebSocket speaking v5.channel.k8s.io (the API server's side of exec): the command runs inside the
// container's namespaces with its environment (as an exec probe does), its stdio on the channels, and its
// end as a Status on the error channel. A tty runs it on a terminal (../runtime/pty.ts). Its output is not
// read while the WebSocket's queue is past the flow control bound, the WebSocket not while its stdin is full.
import type { ExecTarget } from "../probes/exec.ts";
import { DEFAULT_PATH } from "../runtime/process.ts";
import { ptyCommand, ptyInput, ptyResize } from "../runtime/pty.ts";
import { Channel, channelMessage, exitStatus, internalStatus } from "../../streaming/remotecommand.ts";
import { type SocketHandlers, type Ws, closeSocket, upgrade, wsSink } from "../../serving/websocket.ts";
import { Holds, backlog, pipeWrite } from "../../streaming/flow.ts";
import type { AgentPods } from "./handlers.ts";
import { text } from "./auth.ts";

const decode = (s: string) => { try { return decodeURIComponent(s); } catch { return s; } };
const on = (q: URLSearchParams, name: string) => ["1", "true"].includes(q.get(name) ?? "");

const killGroup = (pid: number) => {
  try { process.kill(-pid, "SIGKILL"); } catch { /* gone */ }
};

/** One exec: its process, started once the WebSocket is open, killed when the client goes. */
class ExecSession implements SocketHandlers {
  private proc?: Bun.Subprocess<"pipe" | "ignore", "pipe", "pipe">;
  private done = false;
  private fromClient?: Holds;

  constructor(private readonly target: ExecTarget, private readonly command: string[], private readonly io: { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }) {}

  open(ws: Ws) {
    const [cmd, ...args] = this.command;
    const exe = cmd.includes("/") ? cmd : Bun.which(cmd, { PATH: this.target.env.PATH ?? DEFAULT_PATH });
    if (!exe) return this.finish(ws, internalStatus(`error executing command in container: exec: "${cmd}": executable file not found in $PATH`));
    const enter = this.target.enter?.();
    const argv = [...(enter ?? []), exe, ...args];
    try {
      this.proc = Bun.spawn(this.io.tty ? ptyCommand(argv) : argv, {
        cwd: enter ? "/" : this.target.workingDir, env: this.target.env, detached: true,
        stdin: this.io.stdin || this.io.tty ? "pipe" : "ignore", stdout: "pipe", stderr: "pipe",
      });
    } catch (e) {
      return this.finish(ws, internalStatus(`error executing command in container: ${(e as Error).message}`));
    }
    const proc = this.proc;
    this.fromClient = new Holds(ws);
    const out = wsSink(ws);
    const pump = async (stream: ReadableStream<Uint8Array>, channel: number, wanted: boolean) => {
      for await (const chunk of stream) {
        if (!wanted || this.done) continue;
        ws.send(channelMessage(channel, chunk));
        const full = backlog(out);
        if (full) await full;
      }
    };
    // once the command is gone, so is what it left running (it would hold the pipes open)
    const exited = proc.exited.then(() => killGroup(proc.pid));
    void Promise.all([pump(proc.stdout, Channel.stdout, this.io.stdout), pump(proc.stderr, Channel.stderr, this.io.stderr || this.io.tty), exited])
      .then(() => this.finish(ws, exitStatus(proc.exitCode ?? 128 + (proc.signalCode ? 9 : 0), this.command)))
      .catch((e) => this.finish(ws, internalStatus((e as Error).message)));
  }

  message(_ws: Ws, data: Buffer) {
    const stdin = this.proc?.stdin;
    if (!stdin || typeof stdin === "number" || !data.length) return;
    const payload = data.subarray(1);
    try {
      let full: Promise<void> | undefined;
      if (data[0] === Channel.stdin && payload.length) full = pipeWrite(stdin, this.io.tty ? ptyInput(payload) : payload);
      else if (data[0] === Channel.resize && this.io.tty) {
        const size = JSON.parse(payload.toString());
        full = pipeWrite(stdin, ptyResize(Number(size.Width) || 0, Number(size.Height) || 0));
      } else if (data[0] === Channel.close && payload[0] === Channel.stdin && !this.io.tty) return void stdin.end();
      if (full) this.fromClient?.hold(full);
    } catch { /* the command is gone or the message was bad: nothing to write to */ }
  }

  close() {
    this.done = true;
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) killGroup(this.proc.pid);
  }

  private finish(ws: Ws, status: object) {
    if (this.done) return;
    this.done = true;
    ws.send(channelMessage(Channel.error, JSON.stringify(status)));
    closeSocket(ws);
  }
}

/** The exec request: its target found and the WebSocket upgraded, or the kubelet's refusal. */
export function execRequest(view: AgentPods, path: string, q: URLSearchParams, req: Request, server: { upgrade(req: Request, o: object): boolean }): Response {
  const [ns, pod, container] = path.split("/").slice(2).map(decode);
  if (!ns || !pod || !container) return text(400, "missing podNamespace, podID or container name");
  const command = q.getAll("command");
  if (!command.length) return text(400, "you must specify at least one command for the container");
  const w = [...view.workers()].find((x) => x.pod.metadata.namespace === ns && x.pod.metadata.name === pod);
  if (!w) return text(404, `pod does not exist`);
  const target = [...w.containers, ...w.initContainers].find((c) => c.name === container)?.execTarget;
  if (!target) return text(500, `container not found ("${container}")`);
  const io = { stdin: on(q, "input"), stdout: on(q, "output"), stderr: on(q, "error"), tty: on(q, "tty") };
  if (!upgrade(server, req, new ExecSession(target, command, io), "v5.channel.k8s.io")) return text(400, "Upgrade request required");
  return new Response(null);
}
