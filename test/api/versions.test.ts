// Every version v1.21 serves, through the one conversion table: a write at one version is read at the
// others, watches, patches and applies work at a beta version, removed versions answer 404, discovery
// names the hub as preferred, deprecated versions warn (also through real kubectl), and a restarted
// server reads its objects at every version.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KITE, type TestServer, startServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";
import { expectCode } from "./fixtures.ts";
import { decodeObject, encodeObject } from "../../pkg/protobuf/index.ts";
import { SERVED } from "../../pkg/registry/served.ts";
import { ROWS } from "../../pkg/convert/rows/index.ts";

/** Runs `bin` (a kubectl build, or kite) against the server; kite takes its flags after the command. */
async function kubectlAt(bin: string, args: string[], flagsLast = false) {
  const kubeconfig = `--kubeconfig=${s.kubeconfig}`;
  const p = Bun.spawn([bin, ...(flagsLast ? [...args, kubeconfig] : [kubeconfig, ...args])], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

let s: TestServer;
const dataDir = tempDir("kite-versions-");
beforeAll(async () => { s = await startServer([], dataDir); });
afterAll(async () => { await s?.stop(); });

const cronJob = (apiVersion: string, name: string) => ({
  apiVersion, kind: "CronJob", metadata: { name },
  spec: { schedule: "*/5 * * * *", jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } } } },
});
const CJ_V1 = "/apis/batch/v1/namespaces/default/cronjobs";
const CJ_BETA = "/apis/batch/v1beta1/namespaces/default/cronjobs";
const WARNING = '299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob"';

describe("a kind at two versions", () => {
  test("a write at v1beta1 is read at v1 and back, with the requested apiVersion and defaults of the hub", async () => {
    const made = await s.call("POST", CJ_BETA, cronJob("batch/v1beta1", "beta-made"));
    expectCode(made, 201, "create at v1beta1");
    expect(made.body.apiVersion).toBe("batch/v1beta1");
    // defaulting ran (at the hub): concurrencyPolicy Allow, history limits 3 and 1
    expect(made.body.spec.concurrencyPolicy).toBe("Allow");
    expect(made.headers.get("warning")).toBe(WARNING);
    const atV1 = await s.call("GET", `${CJ_V1}/beta-made`);
    expectCode(atV1, 200, "get at v1");
    expect(atV1.body.apiVersion).toBe("batch/v1");
    expect(atV1.body.metadata.uid).toBe(made.body.metadata.uid);
    expect(atV1.body.spec.schedule).toBe("*/5 * * * *");
    expect(atV1.headers.get("warning")).toBeNull();
    const v1Made = await s.call("POST", CJ_V1, cronJob("batch/v1", "v1-made"));
    expectCode(v1Made, 201, "create at v1");
    const list = await s.call("GET", CJ_BETA);
    expect(list.body.apiVersion).toBe("batch/v1beta1");
    expect(list.body.items.map((i: any) => [i.apiVersion, i.metadata.name]).sort()).toEqual([["batch/v1beta1", "beta-made"], ["batch/v1beta1", "v1-made"]]);
    // a body at the wrong version is refused as upstream refuses it
    const wrong = await s.call("POST", CJ_BETA, cronJob("batch/v1", "wrong"));
    expectCode(wrong, 400, "v1 body to the v1beta1 path");
  });

  test("a watch at v1beta1 sees a write made at v1, converted", async () => {
    const rv = (await s.call("GET", CJ_BETA)).body.metadata.resourceVersion;
    const res = await s.req(`${CJ_BETA}?watch=1&resourceVersion=${rv}`);
    const reader = res.body!.getReader();
    await s.call("POST", CJ_V1, cronJob("batch/v1", "watched"));
    let text = "";
    const deadline = Date.now() + 20_000;
    while (!text.includes('"watched"') && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const ev = JSON.parse(text.split("\n").find((l) => l.includes('"watched"'))!);
    expect(ev.type).toBe("ADDED");
    expect(ev.object.apiVersion).toBe("batch/v1beta1");
  });

  test("patches, server-side apply and dry-run at v1beta1", async () => {
    const merge = await s.call("PATCH", `${CJ_BETA}/v1-made`, { spec: { suspend: true } }, { "Content-Type": "application/merge-patch+json" });
    expectCode(merge, 200, "merge patch");
    expect(merge.body.apiVersion).toBe("batch/v1beta1");
    expect((await s.call("GET", `${CJ_V1}/v1-made`)).body.spec.suspend).toBe(true);
    const json = await s.call("PATCH", `${CJ_BETA}/v1-made`, [{ op: "replace", path: "/spec/schedule", value: "0 * * * *" }], { "Content-Type": "application/json-patch+json" });
    expectCode(json, 200, "json patch");
    const smp = await s.call("PATCH", `${CJ_BETA}/v1-made`, { metadata: { labels: { a: "b" } } }, { "Content-Type": "application/strategic-merge-patch+json" });
    expectCode(smp, 200, "strategic merge patch");
    expect((await s.call("GET", `${CJ_V1}/v1-made`)).body.spec.schedule).toBe("0 * * * *");
    const applied = await s.call("PATCH", `${CJ_BETA}/applied?fieldManager=tester`, cronJob("batch/v1beta1", "applied"), { "Content-Type": "application/apply-patch+yaml" });
    expectCode(applied, 201, "apply at v1beta1");
    const mf = applied.body.metadata.managedFields.find((m: any) => m.manager === "tester");
    expect(mf.apiVersion).toBe("batch/v1beta1");
    expect(mf.operation).toBe("Apply");
    const dry = await s.call("POST", `${CJ_BETA}?dryRun=All`, cronJob("batch/v1beta1", "dry"));
    expectCode(dry, 201, "dry-run create");
    expectCode(await s.call("GET", `${CJ_V1}/dry`), 404, "a dry run stores nothing");
    // validation runs at the hub: a bad schedule is refused at v1beta1 too
    const bad = await s.call("POST", CJ_BETA, { ...cronJob("batch/v1beta1", "bad"), spec: { ...cronJob("", "").spec, schedule: "" } });
    expectCode(bad, 422, "invalid at v1beta1");
  });
});

describe("the versions served", () => {
  test("versions removed before v1.21 answer 404 and are not in discovery", async () => {
    expectCode(await s.call("GET", "/apis/extensions/v1beta1/namespaces/default/deployments"), 404, "extensions/v1beta1 deployments");
    expectCode(await s.call("GET", "/apis/apps/v1beta2/namespaces/default/deployments"), 404, "apps/v1beta2");
    const apps = await s.call("GET", "/apis/apps");
    expect(apps.body.versions.map((v: any) => v.version)).toEqual(["v1"]);
  });

  test("discovery lists every served version with the hub as preferred version", async () => {
    const groups = (await s.call("GET", "/apis")).body.groups as any[];
    const of = (name: string) => groups.find((g) => g.name === name);
    for (const [g, versions] of [
      ["batch", ["v1", "v1beta1"]], ["autoscaling", ["v1", "v2beta1", "v2beta2"]], ["rbac.authorization.k8s.io", ["v1", "v1beta1"]],
      ["storage.k8s.io", ["v1", "v1beta1"]], ["coordination.k8s.io", ["v1", "v1beta1"]], ["scheduling.k8s.io", ["v1", "v1beta1"]],
      ["node.k8s.io", ["v1", "v1beta1"]], ["apiregistration.k8s.io", ["v1", "v1beta1"]], ["policy", ["v1", "v1beta1"]],
    ] as const) {
      expect({ g, versions: of(g)?.versions.map((v: any) => v.version) }).toEqual({ g, versions: [...versions] });
      expect(of(g).preferredVersion.version).toBe("v1");
    }
    const beta = (await s.call("GET", "/apis/storage.k8s.io/v1beta1")).body.resources.map((r: any) => r.name).sort();
    expect(beta).toEqual(["csidrivers", "csinodes", "storageclasses", "volumeattachments", "volumeattachments/status"]);
    // both versions are stored at the hub: one storage version hash
    const hashOf = async (gv: string) => (await s.call("GET", `/apis/${gv}`)).body.resources.find((r: any) => r.name === "cronjobs").storageVersionHash;
    expect(await hashOf("batch/v1beta1")).toBe(await hashOf("batch/v1"));
    const psp = (await s.call("GET", "/apis/policy/v1beta1")).body.resources.find((r: any) => r.name === "podsecuritypolicies");
    expect(psp.shortNames).toEqual(["psp"]);
  });

  test("every served row of the conversion table is in discovery and lists at its version", async () => {
    const rows = SERVED.filter((d) => d.conversion);
    expect(rows.length).toBe(ROWS.filter((r) => r.served).length);
    for (const d of rows) {
      const gv = `${d.group}/${d.version}`;
      const names = (await s.call("GET", `/apis/${gv}`)).body.resources?.map((r: any) => r.name) ?? [];
      expect({ gv, has: names.includes(d.plural) }).toEqual({ gv, has: true });
      if (d.verbs && !d.verbs.includes("list")) continue;
      const list = await s.call("GET", `/apis/${gv}/${d.plural}`);
      expect({ gv, status: list.status, apiVersion: list.body.apiVersion }).toEqual({ gv, status: 200, apiVersion: gv });
    }
  });

  test("HPA v2beta2 round-trips through its v1 hub without loss", async () => {
    const hpa = {
      apiVersion: "autoscaling/v2beta2", kind: "HorizontalPodAutoscaler", metadata: { name: "web" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 5,
        metrics: [
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } },
          { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
          { type: "Object", object: { describedObject: { apiVersion: "networking.k8s.io/v1", kind: "Ingress", name: "main" }, metric: { name: "hits" }, target: { type: "Value", value: "2k" } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: "Max", policies: [{ type: "Pods", value: 1, periodSeconds: 30 }] } },
      },
    };
    const HPA = "/apis/autoscaling/%s/namespaces/default/horizontalpodautoscalers";
    const made = await s.call("POST", HPA.replace("%s", "v2beta2"), hpa);
    expectCode(made, 201, "create at v2beta2");
    const v1 = (await s.call("GET", `${HPA.replace("%s", "v1")}/web`)).body;
    expect(v1.spec.targetCPUUtilizationPercentage).toBe(60);
    expect(JSON.parse(v1.metadata.annotations["autoscaling.alpha.kubernetes.io/metrics"]).map((m: any) => m.type)).toEqual(["Pods", "Object"]);
    // an update at v1 keeps what v1 lacks (it rides in the annotations)
    const upd = await s.call("PUT", `${HPA.replace("%s", "v1")}/web`, { ...v1, spec: { ...v1.spec, maxReplicas: 7 } });
    expectCode(upd, 200, "update at v1");
    const back = (await s.call("GET", `${HPA.replace("%s", "v2beta2")}/web`)).body;
    // as upstream: v1's CPU target comes back after the metrics its annotation carried
    expect(back.spec).toEqual({ ...hpa.spec, maxReplicas: 7, metrics: [...hpa.spec.metrics.slice(1), hpa.spec.metrics[0]] });
    expect(back.metadata.annotations).toBeUndefined();
    const beta1 = (await s.call("GET", `${HPA.replace("%s", "v2beta1")}/web`)).body;
    expect(beta1.spec.metrics[0]).toEqual({ type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } });
    // a status written at v2beta2 (conditions, current metrics) rides in v1's annotations, and back
    const conditions = [{ type: "AbleToScale", status: "True", lastTransitionTime: "2021-04-08T12:00:00Z", reason: "ReadyForNewScale" }];
    const currentMetrics = [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 42, averageValue: "100m" } } }];
    const st = await s.call("PUT", `${HPA.replace("%s", "v2beta2")}/web/status`, { ...back, status: { currentReplicas: 2, desiredReplicas: 2, currentMetrics, conditions } });
    expectCode(st, 200, "status at v2beta2");
    const v1s = (await s.call("GET", `${HPA.replace("%s", "v1")}/web`)).body;
    expect(v1s.status.currentCPUUtilizationPercentage).toBe(42);
    expect(JSON.parse(v1s.metadata.annotations["autoscaling.alpha.kubernetes.io/conditions"])).toEqual(conditions);
    // a status write at v1 carries them too; an update of the rest keeps them
    const cond2 = [{ ...conditions[0], reason: "SucceededRescale" }];
    v1s.metadata.annotations["autoscaling.alpha.kubernetes.io/conditions"] = JSON.stringify(cond2);
    expectCode(await s.call("PUT", `${HPA.replace("%s", "v1")}/web/status`, v1s), 200, "status at v1");
    const plain = (await s.call("GET", `${HPA.replace("%s", "v1")}/web`)).body;
    delete plain.metadata.annotations["autoscaling.alpha.kubernetes.io/conditions"];
    expectCode(await s.call("PUT", `${HPA.replace("%s", "v1")}/web`, plain), 200, "update at v1 without the status annotations");
    const after = (await s.call("GET", `${HPA.replace("%s", "v2beta2")}/web`)).body;
    expect(after.status.conditions).toEqual(cond2);
    expect(after.status.currentMetrics).toEqual(currentMetrics);
  });

  test("objects of every served row are reachable at each version", async () => {
    const role = { kind: "Role", metadata: { name: "r" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] };
    expectCode(await s.call("POST", "/apis/rbac.authorization.k8s.io/v1beta1/namespaces/default/roles", { apiVersion: "rbac.authorization.k8s.io/v1beta1", ...role }), 201, "role at v1beta1");
    const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l" }, spec: { holderIdentity: "me" } };
    expectCode(await s.call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", lease), 201, "lease at v1");
    expect((await s.call("GET", "/apis/coordination.k8s.io/v1beta1/namespaces/default/leases/l")).body.spec.holderIdentity).toBe("me");
    expect((await s.call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/r")).body.rules[0].verbs).toEqual(["get"]);
    const svc = { apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name: "v1.example.com" }, spec: { group: "example.com", version: "v1", groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: "default", name: "ext" } } };
    expectCode(await s.call("POST", "/apis/apiregistration.k8s.io/v1/apiservices", svc), 201, "APIService");
    const old = await s.call("GET", "/apis/apiregistration.k8s.io/v1beta1/apiservices/v1.example.com");
    expect(old.body.apiVersion).toBe("apiregistration.k8s.io/v1beta1");
    expect(old.headers.get("warning")).toBe('299 - "apiregistration.k8s.io/v1beta1 APIService is deprecated in v1.19+, unavailable in v1.22+; use apiregistration.k8s.io/v1 APIService"');
    const tr = await s.call("POST", "/apis/authentication.k8s.io/v1beta1/tokenreviews", { apiVersion: "authentication.k8s.io/v1beta1", kind: "TokenReview", spec: { token: "test" } });
    expectCode(tr, 201, "TokenReview at v1beta1");
    expect(tr.body.apiVersion).toBe("authentication.k8s.io/v1beta1");
    expect(tr.body.status.authenticated).toBe(true);
  });

  test("protobuf at every served version: through the hub's messages or the version's own", async () => {
    const pb = "application/vnd.kubernetes.protobuf";
    const got = await s.req(`${CJ_BETA}/beta-made`, { headers: { Accept: pb } });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe(pb);
    const obj = decodeObject(new Uint8Array(await got.arrayBuffer()));
    expect([obj.apiVersion, obj.kind, obj.spec.schedule]).toEqual(["batch/v1beta1", "CronJob", "*/5 * * * *"]);
    const made = await s.req(CJ_BETA, { method: "POST", headers: { "Content-Type": pb, Accept: "application/json" }, body: encodeObject(cronJob("batch/v1beta1", "pb-made")) });
    expect(made.status).toBe(201);
    expect((await s.call("GET", `${CJ_V1}/pb-made`)).body.spec.schedule).toBe("*/5 * * * *");
    const v2 = await s.req("/apis/autoscaling/v2beta2/namespaces/default/horizontalpodautoscalers", { headers: { Accept: pb } });
    expect([v2.status, v2.headers.get("content-type")]).toEqual([200, pb]);
    const v2beta1 = await s.req("/apis/autoscaling/v2beta1/namespaces/default/horizontalpodautoscalers", { headers: { Accept: pb } });
    expect([v2beta1.status, v2beta1.headers.get("content-type")]).toEqual([200, pb]);
    const list = decodeObject(new Uint8Array(await v2beta1.arrayBuffer()));
    expect(list.items[0].spec.metrics.at(-1)).toEqual({ type: "Resource", resource: { name: "cpu", targetAverageUtilization: 60 } });
  });

  test("the hub's strategy holds at a beta version: a system PriorityClass cannot be deleted at v1beta1", async () => {
    const r = await s.call("DELETE", "/apis/scheduling.k8s.io/v1beta1/priorityclasses/system-node-critical");
    expectCode(r, 403, "delete a system class at v1beta1");
    expect(r.body.message).toContain("this is a system priority class and cannot be deleted");
  });

  test("a deprecated version's use is a metric", async () => {
    const text = await (await s.req("/metrics")).text();
    expect(text).toContain('apiserver_requested_deprecated_apis{group="batch",version="v1beta1",resource="cronjobs",subresource="",removed_release="1.25"} 1');
  });
});

describe("clients", () => {
  test("kite get prints the deprecation warning once", async () => {
    const r = await kubectlAt(KITE[0], [...KITE.slice(1), "get", "cronjobs.v1beta1.batch", "-n", "default"], true);
    expect(r.code).toBe(0);
    expect(r.err).toBe("Warning: batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob\n");
    expect(r.out).toContain("beta-made");
  });

  for (const [label, bin] of [["1.20", "/opt/kubernetes-client-1.20/usr/bin/kubectl"], ["1.33", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"]]) {
    test(`kubectl ${label} prints the deprecation warning`, async () => {
      const r = await kubectlAt(bin, ["get", "cronjobs.v1beta1.batch", "-n", "default"]);
      expect(r.code).toBe(0);
      expect(r.err).toContain("Warning: batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob");
      expect(r.out).toContain("beta-made");
    });
  }
});

describe("upgrade", () => {
  test("a restarted server reads its objects at every version", async () => {
    await s.stop();
    s = await startServer([], dataDir);
    for (const v of ["v1", "v1beta1"]) {
      const got = await s.call("GET", `/apis/batch/${v}/namespaces/default/cronjobs/beta-made`);
      expectCode(got, 200, `get at ${v} after restart`);
      expect(got.body.apiVersion).toBe(`batch/${v}`);
    }
  });
});
