// Issue 13 items 6 and 8: query parameters read as upstream's parameter codec reads them (booleans: only
// "0" and "false" are false; integers as strconv.ParseInt), a PUT with resourceVersion "0" is
// unconditional, DeleteOptions are read from a body in any media type the server speaks (else from the
// query, never both), and the texts upstream gives for bodies and patches it cannot decode.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { encodeObject } from "../../pkg/protobuf/index.ts";
import { type TestServer, startServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus, openWatch, until } from "./fixtures.ts";

setDefaultTimeout(60_000);

const NS = "qp";
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const PB = "application/vnd.kubernetes.protobuf";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await createNamespace(s, NS);
}, 30_000);
afterAll(async () => { await s?.stop(); });

const cm = (name: string, extra: object = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" }, ...extra });
async function make(name: string, extra: object = {}) {
  const r = await s.call("POST", CMS, cm(name, extra));
  expectCode(r, 201, `POST ${name}`);
  return r.body;
}
const exists = async (name: string) => (await s.call("GET", `${CMS}/${name}`)).status === 200;

/** A raw request: the body as bytes, with exactly the headers given. */
async function raw(method: string, path: string, body: Uint8Array | string, headers: Record<string, string> = {}) {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const r = await s.req(path, { method, body: bytes, headers });
  const text = await r.text();
  let parsed: any = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body: parsed, headers: r.headers };
}

describe("booleans", () => {
  test("force=True (the Python dynamic client's spelling) forces an apply, as every spelling but 0 and false does", async () => {
    const apply = (manager: string, value: string, force?: string) =>
      raw("PATCH", `${CMS}/forced?fieldManager=${manager}${force === undefined ? "" : `&force=${force}`}`,
        JSON.stringify(cm("forced", { data: { k: value } })), { "Content-Type": "application/apply-patch+yaml" });
    expectCode(await apply("one", "1"), 201, "apply by one");
    expectStatus(await apply("two", "2"), 409, "Conflict", "apply by two without force");
    expectStatus(await apply("two", "2", "False"), 409, "Conflict", "apply by two with force=False");
    expectStatus(await apply("two", "2", "0"), 409, "Conflict", "apply by two with force=0");
    for (const [i, v] of ["True", "t", "T", "TRUE", "1", "yes", ""].entries()) {
      const manager = i % 2 ? "one" : "two";
      const r = await apply(manager, `f${i}`, v);
      expectCode(r, 200, `apply by ${manager} with force=${v}`);
      expect(r.body.data.k).toBe(`f${i}`);
    }
  });

  test("force on a patch that is not an apply is refused whatever its value", async () => {
    await make("merge");
    for (const v of ["false", "true"]) {
      const r = await raw("PATCH", `${CMS}/merge?force=${v}`, JSON.stringify({ data: { k: "x" } }), { "Content-Type": "application/merge-patch+json" });
      const st = expectStatus(r, 422, "Invalid", `merge patch force=${v}`);
      expect(st.message).toBe(`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`);
    }
  });

  test("watch=True and watch=yes watch; watch=False and watch=0 list", async () => {
    for (const v of ["True", "yes"]) {
      const w = await openWatch(s, `${CMS}?watch=${v}&timeoutSeconds=5`);
      try {
        expect((await w.take(1)).map((e) => e.type)).toEqual(["ADDED"]);
      } finally { w.close(); }
    }
    for (const v of ["False", "0"]) {
      const r = await s.call("GET", `${CMS}?watch=${v}`);
      expectCode(r, 200, `GET watch=${v}`);
      expect(r.body.kind).toBe("ConfigMapList");
    }
  });

  test("orphanDependents=True in the query orphans the dependents", async () => {
    const owner = await make("owner");
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid };
    await make("dependent", { metadata: { name: "dependent", ownerReferences: [ref] } });
    expectCode(await s.call("DELETE", `${CMS}/owner?orphanDependents=True`), 200, "DELETE owner orphanDependents=True");
    await until(async () => !(await exists("owner")), "owner gone");
    const dep = await until(async () => {
      const r = await s.call("GET", `${CMS}/dependent`);
      return r.status === 200 && !r.body.metadata.ownerReferences?.length ? r.body : undefined;
    }, "dependent orphaned");
    expect(dep.metadata.name).toBe("dependent");
  });
});

describe("integers", () => {
  const cases: [string, string][] = [
    ["abc", `strconv.ParseInt: parsing "abc": invalid syntax`],
    ["1.5", `strconv.ParseInt: parsing "1.5": invalid syntax`],
    ["", `strconv.ParseInt: parsing "": invalid syntax`],
    ["99999999999999999999", `strconv.ParseInt: parsing "99999999999999999999": value out of range`],
  ];
  test("limit is an int64", async () => {
    for (const [v, message] of cases) {
      const st = expectStatus(await s.call("GET", `${CMS}?limit=${v}`), 400, "BadRequest", `limit=${v}`);
      expect(st.message).toBe(message);
    }
    expectCode(await s.call("GET", `${CMS}?limit=%2B1`), 200, "limit=+1");
    expectCode(await s.call("GET", `${CMS}?limit=-1`), 200, "limit=-1");
  });

  test("gracePeriodSeconds is an int64", async () => {
    await make("grace");
    for (const [v, message] of cases) {
      const st = expectStatus(await s.call("DELETE", `${CMS}/grace?gracePeriodSeconds=${v}`), 400, "BadRequest", `gracePeriodSeconds=${v}`);
      expect(st.message).toBe(message);
    }
    expect(await exists("grace")).toBe(true);
    expectCode(await s.call("DELETE", `${CMS}/grace?gracePeriodSeconds=0`), 200, "gracePeriodSeconds=0");
  });
});

describe("PUT with resourceVersion \"0\"", () => {
  test("is an unconditional update; a stale resourceVersion still conflicts", async () => {
    const made = await make("rv0");
    const up = await s.call("PUT", `${CMS}/rv0`, cm("rv0", { metadata: { name: "rv0", resourceVersion: "0" }, data: { k: "new" } }));
    expectCode(up, 200, "PUT rv0 resourceVersion 0");
    expect(up.body.data.k).toBe("new");
    expect(Number(up.body.metadata.resourceVersion)).toBeGreaterThan(Number(made.metadata.resourceVersion));
    expectStatus(await s.call("PUT", `${CMS}/rv0`, cm("rv0", { metadata: { name: "rv0", resourceVersion: made.metadata.resourceVersion } })), 409, "Conflict", "PUT rv0 stale");
    const patched = await raw("PATCH", `${CMS}/rv0`, JSON.stringify({ metadata: { resourceVersion: "0" }, data: { k: "patched" } }), { "Content-Type": "application/merge-patch+json" });
    expectCode(patched, 200, "merge patch with resourceVersion 0");
    expect(patched.body.data.k).toBe("patched");
  });
});

describe("DeleteOptions bodies", () => {
  const options = (o: object) => ({ apiVersion: "v1", kind: "DeleteOptions", ...o });

  test("a protobuf body (kubectl drain --dry-run=server, kubectl debug --replace) is read", async () => {
    await make("pb");
    const dry = await raw("DELETE", `${CMS}/pb`, encodeObject(options({ dryRun: ["All"], propagationPolicy: "Background" })), { "Content-Type": PB });
    expectCode(dry, 200, "DELETE pb dry run (protobuf)");
    expect(await exists("pb")).toBe(true);
    const wrongUid = await raw("DELETE", `${CMS}/pb`, encodeObject(options({ preconditions: { uid: "not-its-uid" } })), { "Content-Type": PB });
    expectStatus(wrongUid, 409, "Conflict", "DELETE pb with a precondition (protobuf)");
    expectCode(await raw("DELETE", `${CMS}/pb`, encodeObject(options({ gracePeriodSeconds: 0 })), { "Content-Type": PB }), 200, "DELETE pb (protobuf)");
    expect(await exists("pb")).toBe(false);
  });

  test("YAML and JSON bodies; with a body the query's options are not read", async () => {
    await make("yaml");
    expectCode(await raw("DELETE", `${CMS}/yaml`, "apiVersion: v1\nkind: DeleteOptions\ndryRun: [All]\n", { "Content-Type": "application/yaml" }), 200, "DELETE yaml dry run");
    expect(await exists("yaml")).toBe(true);
    expectCode(await raw("DELETE", `${CMS}/yaml?dryRun=All`, "{}", { "Content-Type": "application/json" }), 200, "DELETE yaml with a body and ?dryRun");
    expect(await exists("yaml")).toBe(false);
  });

  test("a body that is not DeleteOptions, or misspells a field's type → 400 and nothing is deleted", async () => {
    await make("notopts");
    expectStatus(await raw("DELETE", `${CMS}/notopts`, encodeObject(cm("x")), { "Content-Type": PB }), 400, "BadRequest", "DELETE with a ConfigMap body");
    const cases: [string, unknown][] = [["dryRun", "All"], ["gracePeriodSeconds", "0"], ["orphanDependents", "true"], ["propagationPolicy", 1], ["preconditions", ["uid"]]];
    for (const [field, value] of cases) {
      const r = await raw("DELETE", `${CMS}/notopts`, JSON.stringify({ [field]: value }), { "Content-Type": "application/json" });
      expect(expectStatus(r, 400, "BadRequest", `DELETE with ${field}: ${JSON.stringify(value)}`).message).toStartWith(`DeleteOptions in version "v1" cannot be handled as a DeleteOptions: ${field} must be`);
    }
    expect(await exists("notopts")).toBe(true);
  });
});

describe("texts upstream gives for what it cannot decode", () => {
  test("a body that is not JSON, sent without a Content-Type", async () => {
    const yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: yaml-ns\n";
    const r = await raw("POST", "/api/v1/namespaces", yaml);
    expect(r.headers.get("content-type")).toBe("application/json");
    const st = expectStatus(r, 400, "BadRequest", "POST namespace as YAML without Content-Type");
    const hex = Buffer.from(yaml.slice(0, 30)).toString("hex");
    expect(st.message).toBe(`the object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json parse error: invalid character 'a' looking for beginning of value (${hex} ...)`);
  });

  test("broken JSON and JSON that is not an object", async () => {
    const cases: [string, string][] = [
      ['{"metadata": {"name": "x",}}', `invalid character '}' looking for beginning of object key string ({"metadata": {"name": "x",}})`],
      ["", "unexpected end of JSON input (<empty>)"],
      ['{"kind": 7}', `json: cannot unmarshal number into Go struct field .kind of type string ({"kind": 7})`],
      ["[1]", `json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)`],
    ];
    for (const [body, why] of cases) {
      const st = expectStatus(await raw("POST", CMS, body, { "Content-Type": "application/json" }), 400, "BadRequest", `POST ${body}`);
      expect(st.message).toBe(`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${why}`);
    }
  });

  test("a strategic merge patch setting metadata.labels to a string", async () => {
    await make("labels");
    const r = await raw("PATCH", `${CMS}/labels`, JSON.stringify({ metadata: { labels: "oops" } }), { "Content-Type": "application/strategic-merge-patch+json" });
    const st = expectStatus(r, 422, "Invalid", "strategic patch labels: string");
    expect(st.message).toBe(` "" is invalid: patch: Invalid value: "map[metadata:map[labels:oops]]": cannot restore map from string`);
    expect(st.details.causes).toEqual([{ reason: "FieldValueInvalid", field: "patch", message: `Invalid value: "map[metadata:map[labels:oops]]": cannot restore map from string` }]);
    const ann = await raw("PATCH", `${CMS}/labels`, JSON.stringify({ metadata: { annotations: { a: 1 } } }), { "Content-Type": "application/strategic-merge-patch+json" });
    expect(expectStatus(ann, 422, "Invalid", "strategic patch annotation: 1").message).toEndWith("cannot convert int64 to string");
    const merge = await raw("PATCH", `${CMS}/labels`, JSON.stringify({ metadata: { labels: ["a"] } }), { "Content-Type": "application/merge-patch+json" });
    const ms = expectStatus(merge, 422, "Invalid", "merge patch labels: [a]");
    expect(ms.details.causes[0].field).toBe("patch");
    expect(ms.message).toEndWith("cannot restore map from slice");
    expect((await s.call("GET", `${CMS}/labels`)).body.metadata.labels).toBeUndefined();
  });
});
