// One probe of a container, as upstream's prober runs it: exec (the command's exit code), httpGet (a
// status in 200–399; a redirect it stopped at is a warning, which counts as success) or tcpSocket (a
// connection). Host defaults to the pod's IP, a port may be a number or a container port's name.
// A probe that cannot run at all (no such port, no such executable) is an error: its result is
// thrown away, as upstream's worker does.
import type { RecordEvent } from "../events.ts";
import type { Obj } from "../node.ts";
import { expand } from "../runtime/config.ts";
import { execIn, type ExecTarget } from "./exec.ts";
import { httpGet } from "./http.ts";
import { tcpConnect } from "./tcp.ts";

/** What a probe or hook runs against: a container's process settings, its spec, its pod's IP. */
export interface ContainerTarget {
  pod: Obj;
  container: Obj;
  process: ExecTarget;
  podIP: string;
  /** Aborted when the container's run ends: what a probe or hook started then goes too. */
  signal: AbortSignal;
  /** Records an event about the container (probe failures). */
  record?: RecordEvent;
}

export type ProbeOutcome = { result: "success" | "warning" | "failure"; output: string } | { error: string };

/** A port given by number or by a container port's name (or a number written as a string). */
export function resolvePort(port: number | string | undefined, container: Obj): number | { error: string } {
  let n = -1;
  if (typeof port === "number") n = port;
  else if (typeof port === "string") {
    const named = (container.ports ?? []).find((p: Obj) => p.name === port);
    if (named) n = named.containerPort;
    else if (/^-?\d+$/.test(port)) n = Number(port);
    else return { error: `port ${port} not found` };
  }
  return n > 0 && n < 65536 ? n : { error: `invalid port number: ${n}` };
}

/** host:port as Go's net.JoinHostPort writes it. */
export const joinHostPort = (host: string, port: number) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);

/** upstream's formatURL: the path (with its query) on scheme://host:port. */
export function probeURL(scheme: string, host: string, port: number, path = ""): URL {
  return new URL(`${scheme}://${joinHostPort(host, port)}${path.startsWith("/") ? "" : "/"}${path}`);
}

async function execProbe(p: Obj, t: ContainerTarget, timeoutMs: number): Promise<ProbeOutcome> {
  // upstream expands $(VAR) in a probe's command from the container's env as written (valueFrom ones are empty)
  const vars = new Map<string, string>((t.container.env ?? []).map((e: Obj) => [e.name, e.value ?? ""]));
  const argv = (p.command ?? []).map((s: string) => expand(s, vars));
  const r = await execIn(t.process, argv, timeoutMs, t.signal);
  if ("timedOut" in r) return { result: "failure", output: `command ${JSON.stringify(argv.join(" "))} timed out` };
  if ("error" in r) return r;
  return { result: r.exitCode === 0 ? "success" : "failure", output: r.stdout + r.stderr };
}

async function httpProbe(p: Obj, t: ContainerTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const port = resolvePort(p.port, t.container);
  if (typeof port !== "number") return port;
  let url: URL;
  try {
    url = probeURL((p.scheme || "HTTP").toLowerCase(), p.host || t.podIP, port, p.path);
  } catch (e) {
    return { result: "failure", output: (e as Error).message };
  }
  const headers: [string, string][] = (p.httpHeaders ?? []).map((h: Obj) => [h.name, h.value]);
  const r = await httpGet(url, headers, timeoutMs, t.signal);
  if ("error" in r) return { result: "failure", output: r.error };
  if (r.status >= 200 && r.status < 300) return { result: "success", output: r.body };
  if (r.status >= 300 && r.status < 400) return { result: "warning", output: `Probe terminated redirects, Response body: ${r.body}` };
  return { result: "failure", output: `HTTP probe failed with statuscode: ${r.status}` };
}

async function tcpProbe(p: Obj, t: ContainerTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const port = resolvePort(p.port, t.container);
  if (typeof port !== "number") return port;
  const error = await tcpConnect(p.host || t.podIP, port, timeoutMs);
  return error ? { result: "failure", output: error } : { result: "success", output: "" };
}

/** Runs the probe once, within timeoutMs. */
export function runProbe(probe: Obj, t: ContainerTarget, timeoutMs: number): Promise<ProbeOutcome> {
  if (probe.exec) return execProbe(probe.exec, t, timeoutMs);
  if (probe.httpGet) return httpProbe(probe.httpGet, t, timeoutMs);
  if (probe.tcpSocket) return tcpProbe(probe.tcpSocket, t, timeoutMs);
  return Promise.resolve({ error: "missing probe handler" });
}
