// The few libc calls the agent makes itself rather than through a process: a process costs the event loop
// a blocking spawn (milliseconds on a busy machine) per call, a system call microseconds.
import { dlopen, FFIType, read } from "bun:ffi";

const libc = dlopen("libc.so.6", {
  mkfifo: { args: [FFIType.cstring, FFIType.u32], returns: FFIType.i32 },
  mount: { args: [FFIType.cstring, FFIType.cstring, FFIType.cstring, FFIType.u64, FFIType.cstring], returns: FFIType.i32 },
  umount2: { args: [FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
  __errno_location: { args: [], returns: FFIType.ptr },
  strerror: { args: [FFIType.i32], returns: FFIType.cstring },
});

const c = (s: string) => Buffer.from(`${s}\0`);

/** The failed call's errno in words ("No such file or directory"). */
function lastError(): string {
  const errno = read.i32(libc.symbols.__errno_location()!, 0);
  return String(libc.symbols.strerror(errno));
}

export function mkfifo(path: string): void {
  if (libc.symbols.mkfifo(c(path), 0o600) !== 0) throw new Error(`mkfifo ${path}: ${lastError()}`);
}

/** mount(2) with a filesystem type and its data (no flags): throws the errno's words. */
export function mount(source: string, target: string, fstype: string, data: string): void {
  if (libc.symbols.mount(c(source), c(target), c(fstype), 0, c(data)) !== 0) throw new Error(lastError());
}

/** umount2(2) without flags: throws the errno's words. */
export function umount(target: string): void {
  if (libc.symbols.umount2(c(target), 0) !== 0) throw new Error(lastError());
}
