// --runtime-config: one server with a matrix of keys (a level turned off, a version enabled by its bare
// name, one resource of a disabled version enabled, one resource and one stable version disabled), seen
// through routes, discovery and OpenAPI; and bad keys and values refused with one line and exit 2.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KITE, type TestServer, startServer } from "../helpers/server.ts";
import { expectCode } from "./fixtures.ts";

const CONFIG = "api/beta=false,batch/v1beta1,storage.k8s.io/v1beta1/storageclasses=true,batch/v1/jobs=false,scheduling.k8s.io/v1=false,scheduling.k8s.io/v1beta1";
let s: TestServer;
beforeAll(async () => { s = await startServer([`--runtime-config=${CONFIG}`]); });
afterAll(async () => { await s?.stop(); });

const versionsOf = async (group: string) => {
  const g = (await s.call("GET", `/apis/${group}`)).body;
  return { versions: g.versions?.map((v: any) => v.version), preferred: g.preferredVersion?.version };
};

describe("a server started with --runtime-config", () => {
  test("api/beta=false turns the betas off; a bare group/version turns one back on", async () => {
    expectCode(await s.call("GET", "/apis/rbac.authorization.k8s.io/v1beta1/clusterroles"), 404, "rbac v1beta1 (off)");
    expectCode(await s.call("GET", "/apis/autoscaling/v2beta2/horizontalpodautoscalers"), 404, "autoscaling v2beta2 (off)");
    expect(await versionsOf("rbac.authorization.k8s.io")).toEqual({ versions: ["v1"], preferred: "v1" });
    expectCode(await s.call("GET", "/apis/batch/v1beta1/cronjobs"), 200, "batch v1beta1 (on again)");
    expect(await versionsOf("batch")).toEqual({ versions: ["v1", "v1beta1"], preferred: "v1" });
  });

  test("a resource key enables or disables one resource only", async () => {
    const beta = (await s.call("GET", "/apis/storage.k8s.io/v1beta1")).body.resources.map((r: any) => r.name);
    expect(beta).toEqual(["storageclasses"]);
    expectCode(await s.call("GET", "/apis/storage.k8s.io/v1beta1/csinodes"), 404, "csinodes v1beta1");
    expectCode(await s.call("GET", "/apis/batch/v1/namespaces/default/jobs"), 404, "batch/v1 jobs (off)");
    expectCode(await s.call("GET", "/apis/batch/v1/namespaces/default/cronjobs"), 200, "batch/v1 cronjobs");
    expect((await s.call("GET", "/apis/batch/v1")).body.resources.map((r: any) => r.name)).toEqual(["cronjobs", "cronjobs/status"]);
  });

  test("a disabled stable version answers 404; its objects stay reachable through the other version", async () => {
    expect(await versionsOf("scheduling.k8s.io")).toEqual({ versions: ["v1beta1"], preferred: "v1beta1" });
    expectCode(await s.call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses"), 404, "scheduling v1 (off)");
    const pc = { apiVersion: "scheduling.k8s.io/v1beta1", kind: "PriorityClass", metadata: { name: "high" }, value: 1000 };
    expectCode(await s.call("POST", "/apis/scheduling.k8s.io/v1beta1/priorityclasses", pc), 201, "create at v1beta1");
    // the built-in classes the server keeps at v1 are there too
    const names = (await s.call("GET", "/apis/scheduling.k8s.io/v1beta1/priorityclasses")).body.items.map((i: any) => i.metadata.name);
    expect(names).toContain("system-node-critical");
    expect(names).toContain("high");
  });

  test("a custom resource's group joins discovery without bringing disabled versions back", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com", scope: "Namespaced", names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
      },
    };
    expectCode(await s.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd), 201, "create CRD");
    const deadline = Date.now() + 20_000;
    let groups: string[] = [];
    while (!groups.includes("example.com") && Date.now() < deadline) {
      groups = (await s.call("GET", "/apis")).body.groups.map((g: any) => g.name);
      if (!groups.includes("example.com")) await Bun.sleep(100);
    }
    expect(groups).toContain("example.com");
    expect(await versionsOf("rbac.authorization.k8s.io")).toEqual({ versions: ["v1"], preferred: "v1" });
    expect(await versionsOf("scheduling.k8s.io")).toEqual({ versions: ["v1beta1"], preferred: "v1beta1" });
  });

  test("OpenAPI describes the enabled versions only", async () => {
    const paths = Object.keys((await s.call("GET", "/openapi/v3")).body.paths);
    expect(paths).toContain("apis/batch/v1beta1");
    expect(paths).toContain("apis/scheduling.k8s.io/v1beta1");
    expect(paths).not.toContain("apis/scheduling.k8s.io/v1");
    expect(paths).not.toContain("apis/rbac.authorization.k8s.io/v1beta1");
    const v2 = Object.keys((await s.call("GET", "/openapi/v2")).body.paths);
    expect(v2).not.toContain("/apis/batch/v1/namespaces/{namespace}/jobs");
    expect(v2).toContain("/apis/batch/v1beta1/namespaces/{namespace}/cronjobs");
  });
});

test("bad keys and values exit 2 with upstream's reason on one line", async () => {
  const cases = [
    ["api/all=maybe", "invalid value api/all=maybe"],
    ["batch/v9=false", "group version batch/v9 that has not been registered"],
    ["batch/v1beta1=maybe", 'invalid value of batch/v1beta1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ["batch/v1beta1/CronJobs=false", 'invalid key batch/v1beta1/CronJobs: group/version/resource and resource is always lowercase plural, not "CronJobs"'],
    ["batch", "runtime-config invalid key batch"],
  ];
  await Promise.all(cases.map(async ([value, reason]) => {
    const p = Bun.spawn([...KITE, "apiserver", `--runtime-config=${value}`], { stdout: "pipe", stderr: "pipe" });
    const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    expect({ value, code, lines: err.trim().split("\n").length }).toEqual({ value, code: 2, lines: 1 });
    expect(err).toContain(`for "--runtime-config" flag: ${reason}`);
  }));
});
