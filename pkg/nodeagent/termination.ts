// A container's termination message, as upstream's kubelet reads it: the last 4 KiB of the file the
// container wrote at terminationMessagePath; with FallbackToLogsOnError and a failed run that wrote
// nothing there, the last 80 lines (at most 2 KiB) of its log instead.
//
// The process runtime has no container filesystem of its own: each run gets an empty file in the
// container's folder of --root-dir (next to its log), and its path in the environment variable
// KITE_TERMINATION_MESSAGE_PATH. (Where the runtime gives a container its own mount namespace, that file
// is what belongs at terminationMessagePath.)
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseCRILine, tailStart } from "./logs/crilog.ts";

export const TERMINATION_MESSAGE_ENV = "KITE_TERMINATION_MESSAGE_PATH";

/** upstream's MaxContainerTerminationMessageLength, MaxContainerTerminationMessageLogLength and …LogLines. */
const MAX_MESSAGE = 4096, MAX_LOG_BYTES = 2048, MAX_LOG_LINES = 80;
/** How much of a log's end is read for its last lines: more than their last 2 KiB of content needs. */
const LOG_READ_BYTES = 256 * 1024;

/** Where the termination-message file of one run of a container is: next to its log. */
export const terminationFile = (logPath: string, restartCount: number) => join(dirname(logPath), `${restartCount}.termination-log`);

/** The termination-message file of one run of a container, created empty. */
export async function createTerminationFile(logPath: string, restartCount: number): Promise<string> {
  const path = terminationFile(logPath, restartCount);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, "");
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

/** What the last 80 lines of a CRI-format log say, of which at most the last 2 KiB. */
export function logTail(logPath: string): string {
  const text = tail(logPath, LOG_READ_BYTES).toString();
  const content = text.slice(tailStart(text, MAX_LOG_LINES)).split("\n").filter(Boolean).map((l) => parseCRILine(l)?.content ?? "").join("");
  const bytes = Buffer.from(content);
  return bytes.length > MAX_LOG_BYTES ? bytes.subarray(bytes.length - MAX_LOG_BYTES).toString() : content;
}

export function terminationMessage(file: string, logPath: string, fallbackToLogs: boolean): string {
  const written = tail(file, MAX_MESSAGE).toString();
  if (written || !fallbackToLogs) return written;
  return logTail(logPath);
}
