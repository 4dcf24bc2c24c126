// Lifecycle hooks (postStart, preStop) as upstream v1.21's handler runner runs them: exec runs the
// command in the container (no timeout of its own: a preStop hook is bounded by the grace period, the
// container's end kills either); httpGet GETs http://host:port/path (host: the pod's IP; an empty port
// name: 80), and any answer is success. A failure is upstream's message, for the agent's log, its
// event (FailedPostStartHook, FailedPreStopHook) and a failed postStart's waiting state.
import type { Obj } from "./node.ts";
import { execIn } from "./probes/exec.ts";
import { type ContainerTarget, joinHostPort, resolvePort } from "./probes/handler.ts";
import { httpGet } from "./probes/http.ts";

/** A pod as upstream's format.Pod names it in messages. */
export const podDesc = (pod: Obj) => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

/** Go's %v of a []string. */
const goList = (a: string[]) => `[${a.join(" ")}]`;

async function execHook(h: Obj, t: ContainerTarget): Promise<string | undefined> {
  const argv: string[] = h.command ?? [];
  const r = await execIn(t.process, argv, 0, t.signal);
  let error: string, output = "";
  if ("exitCode" in r) {
    if (r.exitCode === 0) return undefined;
    output = r.stdout + r.stderr;
    error = `command '${argv.join(" ")}' exited with ${r.exitCode}: ${r.stderr}`;
  } else error = "error" in r ? r.error : "timed out";
  return `Exec lifecycle hook (${goList(argv)}) for Container ${JSON.stringify(t.container.name)} in Pod ${JSON.stringify(podDesc(t.pod))} failed - error: ${error}, message: ${JSON.stringify(output)}`;
}

async function httpHook(h: Obj, t: ContainerTarget): Promise<string | undefined> {
  const port = h.port === "" ? 80 : resolvePort(h.port, t.container);
  let error: string;
  if (typeof port !== "number") error = port.error;
  else {
    const path = String(h.path ?? "").replace(/^\//, "");
    const r = await httpGet(new URL(`http://${joinHostPort(h.host || t.podIP, port)}/${path}`), [], 0, t.signal);
    if (!("error" in r)) return undefined;
    error = r.error;
  }
  return `Http lifecycle hook (${h.path ?? ""}) for Container ${JSON.stringify(t.container.name)} in Pod ${JSON.stringify(podDesc(t.pod))} failed - error: ${error}, message: ""`;
}

/** Runs a postStart or preStop handler; resolves to upstream's failure message, or undefined on success. */
export function runHook(handler: Obj, t: ContainerTarget): Promise<string | undefined> {
  if (handler.exec) return execHook(handler.exec, t);
  if (handler.httpGet) return httpHook(handler.httpGet, t);
  return Promise.resolve(`Cannot run handler: invalid handler: ${JSON.stringify(handler)}`);
}
