// Start-up failures every server shares (the API server, the scheduler): one line, never a stack, with the
// exit status the cause calls for (2: the port is held by another process; 1: anything else).

export class StartupError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2 = 1) {
    super(message);
  }
}

/** A system error (`EACCES: permission denied, open '/x'`) as `open /x: permission denied`; else the first line. */
export function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const sys = /^[A-Z]+: (.*?), (\w+) '(.*)'$/.exec(err?.message ?? "");
  if (sys) return `${sys[2]} ${sys[3]}: ${sys[1]}`;
  return String(err?.message ?? e).split("\n")[0].trim();
}

/** Runs Bun.serve; a failure to listen becomes one line naming the port or address. */
export function listening<T>(host: string, port: number, serve: () => T): T {
  try {
    return serve();
  } catch (e) {
    throw listenError(e, host, port);
  }
}

function listenError(e: unknown, host: string, port: number): StartupError {
  switch ((e as NodeJS.ErrnoException).code) {
    case "EADDRINUSE": return new StartupError(`port ${port} is in use`, 2);
    case "EADDRNOTAVAIL": return new StartupError(`cannot listen on ${host}:${port}: no such address on this machine (--bind-address)`);
    case "EACCES": return new StartupError(`cannot listen on ${host}:${port}: permission denied`);
    default: return new StartupError(`cannot listen on ${host}:${port}: ${reason(e)}`);
  }
}
