// The fieldValidation parameter (Ignore, Warn, Strict) on create, update, every patch type and apply, with
// upstream's messages and warnings (its integration test's bodies), against a real `kite apiserver`.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { encodeObject } from "../../pkg/protobuf/index.ts";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, type Reply, useServer } from "./fixtures.ts";

setDefaultTimeout(30_000);
const NS = "fieldval";
const DEPLOYS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
let s: TestServer;
useServer(NS, (started) => (s = started));

async function send(method: string, path: string, body: string | Uint8Array, type = "application/json"): Promise<Reply> {
  const r = await s.req(path, { method, body, headers: { "Content-Type": type } });
  const text = await r.text();
  let parsed: any = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body: parsed, headers: r.headers };
}
/** The texts of the response's `299` warnings, in order. */
const warnings = (r: Reply) => [...(r.headers.get("warning") ?? "").matchAll(/299 - ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]));
const q = (v?: string) => (v === undefined ? "" : `?fieldValidation=${v}`);

const invalidJSON = (name: string) => `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {
    "name": "dupename",
    "name": "${name}",
    "labels": {"app": "nginx"},
    "unknownMeta": "metaVal"
  },
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {
        "containers": [{
          "name": "nginx",
          "image": "nginx:latest",
          "unknownNested": "val1",
          "imagePullPolicy": "Always",
          "imagePullPolicy": "Never"
        }]
      }
    }
  }
}`;
const JSON_PROBLEMS = [
  `duplicate field "metadata.name"`, `unknown field "metadata.unknownMeta"`, `unknown field "spec.unknown1"`,
  `unknown field "spec.unknownDupe"`, `duplicate field "spec.paused"`,
  `unknown field "spec.template.spec.containers[0].unknownNested"`, `duplicate field "spec.template.spec.containers[0].imagePullPolicy"`,
];

const invalidYAML = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: ${name}
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never`;
const YAML_LINES = [
  `line 5: key "name" already set in map`, `line 12: key "unknownDupe" already set in map`,
  `line 14: key "paused" already set in map`, `line 28: key "imagePullPolicy" already set in map`,
];
const YAML_UNKNOWN = [
  `unknown field "metadata.unknownMeta"`, `unknown field "spec.template.spec.containers[0].unknownNested"`,
  `unknown field "spec.unknown1"`, `unknown field "spec.unknownDupe"`,
];
const YAML_STRICT = `strict decoding error: yaml: unmarshal errors:\n  ${YAML_LINES.join("\n  ")}, ${YAML_UNKNOWN.join(", ")}`;

const validDeploy = (name: string) => ({
  apiVersion: "apps/v1", kind: "Deployment", metadata: { name, labels: { app: "nginx" } },
  spec: { selector: { matchLabels: { app: "nginx" } }, template: { metadata: { labels: { app: "nginx" } }, spec: { containers: [{ name: "nginx", image: "nginx:latest", imagePullPolicy: "Always" }] } } },
});

/** The stored Deployment has none of the unknown fields and the last of each repeated one. */
async function expectCleanDeployment(name: string) {
  const g = await s.call("GET", `${DEPLOYS}/${name}`);
  expectCode(g, 200, `GET ${name}`);
  expect(g.body.metadata.unknownMeta).toBeUndefined();
  expect(g.body.spec.unknown1).toBeUndefined();
  expect(g.body.spec.unknownDupe).toBeUndefined();
  expect(g.body.spec.paused).toBeFalsy();
  expect(g.body.spec.template.spec.containers[0].unknownNested).toBeUndefined();
  expect(g.body.spec.template.spec.containers[0].imagePullPolicy).toBe("Never");
}

describe("create and update", () => {
  const cases: [string, "json" | "yaml", string | undefined][] = [
    ["strict", "json", "Strict"], ["warn", "json", "Warn"], ["ignore", "json", "Ignore"], ["default", "json", undefined],
    ["strict-yaml", "yaml", "Strict"], ["warn-yaml", "yaml", "Warn"], ["ignore-yaml", "yaml", "Ignore"], ["default-yaml", "yaml", undefined],
  ];
  for (const [label, format, v] of cases) {
    test(`POST and PUT, ${label}`, async () => {
      const name = `post-${label}`;
      const body = format === "json" ? invalidJSON(name) : invalidYAML(name);
      const type = format === "json" ? "application/json" : "application/yaml";
      const problems = format === "json" ? JSON_PROBLEMS : [...YAML_LINES, ...YAML_UNKNOWN];
      const strictMsg = format === "json" ? `strict decoding error: ${JSON_PROBLEMS.join(", ")}` : YAML_STRICT;
      for (const [method, path] of [["POST", DEPLOYS], ["PUT", `${DEPLOYS}/${name}`]] as const) {
        if (method === "PUT" && v === "Strict") expectCode(await s.call("POST", DEPLOYS, validDeploy(name)), 201, "create for PUT");
        const r = await send(method, path + q(v), body, type);
        if (v === "Strict") {
          const st = expectStatus(r, 400, "BadRequest", `${method} ${label}`);
          expect(st.message).toBe(`Deployment in version "v1" cannot be handled as a Deployment: ${strictMsg}`);
          if (method === "POST") expectCode(await s.call("GET", `${DEPLOYS}/${name}`), 404, "nothing stored");
          continue;
        }
        expectCode(r, method === "POST" ? 201 : 200, `${method} ${label}`);
        expect(warnings(r)).toEqual(v === "Ignore" ? [] : problems);
        await expectCleanDeployment(name);
      }
    });
  }

  test("a ConfigMap's top-level typo, and metadata's", async () => {
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "typo", labelz: { a: "b" } }, dataa: { k: "v" } });
    const st = expectStatus(await send("POST", CMS + q("Strict"), body), 400, "BadRequest", "strict");
    expect(st.message).toBe(`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.labelz", unknown field "dataa"`);
    const w = await send("POST", CMS, body);
    expectCode(w, 201, "warn");
    expect(warnings(w)).toEqual([`unknown field "metadata.labelz"`, `unknown field "dataa"`]);
    expect(w.body.dataa).toBeUndefined();
    expect(w.body.metadata.labelz).toBeUndefined();
  });

  test("repeated keys of a map of strings are duplicates; a protobuf body has none", async () => {
    const r = await send("POST", CMS + q("Strict"), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dupdata"},"data":{"a":"1","a":"2"}}`);
    expect(expectStatus(r, 400, "BadRequest", "strict").message).toEndWith(`strict decoding error: duplicate field "data.a"`);
    const pb = encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pb" }, data: { a: "1" } });
    const p = await send("POST", CMS + q("Strict"), pb, "application/vnd.kubernetes.protobuf");
    expectCode(p, 201, "protobuf create");
    expect(warnings(p)).toEqual([]);
  });

  test("free-form values are not unknown: RawExtension, apiextensions JSON", async () => {
    const cr = { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "rev" }, revision: 1, data: { anything: { goes: [1, { here: true }] } } };
    const r = await send("POST", `/apis/apps/v1/namespaces/${NS}/controllerrevisions${q("Strict")}`, JSON.stringify(cr));
    expectCode(r, 201, "ControllerRevision");
    expect(r.body.data).toEqual(cr.data);
  });

  test("an unsupported value is refused as upstream refuses it", async () => {
    const r = await send("POST", CMS + q("Bogus"), JSON.stringify({ metadata: { name: "bogus" } }));
    const st = expectStatus(r, 422, "Invalid", "bogus");
    expect(st.message).toBe(`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"`);
    const p = await send("PATCH", `${CMS}/x${q("strict")}`, "{}", "application/merge-patch+json");
    expect(expectStatus(p, 422, "Invalid", "lowercase").message).toStartWith(`PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict"`);
  });

  test("a value of the wrong type is named as upstream's decoder names it", async () => {
    const d = { ...validDeploy("three"), spec: { ...validDeploy("three").spec, replicas: "three" } };
    const r = await send("POST", DEPLOYS, JSON.stringify(d));
    expect(expectStatus(r, 400, "BadRequest", "replicas").message).toBe(`Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`);
    const c = structuredClone(validDeploy("ports"));
    (c.spec.template.spec.containers[0] as any).ports = [{ containerPort: 1.5 }];
    expect(expectStatus(await send("POST", DEPLOYS, JSON.stringify(c)), 400, "BadRequest", "port").message)
      .toEndWith(`json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32`);
    const m = await send("POST", CMS, JSON.stringify({ metadata: { name: "m", labels: { a: 1 } } }));
    expect(expectStatus(m, 400, "BadRequest", "label").message).toStartWith(`ConfigMap in version "v1" cannot be handled as a ConfigMap: `);
  });
});

describe("patches", () => {
  const mergeBody = `{"spec": {
    "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2", "paused": true, "paused": false,
    "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
      "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}`;
  const MERGE = [
    `duplicate field "spec.unknownDupe"`, `duplicate field "spec.paused"`, `duplicate field "spec.template.spec.containers[0].imagePullPolicy"`,
    `unknown field "spec.template.spec.containers[0].unknownNested"`, `unknown field "spec.unknown1"`, `unknown field "spec.unknownDupe"`,
  ];
  const jsonPatch = `[
    {"op": "add", "path": "/spec/unknown1", "value": "val1", "foo": "bar"},
    {"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
    {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
    {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
    {"op": "add", "path": "/spec/paused", "value": true},
    {"op": "add", "path": "/spec/paused", "value": false},
    {"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
    {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
    {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}]`;
  const JSON_PATCH = [
    `json patch unknown field "[0].foo"`, `json patch duplicate field "[1].path"`,
    `unknown field "spec.template.spec.containers[0].unknownNested"`, `unknown field "spec.unknown1"`,
    `unknown field "spec.unknown3"`, `unknown field "spec.unknownDupe"`,
  ];
  const kinds: [string, string, string, string[]][] = [
    ["merge", "application/merge-patch+json", mergeBody, MERGE],
    ["strategic", "application/strategic-merge-patch+json", mergeBody, MERGE],
    ["json", "application/json-patch+json", jsonPatch, JSON_PATCH],
  ];
  for (const [label, type, body, problems] of kinds) {
    for (const v of ["Strict", "Warn", "Ignore", undefined]) {
      test(`${label} patch, ${v ?? "default"}`, async () => {
        const name = `patch-${label}-${(v ?? "default").toLowerCase()}`;
        expectCode(await s.call("POST", DEPLOYS, validDeploy(name)), 201, "create");
        const r = await send("PATCH", `${DEPLOYS}/${name}${q(v)}`, body, type);
        if (v === "Strict") {
          expect(expectStatus(r, 400, "BadRequest", `${label} strict`).message).toBe(`strict decoding error: ${problems.join(", ")}`);
          const g = await s.call("GET", `${DEPLOYS}/${name}`);
          expect(g.body.spec.template.spec.containers[0].imagePullPolicy).toBe("Always");
          return;
        }
        expectCode(r, 200, `${label} ${v}`);
        expect(warnings(r)).toEqual(v === "Ignore" ? [] : problems);
        const g = await s.call("GET", `${DEPLOYS}/${name}`);
        expect(g.body.spec.unknown1).toBeUndefined();
        expect(g.body.spec.template.spec.containers[0].unknownNested).toBeUndefined();
        expect(g.body.spec.template.spec.containers[0].imagePullPolicy).toBe("Never");
      });
    }
  }
});

describe("server-side apply", () => {
  const applyBody = (name: string) => `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {
    "name": "${name}",
    "labels": {"app": "nginx"}
  },
  "spec": {
    "paused": false,
    "paused": true,
    "selector": {
      "matchLabels": {
        "app": "nginx"
      }
    },
    "template": {
      "metadata": {
        "labels": {
          "app": "nginx"
        }
      },
      "spec": {
        "containers": [{
          "name": "nginx",
          "image": "nginx:latest",
          "imagePullPolicy": "Never",
          "imagePullPolicy": "Always"
        }]
      }
    }
  }
}`;
  const LINES = [`line 10: key "paused" already set in map`, `line 27: key "imagePullPolicy" already set in map`];
  for (const v of ["Strict", "Warn", "Ignore", undefined]) {
    test(`repeated keys, ${v ?? "default"}`, async () => {
      const name = `apply-${(v ?? "default").toLowerCase()}`;
      const path = `${DEPLOYS}/${name}?fieldManager=mgr${v ? `&fieldValidation=${v}` : ""}`;
      const r = await send("PATCH", path, applyBody(name), "application/apply-patch+yaml");
      if (v === "Strict") {
        expect(expectStatus(r, 400, "BadRequest", "apply strict").message).toBe(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${LINES.join("\n  ")}`);
        expectCode(await s.call("GET", `${DEPLOYS}/${name}`), 404, "nothing stored");
        return;
      }
      expectCode(r, 201, `apply ${v}`);
      expect(warnings(r)).toEqual(v === "Ignore" ? [] : LINES);
      expect(r.body.spec.paused).toBe(true);
    });
  }

  test("unknown fields are refused whatever the directive", async () => {
    const cfg = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, dataa: { k: "v" } };
    const r = await send("PATCH", `${CMS}/applied?fieldManager=mgr&fieldValidation=Ignore`, JSON.stringify(cfg), "application/apply-patch+yaml");
    expect(expectStatus(r, 400, "BadRequest", "apply unknown").message).toBe(`failed to create typed patch object (${NS}/applied; /v1, Kind=ConfigMap): .dataa: field not declared in schema`);
  });
});
