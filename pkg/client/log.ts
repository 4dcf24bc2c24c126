// Where the client framework reports what it cannot throw (a failed event write, a watch that ended with
// an error): one line per message, on stderr unless a component routes it elsewhere.
export type Logger = (message: string) => void;

let sink: Logger = (message) => console.warn(message);

export function log(message: string): void { sink(message); }

/** Routes the framework's messages (a component's own log format, or a test that collects them). */
export function setLogger(logger: Logger): void { sink = logger; }
