// A real browser for the console's tests: Debian's chromium driven by playwright-core (which downloads no
// browser of its own), headless; as root, Chromium's sandbox cannot start.
import { type Server, type Socket, connect, createServer } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { KITE } from "./server.ts";
import { tempDir, track } from "./processes.ts";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
}

/** Where the tests' screenshots go: $KITE_SCREENSHOTS (kept), else a temp dir of the run. */
export function screenshotDir(): string {
  return process.env.KITE_SCREENSHOTS || tempDir("kite-console-shots-");
}

/** Reads a process's stdout until `marker`; the text so far. */
export async function readUntil(p: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array>; exited: Promise<number> }, marker: string): Promise<string> {
  const reader = p.stdout.getReader();
  let out = "";
  while (!out.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited before "${marker}": ${out}\n${await new Response(p.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return out;
}

/** `kite console` on a free port for a kubeconfig; its printed address (with the token). */
export async function startConsoleProcess(kubeconfig: string, extra: string[] = []): Promise<{ url: string; stop: () => Promise<number> }> {
  const p = Bun.spawn([...KITE, "console", `--kubeconfig=${kubeconfig}`, "--port=0", ...extra], { stdout: "pipe", stderr: "pipe" });
  track(p);
  const out = await readUntil(p, "Ctrl-C");
  return { url: /http:\/\/\S+/.exec(out)![0], stop: () => (p.kill("SIGINT"), p.exited) };
}

/**
 * A TCP relay on loopback to `target` (a real server): cut() drops every connection and stops listening,
 * as a lost network would; resume() listens on the same port again.
 */
export async function tcpRelay(target: number): Promise<{ port: number; cut: () => void; resume: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server;
  const listen = (port: number) => new Promise<number>((resolve) => {
    server = createServer((client) => {
      const up = connect(target, "127.0.0.1");
      for (const s of [client, up]) {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
        s.on("error", () => { client.destroy(); up.destroy(); });
      }
      client.pipe(up).pipe(client);
    }).listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
  const port = await listen(0);
  return {
    port,
    cut: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
    resume: () => listen(port).then(() => undefined),
  };
}
