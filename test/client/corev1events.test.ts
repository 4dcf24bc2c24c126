// core/v1 event recording against a real server (--authorization-mode=Node,RBAC), as a node: the
// kubelet's identity may create Events and PATCH their counts; repeats are one object with a count.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "../../pkg/client/client.ts";
import { CoreEventBroadcaster } from "../../pkg/client/corev1events.ts";
import { loadClientConfig } from "../../pkg/client/kubeconfig.ts";
import { Transport } from "../../pkg/client/transport.ts";
import { containerRef, nodeRef } from "../../pkg/nodeagent/events.ts";
import { issueClient, makeCA } from "../helpers/certs.ts";
import { tempDir } from "../helpers/processes.ts";
import { startServer, TEST_TOKEN, type TestServer } from "../helpers/server.ts";

const ca = makeCA("node-client-ca");
const n1 = issueClient(ca, "system:node:n1", { orgs: ["system:nodes"] });
let s: TestServer;
let asNode: Client;
beforeAll(async () => {
  s = await startServer([`--client-ca-file=${ca.certFile}`, "--authorization-mode=Node,RBAC"]);
  const admin = await loadClientConfig({ kubeconfig: s.kubeconfig, cacheDir: tempDir("kite-client-cache-") });
  asNode = new Client(new Transport({ ...admin, token: undefined, cert: n1.cert, key: n1.key }));
}, 60_000);
afterAll(async () => { await s?.stop(); });

const events = async (selector: string) =>
  (await s.call("GET", `/api/v1/events?fieldSelector=${encodeURIComponent(selector)}`, undefined, { authorization: `Bearer ${TEST_TOKEN}` })).body.items;

test("as system:node:n1, a repeated event is created once and its count PATCHed", async () => {
  const b = new CoreEventBroadcaster(asNode);
  const rec = b.newRecorder({ component: "kubelet", host: "n1" });
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default", uid: "u1" } };
  rec.event(containerRef(pod, "c"), "Warning", "BackOff", "Back-off restarting failed container");
  await b.flush();
  for (let i = 0; i < 3; i++) {
    rec.event(containerRef(pod, "c"), "Warning", "BackOff", "Back-off restarting failed container");
    await b.flush();
  }
  const [ev, ...more] = await events("involvedObject.name=web,reason=BackOff");
  expect(more).toEqual([]);
  expect(ev).toMatchObject({
    count: 4, type: "Warning", message: "Back-off restarting failed container", source: { component: "kubelet", host: "n1" },
    involvedObject: { kind: "Pod", name: "web", namespace: "default", uid: "u1", fieldPath: "spec.containers{c}" },
  });
  expect(Date.parse(ev.lastTimestamp)).toBeGreaterThanOrEqual(Date.parse(ev.firstTimestamp));
});

test("a Node's event goes to the default namespace with the kubelet's node reference", async () => {
  const b = new CoreEventBroadcaster(asNode);
  b.newRecorder({ component: "kubelet", host: "n1" }).event(nodeRef("n1"), "Normal", "Starting", "Starting kubelet.");
  await b.flush();
  const [ev] = await events("involvedObject.kind=Node,involvedObject.name=n1");
  expect(ev).toMatchObject({ metadata: { namespace: "default" }, involvedObject: { kind: "Node", name: "n1", uid: "n1" }, reason: "Starting", message: "Starting kubelet.", count: 1 });
});
