// The checks every kind shares (names, labels, ports, quantities, Go-printed values), seen through a few
// kinds: one wording for each, upstream's, whichever kind a bad value comes in.
import { expect, setDefaultTimeout, test } from "bun:test";
import { BUILTIN } from "../../pkg/registry/builtin.ts";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, expectStatus, minimalBody, pathFor, useServer } from "./fixtures.ts";

setDefaultTimeout(60_000);

const NS = "shared-checks";
const def = (kind: string, group = "") => BUILTIN.find((d) => d.kind === kind && d.group === group)!;
const SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

let s: TestServer;
useServer(NS, (started) => (s = started));

/** POSTs a valid object of the kind with `change` applied. */
async function post(kind: string, name: string, change: (o: any) => void, group = "") {
  const o = minimalBody(def(kind, group), name, NS);
  change(o);
  return s.call("POST", pathFor(def(kind, group), NS), o);
}

/** The messages of the causes at field, from a 422. */
function messages(r: { status: number; body: any; headers: Headers }, field: string, what: string): string[] {
  const st = expectStatus(r, 422, "Invalid", what);
  return (st.details?.causes ?? []).filter((c: any) => c.field === field).map((c: any) => c.message);
}

test("a label key's prefix is reported in IsQualifiedName's words, in metadata and in a pod's nodeSelector alike", async () => {
  const want = [`Invalid value: "Bad_Prefix/x": prefix part ${SUBDOMAIN}`];
  const cm = await post("ConfigMap", "bad-prefix", (o) => { o.metadata.labels = { "Bad_Prefix/x": "y" }; });
  expect(messages(cm, "metadata.labels", "ConfigMap label")).toEqual(want);
  const pod = await post("Pod", "bad-prefix", (o) => { o.spec.nodeSelector = { "Bad_Prefix/x": "y" }; });
  expect(messages(pod, "spec.nodeSelector", "Pod nodeSelector")).toEqual(want);
});

test("a label value both too long and badly formed gets both messages", async () => {
  const v = `${"a".repeat(63)}!`;
  const r = await post("ConfigMap", "long-value", (o) => { o.metadata.labels = { k: v }; });
  expect(messages(r, "metadata.labels", "ConfigMap label value")).toEqual([
    `Invalid value: "${v}": must be no more than 63 characters`, `Invalid value: "${v}": ${LABEL_VALUE}`,
  ]);
});

test("an annotation key is checked lower-cased, so its prefix may have capitals", async () => {
  expectCode(await post("ConfigMap", "upper-annotation", (o) => { o.metadata.annotations = { "Example.com/Owner": "me" }; }), 201, "ConfigMap annotation");
});

test("an env var's config key may not start with '..' (IsConfigMapKey, as for the ConfigMap's own keys)", async () => {
  const r = await post("Pod", "dotdot-key", (o) => {
    o.spec.containers[0].env = [{ name: "A", valueFrom: { configMapKeyRef: { name: "cm", key: "..a" } } }];
  });
  expect(messages(r, "spec.containers[0].env[0].valueFrom.configMapKeyRef.key", "env key")).toEqual([`Invalid value: "..a": must not start with '..'`]);
});

test("a quota name standard to upstream is only refused as not a container resource", async () => {
  const r = await post("Pod", "quota-name", (o) => { o.spec.containers[0].resources = { limits: { "requests.cpu": "1" } }; });
  expect(messages(r, "spec.containers[0].resources.limits[requests.cpu]", "container resource")).toEqual([
    `Invalid value: "requests.cpu": must be a standard resource for containers`,
  ]);
});

test("a quantity upstream cannot parse is a 400 in a ResourceQuota too, as in a container", async () => {
  const r = await post("ResourceQuota", "bad-quantity", (o) => { o.spec = { hard: { cpu: "lots" } }; });
  const st = expectStatus(r, 400, "BadRequest", "ResourceQuota with cpu: lots");
  expect(st.message).toContain("quantities must match the regular expression");
  expectCode(await s.call("GET", pathFor(def("ResourceQuota"), NS, "bad-quantity")), 404, "the refused quota");
});

test("a slice in a message is printed as Go's %#v prints it, not quoted", async () => {
  const cidrs = ["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"];
  const r = await post("Node", "three-cidrs", (o) => { o.spec = { podCIDRs: cidrs }; });
  expect(messages(r, "spec.podCIDRs", "Node podCIDRs")).toEqual([
    `Invalid value: []string{"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"}: may specify no more than one CIDR for each IP family`,
  ]);
});

test("a label selector query with a bad key is refused in IsQualifiedName's words", async () => {
  const r = await s.call("GET", `${pathFor(def("ConfigMap"), NS)}?labelSelector=${encodeURIComponent("Bad_Prefix/x=y")}`);
  const st = expectStatus(r, 400, "BadRequest", "list with a bad selector");
  expect(st.message).toContain(`invalid label key "Bad_Prefix/x": prefix part ${SUBDOMAIN}`);
});

test("a wildcard host too long is told its length, as any subdomain is (IsWildcardDNS1123Subdomain)", async () => {
  const host = `*.${Array(26).fill("abcdefghi").join(".")}`;
  const r = await post("Ingress", "long-wildcard", (o) => {
    o.spec = { rules: [{ host, http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] } }] };
  }, "networking.k8s.io");
  expect(messages(r, "spec.rules[0].host", "Ingress host")).toEqual([`Invalid value: "${host}": must be no more than 253 characters`]);
});
