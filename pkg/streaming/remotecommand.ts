// The remote command protocol kubectl speaks for exec and attach (upstream's channel.k8s.io): numbered
// channels (stdin 0, stdout 1, stderr 2, the error channel 3 with the command's Status, terminal resize 4;
// v5 adds 255 to close a channel), and the Status that carries the exit code.

export const Channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** WebSocket subprotocols, most preferred first; the agent always speaks v5. */
export const WEBSOCKET_EXEC_PROTOCOLS = ["v5.channel.k8s.io", "v4.channel.k8s.io"];
/** X-Stream-Protocol-Version values we accept over SPDY, most preferred first (v4: Status on the error stream). */
export const SPDY_EXEC_PROTOCOLS = ["v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"];

/** The first of ours that the client offered. */
export const pickProtocol = (offered: string[], ours: string[]) => ours.find((p) => offered.includes(p));

/** Comma-separated header values (several headers of one name arrive joined). */

export interface ExecStreams { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }

const flag = (q: URLSearchParams, name: string) => ["1", "true"].includes(q.get(name) ?? "");

/** Which streams a PodExecOptions/PodAttachOptions query asks for (stderr never with a tty, as upstream). */
export function execStreams(q: URLSearchParams): ExecStreams {
  const tty = flag(q, "tty");
  return { stdin: flag(q, "stdin"), stdout: flag(q, "stdout"), stderr: flag(q, "stderr") && !tty, tty };
}

export const SUCCESS = { metadata: {}, status: "Success" };

/** The error channel's Status for a command's end (upstream's v4 error stream). */
export function exitStatus(code: number, command: string[]): object {
  if (code === 0) return SUCCESS;
  return {
    metadata: {}, status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${command.join(" ")}], exit code ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  };
}

/** The error channel's Status for a command that could not run. */
export const internalStatus = (message: string) => ({
  metadata: {}, status: "Failure", message: `Internal error occurred: ${message}`, reason: "InternalError",
  details: { causes: [{ message }] }, code: 500,
});

/** A channel message: the channel number, then the bytes. */
export function channelMessage(channel: number, data: Uint8Array | string): Buffer {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  const m = Buffer.allocUnsafe(1 + bytes.length);
  m[0] = channel;
  m.set(bytes, 1);
  return m;
}
