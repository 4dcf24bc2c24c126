// One HTTP/1.1 request written by hand over TLS, for headers fetch will not send (Connection: Upgrade).
import { connect } from "node:tls";
import type { TestServer } from "./server.ts";

/** Sends `GET path` with these headers; resolves to the status code and the body's text. */
export function rawGet(s: TestServer, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: "127.0.0.1", port: s.port, ca: s.ca, servername: "localhost" }, () => {
      const lines = [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${s.port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "", ""];
      sock.write(lines.join("\r\n"));
    });
    let text = "";
    const done = () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!m) return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status: Number(m[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    };
    sock.setEncoding("utf8");
    sock.on("data", (d) => {
      text += d;
      // A Status body is one JSON object: the response is complete once it parses.
      const body = text.slice(text.indexOf("\r\n\r\n") + 4);
      if (text.includes("\r\n\r\n") && /\}\s*$/.test(body)) {
        sock.destroy();
        done();
      }
    });
    sock.on("error", reject);
    sock.on("end", done);
  });
}
