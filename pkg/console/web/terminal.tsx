// A terminal into a pod's container: exec through the API (stdin, stdout and a TTY) over a WebSocket of
// subprotocol v4.channel.k8s.io — each message a channel byte then data: 0 stdin, 1 stdout, 2 stderr,
// 3 the final Status, 4 terminal size — drawn by xterm.js, which is loaded only when a terminal opens.
import { useEffect, useRef, useState } from "preact/hooks";
import "@xterm/xterm/css/xterm.css";
import { type Res, objectPath, query } from "./api.ts";

const enc = new TextEncoder();

export function Terminal({ res, pod }: { res: Res; pod: any }) {
  const containers: string[] = (pod.spec?.containers ?? []).map((c: any) => c.name);
  const [container, setContainer] = useState(containers[0]);
  const [command, setCommand] = useState("sh");
  const [session, setSession] = useState(0);
  const [state, setState] = useState("connecting");
  const box = useRef<HTMLDivElement>(null);
  const commandBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    let disposed = false;
    const cleanup: (() => void)[] = [];
    (async () => {
      const [{ Terminal: XTerm }, { FitAddon }] = await Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]);
      if (disposed) return;
      const term = new XTerm({ fontSize: 13, cursorBlink: true, convertEol: false });
      const fit = new FitAddon();
      term.loadAddon(fit);
      term.open(box.current!);
      fit.fit();
      cleanup.push(() => term.dispose());
      const argv = command.trim().split(/\s+/).filter(Boolean);
      const path = `${objectPath(res, pod.metadata.namespace, pod.metadata.name)}/exec${query({ container, stdin: true, stdout: true, tty: true })}${argv.map((c) => `&command=${encodeURIComponent(c)}`).join("")}`;
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`, ["v4.channel.k8s.io"]);
      ws.binaryType = "arraybuffer";
      cleanup.push(() => ws.close());
      const send = (channel: number, data: Uint8Array) => {
        if (ws.readyState !== WebSocket.OPEN) return;
        const frame = new Uint8Array(data.length + 1);
        frame[0] = channel;
        frame.set(data, 1);
        ws.send(frame);
      };
      const resize = () => send(4, enc.encode(JSON.stringify({ Width: term.cols, Height: term.rows })));
      ws.onopen = () => {
        setState("open");
        resize();
        term.focus();
      };
      ws.onmessage = (e) => {
        const b = new Uint8Array(e.data as ArrayBuffer);
        if (b[0] === 1 || b[0] === 2) term.write(b.subarray(1));
        else if (b[0] === 3) {
          const status = JSON.parse(new TextDecoder().decode(b.subarray(1)));
          if (status.status !== "Success") term.write(`\r\n\x1b[31m${status.message}\x1b[0m\r\n`);
        }
      };
      ws.onclose = (e) => {
        setState("closed");
        if (e.reason) term.write(`\r\n\x1b[31m${e.reason}\x1b[0m\r\n`);
      };
      term.onData((d) => send(0, enc.encode(d)));
      term.onResize(resize);
      const ro = new ResizeObserver(() => fit.fit());
      ro.observe(box.current!);
      cleanup.push(() => ro.disconnect());
    })();
    setState("connecting");
    return () => {
      disposed = true;
      for (const f of cleanup) f();
    };
  }, [pod.metadata.uid, container, command, session]);
  return (
    <div class="terminal-tab">
      <div class="toolbar">
        <label>Container <select value={container} onChange={(e) => setContainer((e.target as HTMLSelectElement).value)}>{containers.map((c) => <option key={c}>{c}</option>)}</select></label>
        <form onSubmit={(e) => { e.preventDefault(); setCommand(commandBox.current!.value); setSession((n) => n + 1); }}>
          <label>Command <input ref={commandBox} class="command" defaultValue={command} /></label> <button type="submit">Run</button>
        </form>
        <span class="muted" data-state={state}>{state === "open" ? "connected" : state === "closed" ? "session ended" : "connecting…"}</span>
      </div>
      <div class="terminal" ref={box} />
    </div>
  );
}
