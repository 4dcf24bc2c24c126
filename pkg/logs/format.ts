// One log line in klog's text format (`I1124 10:49:28.123456   12345 apiserver] msg`) or in
// component-base's JSON format (`{"ts":<epoch ms>,"caller":…,"msg":…,"v":0}`; error lines carry no "v").

export interface Entry {
  /** 0 INFO, 1 WARNING, 2 ERROR, 3 FATAL */
  severity: number;
  /** the verbosity an info line was logged at */
  v: number;
  /** where the line comes from: Kite's stand-in for klog's file:line */
  source: string;
  msg: string;
  time: Date;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** klog's header: severity letter, mmdd hh:mm:ss.uuuuuu, pid padded to 7, source and "] ". */
export function klogHeader(e: Entry, pid: number): string {
  const t = e.time;
  // Date has milliseconds; the monotonic clock supplies the microseconds
  const micros = pad(t.getMilliseconds(), 3) + pad(Math.floor((performance.now() % 1) * 1000), 3);
  return `${"IWEF"[e.severity]}${pad(t.getMonth() + 1)}${pad(t.getDate())} ${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}.${micros} ${String(pid).padStart(7)} ${e.source}] `;
}

export function textLine(e: Entry, pid: number, skipHeaders: boolean): string {
  const msg = e.msg.endsWith("\n") ? e.msg : `${e.msg}\n`;
  return skipHeaders ? msg : klogHeader(e, pid) + msg;
}

export function jsonLine(e: Entry): string {
  const line: Record<string, unknown> = { ts: e.time.getTime() + (performance.now() % 1), caller: e.source, msg: e.msg.replace(/\n$/, "") };
  if (e.severity < 2) line.v = e.v;
  return `${JSON.stringify(line)}\n`;
}
