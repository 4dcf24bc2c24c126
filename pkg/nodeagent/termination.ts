// A container's termination message, as upstream's kubelet reads it: the last 4 KiB of the file the
// container wrote at terminationMessagePath; with FallbackToLogsOnError and a failed run that wrote
// nothing there, the last 80 lines (at most 2 KiB) of its log instead.
//
// The process runtime has no container filesystem of its own: each run gets an empty file in the
// container's folder of --root-dir (next to its log), and its path in the environment variable
// KITE_TERMINATION_MESSAGE_PATH. (Where the runtime gives a container its own mount namespace, that file
// is what belongs at terminationMessagePath.)
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const TERMINATION_MESSAGE_ENV = "KITE_TERMINATION_MESSAGE_PATH";

/** upstream's MaxContainerTerminationMessageLength, MaxContainerTerminationMessageLogLength and …LogLines. */
const MAX_MESSAGE = 4096, MAX_LOG_BYTES = 2048, MAX_LOG_LINES = 80;

/** Where the termination-message file of one run of a container is: next to its log. */
export const terminationFile = (logPath: string, restartCount: number) => join(dirname(logPath), `${restartCount}.termination-log`);

/** The termination-message file of one run of a container, created empty. */
export function createTerminationFile(logPath: string, restartCount: number): string {
  const path = terminationFile(logPath, restartCount);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "");
  return path;
}

/** The last `max` bytes of a file ("" when there is none). */
function tail(path: string, max: number): Buffer {
  let fd: number;
  try { fd = openSync(path, "r"); } catch { return Buffer.alloc(0); }
  try {
    const size = fstatSync(fd).size, n = Math.min(size, max);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** The last 80 lines of a log, of which at most the last 2 KiB. */
export function logTail(logPath: string): string {
  const text = tail(logPath, MAX_LOG_BYTES).toString();
  const lines = text.split("\n");
  // a final newline ends the last line rather than starting another
  const keep = MAX_LOG_LINES + (text.endsWith("\n") ? 1 : 0);
  return lines.length > keep ? lines.slice(-keep).join("\n") : text;
}

export function terminationMessage(file: string, logPath: string, fallbackToLogs: boolean): string {
  const written = tail(file, MAX_MESSAGE).toString();
  if (written || !fallbackToLogs) return written;
  return logTail(logPath);
}
