// Container log lines in the CRI format the stamper writes (`<RFC3339Nano> <stream> <F|P> <content>`),
// and what `kubectl logs` options do to them, as upstream's kuberuntime log reader: --since drops older
// lines, --timestamps prefixes each line's time, --tail starts N lines from the end, --limit-bytes cuts.

export interface LogOptions {
  follow: boolean;
  /** Lines from the end to start at (tailLines); undefined: all. */
  tailLines?: number;
  /** Lines before this time (ms since the epoch) are left out (sinceTime, or now - sinceSeconds). */
  sinceMs?: number;
  timestamps: boolean;
  /** At most this many bytes are sent. */
  limitBytes?: number;
  /** Only the lines of this stream (stdout or stderr; attach follows each apart). */
  stream?: string;
}

export interface LogLine {
  time: string;
  stream: string;
  partial: boolean;
  /** The content; a full line's ends with its newline, a partial's does not. */
  content: string;
}

/** One line of a log file (without its newline), or undefined for a line that is not CRI format. */
export function parseCRILine(line: string): LogLine | undefined {
  const a = line.indexOf(" "), b = line.indexOf(" ", a + 1), c = line.indexOf(" ", b + 1);
  if (a < 0 || b < 0) return undefined;
  const tag = c < 0 ? line.slice(b + 1) : line.slice(b + 1, c);
  const partial = tag.split(":")[0] === "P";
  const content = c < 0 ? "" : line.slice(c + 1);
  return { time: line.slice(0, a), stream: line.slice(a + 1, b), partial, content: partial ? content : `${content}\n` };
}

/** The offset in `text` where its last `n` lines start (a trailing newline ends the last line). */
export function tailStart(text: string, n: number): number {
  if (n <= 0) return text.length;
  let i = text.endsWith("\n") ? text.length - 1 : text.length;
  for (let seen = 0; i > 0; ) {
    const nl = text.lastIndexOf("\n", i - 1);
    if (++seen === n || nl < 0) return nl + 1;
    i = nl;
  }
  return 0;
}

/** What one log line becomes for the reader: its content (after its time with --timestamps), or "" when --since leaves it out. */
export function formatLine(l: LogLine, o: LogOptions): string {
  if (o.sinceMs !== undefined && Date.parse(l.time) < o.sinceMs) return "";
  if (o.stream && l.stream !== o.stream) return "";
  return o.timestamps ? `${l.time} ${l.content}` : l.content;
}

/** Cuts output at --limit-bytes: what may still be sent of `chunk`, given `sent` bytes so far. */
export function limit(chunk: Uint8Array, sent: number, o: LogOptions): Uint8Array {
  if (o.limitBytes === undefined) return chunk;
  const room = Math.max(0, o.limitBytes - sent);
  return chunk.length > room ? chunk.subarray(0, room) : chunk;
}
