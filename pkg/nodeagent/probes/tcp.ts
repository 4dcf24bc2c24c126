// A TCP connect as upstream's TCP prober makes it: success once connected (then closed at once), else
// Go's words for the failure.
import { connect } from "node:net";

export function tcpConnect(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const addr = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    const socket = connect({ host, port });
    const done = (error?: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(error);
    };
    const timer = setTimeout(() => done(`dial tcp ${addr}: i/o timeout`), timeoutMs);
    socket.once("connect", () => done());
    socket.once("error", (e: NodeJS.ErrnoException) => {
      done(e.code === "ECONNREFUSED" ? `dial tcp ${addr}: connect: connection refused` : `dial tcp ${addr}: ${e.message}`);
    });
  });
}
