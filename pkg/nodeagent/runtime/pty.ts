// A terminal for `exec -t`: Bun has no pty API, so a small python3 helper (its pty module) forks the
// command on a new pty and relays it. Its stdin carries framed messages — a type byte (0 input,
// 1 resize), a 4-byte length, the payload (resize: width and height, 2 bytes each) — its stdout is the
// terminal's output, and its exit code the command's (128 + signal for a signal).
const HELPER = `
import os, pty, sys, struct, fcntl, termios, select
pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as e:
        sys.stderr.write("exec: %s\\n" % e)
        os._exit(127)
buf, inp = b"", 0
while True:
    r = select.select([fd] + ([inp] if inp is not None else []), [], [])[0]
    if fd in r:
        try:
            d = os.read(fd, 65536)
        except OSError:
            d = b""
        if not d:
            break
        os.write(1, d)
    if inp is not None and inp in r:
        d = os.read(inp, 65536)
        if not d:
            inp = None
            continue
        buf += d
        while len(buf) >= 5:
            n = struct.unpack(">I", buf[1:5])[0]
            if len(buf) < 5 + n:
                break
            kind, p, buf = buf[0], buf[5:5 + n], buf[5 + n:]
            if kind == 0:
                os.write(fd, p)
            elif len(p) == 4:
                w, h = struct.unpack(">HH", p)
                fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", h, w, 0, 0))
st = os.waitpid(pid, 0)[1]
sys.exit(os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))
`;

/** The argv that runs `argv` on a new terminal. */
export const ptyCommand = (argv: string[]): string[] => ["python3", "-c", HELPER, ...argv];

const frame = (kind: number, payload: Uint8Array) => {
  const head = Buffer.alloc(5);
  head[0] = kind;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
};

/** What the helper's stdin takes: input for the terminal. */
export const ptyInput = (data: Uint8Array) => frame(0, data);

/** What the helper's stdin takes: a new terminal size. */
export function ptyResize(width: number, height: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt16BE(Math.max(0, Math.min(width, 0xffff)), 0);
  p.writeUInt16BE(Math.max(0, Math.min(height, 0xffff)), 2);
  return frame(1, p);
}
