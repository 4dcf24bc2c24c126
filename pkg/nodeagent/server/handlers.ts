// What the agent's ports serve, as the kubelet's server does: /pods (a PodList of the pods it runs) and
// /containerLogs/{namespace}/{pod}/{container} with PodLogOptions in the query, in its words and codes.
import { QueryError, parsePodLogOptions, validatePodLogOptions } from "../../api/podlogoptions.ts";
import type { LogOptions } from "../logs/crilog.ts";
import { containerLogStream } from "../logs/reader.ts";
import type { Obj } from "../node.ts";
import type { PodWorker } from "../podworker.ts";
import { logPath } from "../runtime/config.ts";
import { SubmissionError } from "../submitted.ts";
import { text } from "./auth.ts";

/** What the servers see of the agent. */
export interface AgentPods {
  /** The workers of the pods this agent runs now. */
  workers(): Iterable<PodWorker>;
  rootDir: string;
  /** The submission source: stores the pods of a body and runs them (a SubmissionError for a bad body). */
  submit(body: string): Promise<Obj[]>;
  /** Takes back a submitted pod; false when there is none of that name. */
  withdraw(namespace: string, name: string): Promise<boolean>;
}

/** POST /pods: the submitted pods, as the agent runs them (201), or 400 with the reason. */
export async function submitPods(view: AgentPods, req: Request): Promise<Response> {
  try {
    const items = await view.submit(await req.text());
    return Response.json({ kind: "PodList", apiVersion: "v1", metadata: {}, items }, { status: 201 });
  } catch (e) {
    if (e instanceof SubmissionError) return text(400, `${e.message}\n`);
    throw e;
  }
}

/** DELETE /pods/{namespace}/{name}: a submitted pod taken back (200), or 404. */
export async function withdrawPod(view: AgentPods, path: string): Promise<Response> {
  const [namespace, name, ...rest] = path.slice("/pods/".length).split("/").map(decodeURIComponent);
  if (!namespace || !name || rest.length) return text(404, "404 page not found\n");
  return (await view.withdraw(namespace, name)) ? text(200, "") : text(404, `no submitted pod ${namespace}/${name}\n`);
}

/** GET /pods: the pods as the agent runs them, each with the status it reports. */
export function podList(view: AgentPods): Response {
  const items = [...view.workers()].map((w) => ({ ...w.pod, apiVersion: "v1", kind: "Pod", status: w.status(w.pod.status) }));
  return Response.json({ kind: "PodList", apiVersion: "v1", metadata: {}, items });
}

const findWorker = (view: AgentPods, ns: string, name: string) =>
  [...view.workers()].find((w) => w.pod.metadata.namespace === ns && w.pod.metadata.name === name);

const containerStatus = (w: PodWorker | undefined, name: string): Obj | undefined =>
  w?.containers.map((c) => c.status()).find((s) => s.name === name);

/**
 * Which run's log to read (upstream's validateContainerLogStatus): the run of containerID, or with
 * previous the last terminated one; or why there is none. Runs are numbered by restartCount.
 */
export function logRun(s: Obj | undefined, container: string, pod: string, previous: boolean): { run: number; containerID: string } | { error: string } {
  const last = s?.lastState?.terminated, running = s?.state?.running, terminated = s?.state?.terminated, waiting = s?.state?.waiting;
  const run = (id: string) => ({ run: id === s!.containerID ? s!.restartCount : s!.restartCount - 1, containerID: id });
  if (previous) return last?.containerID ? run(last.containerID) : { error: `previous terminated container "${container}" in pod "${pod}" not found` };
  if (running) return run(s!.containerID);
  if (terminated) {
    const id = terminated.containerID || last?.containerID;
    return id ? run(id) : { error: `container "${container}" in pod "${pod}" is terminated` };
  }
  if (last) return last.containerID ? run(last.containerID) : { error: `container "${container}" in pod "${pod}" is terminated` };
  if (waiting) return { error: `container "${container}" in pod "${pod}" is waiting to start: ${waiting.reason}` };
  return { error: `container "${container}" in pod "${pod}" is waiting to start - no logs yet` };
}

const decode = (s: string) => { try { return decodeURIComponent(s); } catch { return s; } };

/** GET /containerLogs/{podNamespace}/{podID}/{containerName} */
export function containerLogs(view: AgentPods, path: string, query: URLSearchParams): Response {
  const [ns, pod, container] = path.split("/").slice(2).map(decode);
  if (!ns) return text(400, `{"message": "Missing podNamespace."}`);
  if (!pod) return text(400, `{"message": "Missing podID."}`);
  if (!container) return text(400, `{"message": "Missing container name."}`);
  // the old `tail` parameter: a number of lines, or "all"
  const q = new URLSearchParams(query);
  const tail = q.get("tail");
  if (tail) {
    if (tail === "all") q.delete("tailLines");
    else q.set("tailLines", tail);
  }
  let o;
  try {
    o = parsePodLogOptions(q);
  } catch (e) {
    if (e instanceof QueryError) return text(400, `{"message": "Unable to decode query."}`);
    throw e;
  }
  if (validatePodLogOptions(o).causes.length) return text(422, `{"message": "Invalid request."}`);
  const w = findWorker(view, ns, pod);
  if (!w) return text(404, `pod "${pod}" does not exist`);
  const spec = w.pod.spec;
  if (![...(spec.containers ?? []), ...(spec.initContainers ?? [])].some((c: Obj) => c.name === container)) {
    return text(404, `container "${container}" not found in pod "${pod}"`);
  }
  const which = logRun(containerStatus(w, container), container, pod, o.previous);
  if ("error" in which) return text(400, which.error);
  const file = logPath(view.rootDir, w.uid, container, which.run);
  const opts: LogOptions = {
    follow: o.follow, timestamps: o.timestamps, tailLines: o.tailLines, limitBytes: o.limitBytes,
    sinceMs: o.sinceSeconds !== undefined ? Date.now() - o.sinceSeconds * 1000 : o.sinceTime !== undefined ? Date.parse(o.sinceTime) : undefined,
  };
  const running = () => {
    const s = containerStatus(findWorker(view, ns, pod), container);
    return !!s?.state?.running && s.containerID === which.containerID;
  };
  let body: ReadableStream<Uint8Array>;
  try {
    body = containerLogStream(file, opts, running);
  } catch (e) {
    return text(400, `failed to open log file "${file}": ${(e as Error).message}`);
  }
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
