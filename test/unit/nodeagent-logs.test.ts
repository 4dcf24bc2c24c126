// The log pieces that are pure: CRI lines, --tail's start, --since/--timestamps/--limit-bytes, which run's
// file a status points at (upstream's validateContainerLogStatus), PodLogOptions from a query, the
// kubelet's authorization attributes per path, and the API server's choice of container and address.
import { expect, test } from "bun:test";
import { agentLogQuery, parsePodLogOptions, validatePodLogOptions } from "../../pkg/api/podlogoptions.ts";
import { formatLine, limit, parseCRILine, tailStart } from "../../pkg/nodeagent/logs/crilog.ts";
import { agentAttributes } from "../../pkg/nodeagent/server/auth.ts";
import { logRun } from "../../pkg/nodeagent/server/handlers.ts";
import { logContainer, preferredAddress } from "../../pkg/registry/podlog.ts";

test("CRI lines: time, stream, full lines keep their newline, partial ones do not", () => {
  expect(parseCRILine("2021-01-01T00:00:00.5Z stdout F hello world")).toEqual({ time: "2021-01-01T00:00:00.5Z", stream: "stdout", partial: false, content: "hello world\n" });
  expect(parseCRILine("2021-01-01T00:00:00Z stderr P abc")).toEqual({ time: "2021-01-01T00:00:00Z", stream: "stderr", partial: true, content: "abc" });
  expect(parseCRILine("2021-01-01T00:00:00Z stdout F ")?.content).toBe("\n");
  expect(parseCRILine("garbage")).toBeUndefined();
});

test("--tail: where the last N lines start", () => {
  const t = "a\nb\nc\n";
  expect([0, 1, 2, 3, 9].map((n) => t.slice(tailStart(t, n)))).toEqual(["", "c\n", "b\nc\n", "a\nb\nc\n", "a\nb\nc\n"]);
  expect("a\nb".slice(tailStart("a\nb", 1))).toBe("b");
});

test("--since drops older lines, --timestamps prefixes the time, --limit-bytes cuts", () => {
  const l = parseCRILine("2021-01-01T00:00:10Z stdout F x")!;
  const o = { follow: false, timestamps: false };
  expect(formatLine(l, { ...o, sinceMs: Date.parse("2021-01-01T00:00:11Z") })).toBe("");
  expect(formatLine(l, { ...o, sinceMs: Date.parse("2021-01-01T00:00:10Z") })).toBe("x\n");
  expect(formatLine(l, { ...o, timestamps: true })).toBe("2021-01-01T00:00:10Z x\n");
  const bytes = new TextEncoder().encode("abcdef");
  expect(limit(bytes, 0, { ...o, limitBytes: 4 }).length).toBe(4);
  expect(limit(bytes, 3, { ...o, limitBytes: 4 }).length).toBe(1);
  expect(limit(bytes, 0, o).length).toBe(6);
});

test("which run's log: the running one, the last terminated one for --previous (and in CrashLoopBackOff), or the kubelet's error", () => {
  const t = (id: string) => ({ terminated: { containerID: id } });
  const running = { containerID: "c2", restartCount: 2, state: { running: {} }, lastState: t("c1") };
  expect(logRun(running, "c", "p", false)).toEqual({ run: 2, containerID: "c2" });
  expect(logRun(running, "c", "p", true)).toEqual({ run: 1, containerID: "c1" });
  const backoff = { containerID: "c2", restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: t("c2") };
  expect(logRun(backoff, "c", "p", false)).toEqual({ run: 2, containerID: "c2" });
  expect(logRun(backoff, "c", "p", true)).toEqual({ run: 2, containerID: "c2" });
  const first = { restartCount: 0, state: { running: {} }, lastState: {}, containerID: "c0" };
  expect(logRun(first, "c", "p", true)).toEqual({ error: `previous terminated container "c" in pod "p" not found` });
  expect(logRun({ restartCount: 0, state: { waiting: { reason: "ContainerCreating" } }, lastState: {} }, "c", "p", false)).toEqual({ error: `container "c" in pod "p" is waiting to start: ContainerCreating` });
});

test("PodLogOptions from a query (Go's bool and int words), upstream's validation, the query sent to the agent", () => {
  const o = parsePodLogOptions(new URLSearchParams("container=a&follow=1&tailLines=3&sinceTime=2021-01-01T00:00:00.5Z&timestamps=True"));
  expect(o).toMatchObject({ container: "a", follow: true, tailLines: 3, timestamps: true, previous: false, sinceTime: "2021-01-01T00:00:00.5Z" });
  expect(agentLogQuery(o)).toBe("follow=true&sinceTime=2021-01-01T00%3A00%3A00Z&tailLines=3&timestamps=true");
  expect(() => parsePodLogOptions(new URLSearchParams("previous=yes"))).toThrow(`strconv.ParseBool: parsing "yes": invalid syntax`);
  expect(() => parsePodLogOptions(new URLSearchParams("sinceTime=yesterday"))).toThrow(`parsing time "yesterday"`);
  expect(validatePodLogOptions({ ...o, sinceTime: undefined, tailLines: -1, limitBytes: 0 }).causes.map((c) => c.field)).toEqual(["tailLines", "limitBytes"]);
});

test("the kubelet's authorization attributes: nodes/<subresource by path>, verb by method", () => {
  const u = { name: "u", groups: [] };
  const a = agentAttributes(u, "GET", "/containerLogs/ns/p/c", "n1");
  expect(a).toMatchObject({ verb: "get", resource: "nodes", subresource: "proxy", name: "n1", apiGroup: "", apiVersion: "v1", isResourceRequest: true });
  expect(["/stats/summary", "/metrics", "/logs/syslog", "/spec", "/logsx", "/pods"].map((p) => agentAttributes(u, "GET", p, "n1").subresource)).toEqual(["stats", "metrics", "log", "spec", "proxy", "proxy"]);
  expect(agentAttributes(u, "POST", "/exec", "n1").verb).toBe("create");
});

test("the API server's container and address choice", () => {
  const pod = { metadata: { name: "p" }, spec: { containers: [{ name: "a" }] } };
  expect(logContainer(pod, undefined)).toBe("a");
  expect(() => logContainer({ metadata: { name: "p" }, spec: { containers: [] } }, undefined)).toThrow("a container name must be specified for pod p");
  const node = { status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }, { type: "Hostname", address: "n1" }] } };
  expect(preferredAddress(node, ["Hostname", "InternalIP"])).toBe("n1");
  expect(preferredAddress(node, ["ExternalIP", "InternalIP"])).toBe("10.0.0.1");
  expect(() => preferredAddress(node, ["ExternalIP"])).toThrow("no preferred addresses found; known addresses: [{InternalIP 10.0.0.1} {Hostname n1}]");
});
