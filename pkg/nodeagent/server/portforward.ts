// GET /portForward/{podNamespace}/{podID}?port=P[&port=Q], upgraded to a WebSocket speaking the kubelet's
// port-forward channel protocol (../../streaming/portforward.ts): each port one connection to that port
// inside the pod's network namespace — straight from here for a pod on the host's network, else through
// a small python3 relay started in the pod's namespace by nsenter — its bytes on the port's data channel,
// a failure to connect (in upstream's words) on its error channel. The WebSocket closes once every
// connection has ended; the client going away ends them all. A connection is not read while the
// WebSocket's queue is past the flow control bound, nor the WebSocket while a connection's writes are.
import type { Socket } from "bun";
import { channelMessage } from "../../streaming/remotecommand.ts";
import { CLOSE_CHANNEL, parsePorts, portPrefix } from "../../streaming/portforward.ts";
import { type PipeSocket, SocketPipe } from "../../util/socketpipe.ts";
import { type SocketHandlers, type Ws, closeSocket, upgrade, wsSink } from "../../serving/websocket.ts";
import { Holds, backlog, pipeWrite } from "../../streaming/flow.ts";
import type { AgentPods } from "./handlers.ts";
import { text } from "./auth.ts";

/** Connects to localhost:PORT (IPv4, then IPv6, as containerd does); says why not on stderr, exit code 1. */
const RELAY = `
import os, socket, sys, threading
port, errs, s = int(sys.argv[1]), [], None
for fam, host, name in ((socket.AF_INET, "127.0.0.1", "tcp4 127.0.0.1"), (socket.AF_INET6, "::1", "tcp6 [::1]")):
    try:
        s = socket.socket(fam)
        s.connect((host, port))
        break
    except OSError as e:
        s.close(); s = None
        why = e.strerror or str(e)
        errs.append("dial %s:%d: connect: %s" % (name, port, why[:1].lower() + why[1:]))
if s is None:
    sys.stderr.write("\\n".join(errs)); sys.exit(1)
def up():
    while True:
        b = os.read(0, 65536)
        if not b: break
        s.sendall(b)
    try: s.shutdown(socket.SHUT_WR)
    except OSError: pass
threading.Thread(target=up, daemon=True).start()
out = sys.stdout.buffer
while True:
    b = s.recv(65536)
    if not b: break
    out.write(b); out.flush()
`;

/** The host's python3 for the relay (a pod's own is not on the host's PATH; a shim would be slow to start). */
const python = () => Bun.which("python3", { PATH: "/usr/local/bin:/usr/bin:/bin" }) ?? Bun.which("python3");

/** One forwarded connection, whichever way it goes. */
interface Forward {
  /** Past the connection's bound, a promise of its drain. */
  write(data: Uint8Array): Promise<void> | undefined;
  /** The client sends no more. */
  endInput(): void;
  close(): void;
}

interface ForwardEvents {
  /** A promise of the client side's drain when it is full: the connection is not read until then. */
  data(chunk: Uint8Array): Promise<void> | undefined;
  /** The connection is over; `error` says why it never was, as upstream words it. */
  end(error?: string): void;
}

const refused = (port: number, ipv4: string, ipv6: string, ns: string) =>
  `failed to connect to localhost:${port} inside namespace "${ns}", IPv4: ${ipv4} IPv6 ${ipv6} `;

/** Straight to localhost:port on the host's network (Bun's own sockets: node:net's stream layers cost per chunk). */
function direct(port: number, ns: string, on: ForwardEvents): Forward {
  const errs: string[] = [];
  let sock: Socket | undefined, closed = false;
  // the connection as the pipe writes it: its end a half-close (a socket's end() would close it whole,
  // and the pod's answer to what the client sent before its end would be lost)
  let halfClosing: PipeSocket | undefined;
  // what the client sends before the connection is up, or faster than it takes, waits here
  const out = new SocketPipe(() => undefined, () => halfClosing);
  const attempt = (host: string, name: string) => {
    Bun.connect({
      hostname: host, port,
      socket: {
        open(s) {
          if (closed) return void s.terminate();
          s.setNoDelay(true);
          sock = s;
          // reading is paced by the client's side alone (`data` below), not by this pipe
          halfClosing = { write: (b) => s.write(b), end: () => void s.shutdown(), pause() {}, resume() {} };
          out.flush();
        },
        data(s, d) {
          const full = on.data(d);
          if (full) {
            s.pause();
            void full.then(() => s.resume());
          }
        },
        drain() { out.flush(); },
        close(s) {
          if (sock !== s) return;
          out.closed();
          on.end();
        },
      },
    }).catch((e: NodeJS.ErrnoException) => {
      errs.push(`dial ${name}:${port}: connect: ${e.code === "ECONNREFUSED" ? "connection refused" : e.message}`);
      if (errs.length === 1 && !closed) attempt("::1", "tcp6 [::1]");
      else on.end(refused(port, errs[0], errs[1], ns));
    });
  };
  attempt("127.0.0.1", "tcp4 127.0.0.1");
  return {
    write: (d) => {
      out.send(d);
      return backlog(out);
    },
    endInput: () => out.end(),
    close: () => { closed = true; sock?.terminate(); },
  };
}

/** Through the relay in the pod's network namespace. */
function relayed(nsenter: string, netns: string, port: number, ns: string, on: ForwardEvents): Forward {
  const py = python();
  if (!py) {
    queueMicrotask(() => on.end(`unable to do port forwarding: python3 not found`));
    return { write: () => undefined, endInput() {}, close() {} };
  }
  const proc = Bun.spawn([nsenter, `--net=${netns}`, py, "-c", RELAY, String(port)], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  void (async () => {
    for await (const chunk of proc.stdout) {
      const full = on.data(chunk);
      if (full) await full;
    }
    const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    const [v4, v6] = err.split("\n");
    on.end(code === 1 && v6 ? refused(port, v4, v6, ns) : undefined);
  })();
  const safely = <T>(f: () => T) => { try { return f(); } catch { return undefined; /* the relay is gone */ } };
  return {
    write: (d) => safely(() => pipeWrite(proc.stdin, d)),
    endInput: () => safely(() => proc.stdin.end()),
    close: () => safely(() => proc.kill(9)),
  };
}

/** One WebSocket's forwarded ports. */
class PortForwardSession implements SocketHandlers {
  private readonly forwards: (Forward | undefined)[] = [];
  private open_ = 0;
  private done = false;
  private fromClient?: Holds;

  constructor(private readonly ports: number[], private readonly dial: (port: number, on: ForwardEvents) => Forward, private readonly label: string) {}

  open(ws: Ws) {
    this.open_ = this.ports.length;
    this.fromClient = new Holds(ws);
    const out = wsSink(ws);
    this.ports.forEach((port, i) => {
      ws.send(channelMessage(2 * i, portPrefix(port)));
      ws.send(channelMessage(2 * i + 1, portPrefix(port)));
      let ended = false;
      this.forwards[i] = this.dial(port, {
        data: (chunk) => {
          if (this.done) return;
          ws.send(channelMessage(2 * i, chunk));
          return backlog(out);
        },
        end: (error) => {
          if (ended || this.done) return;
          ended = true;
          if (error) ws.send(channelMessage(2 * i + 1, `error forwarding port ${port} to pod ${this.label}, uid : ${error}`));
          if (--this.open_ === 0) this.close(ws);
        },
      });
    });
  }

  message(_ws: Ws, data: Buffer) {
    if (data[0] === CLOSE_CHANNEL) return this.forwards[data[1] / 2]?.endInput();
    if (data[0] % 2 !== 0 || data.length < 2) return;
    const full = this.forwards[data[0] / 2]?.write(data.subarray(1));
    if (full) this.fromClient?.hold(full);
  }

  close(ws?: Ws) {
    if (this.done) return;
    this.done = true;
    for (const f of this.forwards) f?.close();
    if (ws) closeSocket(ws);
  }
}

/** The port-forward request: its pod found and the WebSocket upgraded, or the kubelet's refusal. */
export function portForwardRequest(view: AgentPods, path: string, q: URLSearchParams, req: Request, server: { upgrade(req: Request, o: object): boolean }): Response {
  const [ns, pod] = path.split("/").slice(2).map((s) => decodeURIComponent(s));
  if (!ns || !pod) return text(400, "missing podNamespace or podID");
  const ports = parsePorts(q, "port");
  if ("error" in ports) return text(400, ports.error);
  if (!ports.length) return text(400, `query parameter "port" is required`);
  const w = [...view.workers()].find((x) => x.pod.metadata.namespace === ns && x.pod.metadata.name === pod);
  if (!w) return text(404, "pod does not exist");
  const netns = w.netns, nsenter = netns && Bun.which("nsenter");
  const dial = (port: number, on: ForwardEvents) => (netns && nsenter ? relayed(nsenter, netns, port, w.uid, on) : direct(port, w.uid, on));
  if (!upgrade(server, req, new PortForwardSession(ports, dial, w.uid), "v4.channel.k8s.io")) return text(400, "Upgrade request required");
  return new Response(null);
}
