// Schedulers side by side: the default scheduler leaves a pod of another schedulerName alone (no binding,
// no event, no condition); a second `kite scheduler` of that name takes it, whether named by the deprecated
// --scheduler-name or by a --config profile; one process with two profiles serves both names, each
// reporting its events under its own name.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { type TestServer, startServer } from "../helpers/server.ts";
import {
  type TestScheduler, boundNode, createNode, createPod, eventFor, events, getPod, namespace, pod, startScheduler,
} from "../helpers/scheduler.ts";

let s: TestServer;
let defaultScheduler: TestScheduler;

beforeAll(async () => {
  s = await startServer();
  defaultScheduler = await startScheduler(s);
  await createNode(s, "node-1");
});
afterAll(async () => {
  await defaultScheduler?.stop();
  await s?.stop();
});

/**
 * A --config file: the profiles named, a lease of its own (schedulers of other names do not share one),
 * and the insecure port, which the file names rather than the flags.
 */
const config = (lease: string, ...profiles: string[]) => (port: number) => {
  const file = join(tempDir("kite-sched-config-"), "config.yaml");
  writeFileSync(file, `apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: ${s.kubeconfig}
healthzBindAddress: 127.0.0.1:${port}
metricsBindAddress: 127.0.0.1:${port}
leaderElection:
  resourceName: ${lease}
profiles:
${profiles.map((p) => `- schedulerName: ${p}`).join("\n")}
`);
  return [`--config=${file}`];
};

/** The pod stays pending and untouched by the default scheduler, which bound one created after it. */
async function leftAlone(ns: string, name: string) {
  await createPod(s, ns, pod(`${name}-witness`));
  await boundNode(s, ns, `${name}-witness`);
  const p = await getPod(s, ns, name);
  expect(p.spec.nodeName).toBeUndefined();
  expect(p.status.conditions).toBeUndefined();
  expect(await events(s, ns, name)).toEqual([]);
}

test("a pod of another scheduler is left alone, then bound by a scheduler started with --scheduler-name", async () => {
  const ns = await namespace(s, "flag");
  await createPod(s, ns, pod("mine", undefined, { schedulerName: "other" }));
  await leftAlone(ns, "mine");

  const other = await startScheduler(s, ["--scheduler-name=other", "--leader-elect-resource-name=other"]);
  try {
    expect(await boundNode(s, ns, "mine")).toBe("node-1");
    expect(await eventFor(s, ns, "mine", "Scheduled")).toMatchObject({ reportingController: "other", note: `Successfully assigned ${ns}/mine to node-1` });
    expect(other.output()).toContain("Flag --scheduler-name has been deprecated");
  } finally {
    await other.stop();
  }
});

test("one process with two --config profiles schedules the pods of both names, and no others", async () => {
  const ns = await namespace(s, "profiles");
  await createPod(s, ns, pod("for-a", undefined, { schedulerName: "profile-a" }));
  await createPod(s, ns, pod("for-b", undefined, { schedulerName: "profile-b" }));
  await createPod(s, ns, pod("for-c", undefined, { schedulerName: "profile-c" }));
  await leftAlone(ns, "for-a");

  const both = await startScheduler(s, config("profile-ab", "profile-a", "profile-b"));
  try {
    expect(await boundNode(s, ns, "for-a")).toBe("node-1");
    expect(await boundNode(s, ns, "for-b")).toBe("node-1");
    expect((await eventFor(s, ns, "for-a", "Scheduled")).reportingController).toBe("profile-a");
    expect((await eventFor(s, ns, "for-b", "Scheduled")).reportingController).toBe("profile-b");
    // a pod created now, and the one of a third name left alone all along
    await createPod(s, ns, pod("later-b", undefined, { schedulerName: "profile-b" }));
    expect(await boundNode(s, ns, "later-b")).toBe("node-1");
    const c = await getPod(s, ns, "for-c");
    expect(c.spec.nodeName).toBeUndefined();
    expect(await events(s, ns, "for-c")).toEqual([]);
  } finally {
    await both.stop();
  }
});
