// GET /attach/{podNamespace}/{podID}/{containerName}?input=1&output=1&error=1&tty=1, upgraded to a
// WebSocket speaking v5.channel.k8s.io: the running container's output from now on (followed in its log
// file, which the stamper keeps writing: the log misses nothing), stdin typed into its FIFO
// (../runtime/stdin.ts), and a Success Status on the error channel once the run ends. A container with
// `tty: true` runs on a terminal (../runtime/pty.ts): one stream, what is typed and each resize go to
// the terminal as its frames.
// The log is not read while the WebSocket's queue is past the flow control bound, nor the WebSocket while
// the FIFO's writes are.
import { containerLogStream } from "../logs/reader.ts";
import { ptyInput, ptyResize } from "../runtime/pty.ts";
import type { AttachTarget } from "../container.ts";
import { Channel, SUCCESS, channelMessage } from "../../streaming/remotecommand.ts";
import { type SocketHandlers, type Ws, closeSocket, upgrade, wsSink } from "../../serving/websocket.ts";
import { Holds, backlog } from "../../streaming/flow.ts";
import type { AgentPods } from "./handlers.ts";
import { text } from "./auth.ts";

const on = (q: URLSearchParams, name: string) => ["1", "true"].includes(q.get(name) ?? "");

class AttachSession implements SocketHandlers {
  private readonly readers: ReadableStream<Uint8Array>[] = [];
  private done = false;
  private stdinDone = false;
  private fromClient?: Holds;

  constructor(private readonly target: AttachTarget, private readonly io: { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }) {}

  open(ws: Ws) {
    const follow = (stream: string, channel: number) => {
      // from the end of what is written now
      const r = containerLogStream(this.target.logPath, { follow: true, timestamps: false, tailLines: 0, stream }, this.target.running);
      this.readers.push(r);
      return (async () => {
        for await (const chunk of r) {
          if (this.done) continue;
          ws.send(channelMessage(channel, chunk));
          const full = backlog(out);
          if (full) await full;
        }
      })();
    };
    const out = wsSink(ws);
    this.fromClient = new Holds(ws);
    const pumps: Promise<void>[] = [];
    try {
      if (this.io.stdout || this.io.tty) pumps.push(follow("stdout", Channel.stdout));
      if (this.io.stderr || this.io.tty) pumps.push(follow("stderr", this.io.tty ? Channel.stdout : Channel.stderr));
    } catch (e) {
      return this.finish(ws, { metadata: {}, status: "Failure", message: (e as Error).message, reason: "InternalError", code: 500 });
    }
    // without output wanted, the session lasts as long as the run
    if (!pumps.length) pumps.push((async () => { while (this.target.running() && !this.done) await Bun.sleep(500); })());
    void Promise.all(pumps).catch(() => {}).then(() => this.finish(ws, SUCCESS));
  }

  message(_ws: Ws, data: Buffer) {
    const stdin = this.target.stdin, tty = this.target.tty;
    if (!this.io.stdin || !stdin || !data.length) return;
    let full: Promise<void> | undefined;
    if (data[0] === Channel.stdin && data.length > 1) full = stdin.write(tty ? ptyInput(data.subarray(1)) : data.subarray(1));
    else if (data[0] === Channel.resize && tty) {
      try {
        const size = JSON.parse(data.subarray(1).toString());
        full = stdin.write(ptyResize(Number(size.Width) || 0, Number(size.Height) || 0));
      } catch { /* not a size */ }
    }
    if (full) this.fromClient?.hold(full);
    if (data[0] === Channel.close && data[1] === Channel.stdin) this.endStdin();
  }

  private endStdin() {
    if (this.stdinDone || !this.io.stdin) return;
    this.stdinDone = true;
    this.target.stdin?.detached();
  }

  close() {
    this.done = true;
    this.endStdin();
    for (const r of this.readers) void r.cancel().catch(() => {});
  }

  private finish(ws: Ws, status: object) {
    if (this.done) return;
    this.done = true;
    this.endStdin();
    ws.send(channelMessage(Channel.error, JSON.stringify(status)));
    closeSocket(ws);
  }
}

/** The attach request: its running container found and the WebSocket upgraded, or the kubelet's refusal. */
export function attachRequest(view: AgentPods, path: string, q: URLSearchParams, req: Request, server: { upgrade(req: Request, o: object): boolean }): Response {
  const [ns, pod, container] = path.split("/").slice(2).map((s) => decodeURIComponent(s));
  if (!ns || !pod || !container) return text(400, "missing podNamespace, podID or container name");
  const w = [...view.workers()].find((x) => x.pod.metadata.namespace === ns && x.pod.metadata.name === pod);
  if (!w) return text(404, "pod does not exist");
  const runner = [...w.containers, ...w.initContainers].find((c) => c.name === container);
  if (!runner) return text(500, `container not found ("${container}")`);
  const target = runner.attachTarget;
  if (!target) return text(500, `container ${container} is not running`);
  const io = { stdin: on(q, "input"), stdout: on(q, "output"), stderr: on(q, "error"), tty: on(q, "tty") };
  if (!upgrade(server, req, new AttachSession(target, io), "v5.channel.k8s.io")) return text(400, "Upgrade request required");
  return new Response(null);
}
