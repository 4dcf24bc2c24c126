// Protobuf at every served beta version, as upstream serves it at every built-in version: an object
// written at its hub (JSON) is read, listed and watched in protobuf at the beta version, and Kite's own
// decoder gives back exactly what the JSON read at that version gives; a protobuf body creates at the beta
// version. Also the access reviews, which are create-only.
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { apiVersionOf, dropEmpty, expectCode, minimalBody, pathFor, until, useServer } from "./fixtures.ts";
import { decodeObject, decodeWatchFrames, encodeObject } from "../../pkg/protobuf/index.ts";
import { SERVED } from "../../pkg/registry/served.ts";
import type { ResourceDef } from "../../pkg/registry/types.ts";

const NS = "beta-pb";
const PB = "application/vnd.kubernetes.protobuf";
let s: TestServer;
useServer(NS, (x) => { s = x; });

const ingressRules = [{
  host: "example.com",
  http: { paths: [{ path: "/a", pathType: "Prefix", backend: { service: { name: "svc", port: { name: "http" } } } }] },
}];
/** Hub bodies richer than the minimal ones, so the fields a beta version moves or renames are on the wire. */
const RICHER: Record<string, (name: string) => Record<string, unknown>> = {
  "networking.k8s.io/Ingress": () => ({
    spec: { defaultBackend: { service: { name: "svc", port: { number: 80 } } }, tls: [{ hosts: ["example.com"], secretName: "tls" }], rules: ingressRules },
  }),
  "discovery.k8s.io/EndpointSlice": () => ({
    addressType: "IPv4", ports: [{ port: 80, protocol: "TCP", name: "http" }],
    endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true }, nodeName: "node-1", zone: "zone-a", hostname: "h1" }],
  }),
  "autoscaling/HorizontalPodAutoscaler": () => ({
    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
  }),
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": (name) => ({
    webhooks: [{
      name: `${name}.example.com`, clientConfig: { url: "https://127.0.0.1:1/never" }, sideEffects: "None", admissionReviewVersions: ["v1"],
      failurePolicy: "Ignore", rules: [{ operations: ["CREATE"], apiGroups: ["example.com"], apiVersions: ["v1"], resources: ["nothings"] }],
    }],
  }),
};

/** Every served non-hub version with a collection (the create-only reviews are tested apart). */
const BETAS = SERVED.filter((d) => d.conversion && (!d.verbs || d.verbs.includes("watch")));
const hubOf = (d: ResourceDef) => SERVED.find((h) => !h.conversion && h.group === d.conversion!.hub.group && h.version === d.conversion!.hub.version && h.kind === d.conversion!.hub.kind)!;

function hubBody(hub: ResourceDef, name: string): any {
  const body = minimalBody(hub, name, NS);
  const richer = RICHER[`${hub.group}/${hub.kind}`];
  return richer ? { ...body, ...richer(name), metadata: body.metadata } : body;
}

const bytesOf = async (r: Response) => new Uint8Array(await r.arrayBuffer());

/** The watch events (protobuf) at `path` from `rv`, until one shows `name` at resourceVersion `at`. */
async function watchFor(path: string, rv: string, name: string, at: string): Promise<any> {
  const res = await s.req(`${path}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}`, { headers: { Accept: PB } });
  expect([res.status, res.headers.get("content-type")]).toEqual([200, `${PB};stream=watch`]);
  const reader = res.body!.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  const deadline = Date.now() + 20_000;
  try {
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      const joined = new Uint8Array(pending.length + value.length);
      joined.set(pending);
      joined.set(value, pending.length);
      const { events, rest } = decodeWatchFrames(joined);
      pending = rest;
      const hit = events.find((e) => e.object.metadata?.name === name && e.object.metadata.resourceVersion === at);
      if (hit) return hit;
    }
  } finally {
    await reader.cancel();
  }
  throw new Error(`no watch event for ${name} at ${path}`);
}

describe("protobuf at every served beta version", () => {
  test("the table covers the versions whose fields differ from their hub's", () => {
    const labels = BETAS.map((d) => `${apiVersionOf(d)} ${d.kind}`);
    for (const want of [
      "batch/v1beta1 CronJob", "autoscaling/v2beta1 HorizontalPodAutoscaler", "autoscaling/v2beta2 HorizontalPodAutoscaler",
      "networking.k8s.io/v1beta1 Ingress", "extensions/v1beta1 Ingress", "discovery.k8s.io/v1beta1 EndpointSlice",
      "events.k8s.io/v1beta1 Event", "policy/v1beta1 PodDisruptionBudget", "certificates.k8s.io/v1beta1 CertificateSigningRequest",
      "apiextensions.k8s.io/v1beta1 CustomResourceDefinition", "admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration",
    ]) expect(labels).toContain(want);
  });

  for (const beta of BETAS) {
    test(`${apiVersionOf(beta)} ${beta.kind}: written at ${apiVersionOf(beta.conversion!.hub)}, read, listed, watched and created in protobuf`, async () => {
      const hub = hubOf(beta);
      const name = `pb-${beta.version}-${beta.group.split(".")[0] || "core"}`.toLowerCase();
      const collection = pathFor(beta, NS);
      const before = await s.call("GET", pathFor(hub, NS));
      expectCode(before, 200, "list at the hub");
      const made = await s.call("POST", pathFor(hub, NS), hubBody(hub, name));
      expectCode(made, 201, `create at ${apiVersionOf(hub)}`);
      const stored = made.body.metadata.name as string;

      // controllers may still write the object (a CRD's conditions): read, get in protobuf and list at one resourceVersion
      const { json, pb, listed } = (await until(async () => {
        const json = await s.call("GET", pathFor(beta, NS, stored));
        expectCode(json, 200, "JSON read at the beta version");
        const got = await s.req(pathFor(beta, NS, stored), { headers: { Accept: PB } });
        expect([got.status, got.headers.get("content-type")]).toEqual([200, PB]);
        const pb = decodeObject(await bytesOf(got));
        const list = await s.req(collection, { headers: { Accept: PB } });
        expect([list.status, list.headers.get("content-type")]).toEqual([200, PB]);
        const items = decodeObject(await bytesOf(list));
        expect([items.apiVersion, items.kind]).toEqual([apiVersionOf(beta), `${beta.kind}List`]);
        const listed = items.items.find((i: any) => i.metadata.name === stored);
        const rv = json.body.metadata.resourceVersion;
        return pb.metadata.resourceVersion === rv && listed?.metadata.resourceVersion === rv ? { json, pb, listed } : null;
      }, `${stored} read, got in protobuf and listed at one resourceVersion`))!;
      expect(json.body.apiVersion).toBe(apiVersionOf(beta));
      expect(dropEmpty(pb)).toEqual(dropEmpty(json.body));
      expect(dropEmpty({ apiVersion: apiVersionOf(beta), kind: beta.kind, ...listed })).toEqual(dropEmpty(json.body));

      const event = await watchFor(collection, before.body.metadata.resourceVersion, stored, json.body.metadata.resourceVersion);
      expect(event.type).toBe(json.body.metadata.resourceVersion === made.body.metadata.resourceVersion ? "ADDED" : "MODIFIED");
      expect(dropEmpty(event.object)).toEqual(dropEmpty(json.body));

      // the beta version's own form, sent back as protobuf once the object is gone, creates it again
      expectCode(await s.call("DELETE", pathFor(hub, NS, stored)), 200, "delete at the hub");
      await until(async () => (await s.call("GET", pathFor(hub, NS, stored))).status === 404, `${stored} gone`);
      const { metadata, status: _status, ...rest } = json.body;
      const again = { ...rest, metadata: { name: stored, labels: metadata.labels } };
      const created = await s.req(collection, { method: "POST", headers: { "Content-Type": PB, Accept: PB }, body: encodeObject(again) });
      if (created.status !== 201) throw new Error(`protobuf create: ${created.status} ${await created.text()}`);
      const back = decodeObject(await bytesOf(created));
      expect([back.apiVersion, back.metadata.name]).toEqual([apiVersionOf(beta), stored]);
      const atHub = await s.call("GET", pathFor(hub, NS, stored));
      expectCode(atHub, 200, "the protobuf create read at the hub");
      expect(dropEmpty(atHub.body.spec ?? null)).toEqual(dropEmpty(made.body.spec ?? null));
    });
  }
});

describe("create-only kinds", () => {
  test("access reviews at v1beta1 in protobuf: `group` is on the wire and the answer decodes", async () => {
    const review = (kind: string, spec: Record<string, unknown>, ns = "") => ({
      apiVersion: "authorization.k8s.io/v1beta1", kind, metadata: ns ? { namespace: ns } : {}, spec,
    });
    const attrs = { namespace: NS, verb: "get", resource: "pods" };
    const cases: [string, string, any][] = [
      ["/apis/authorization.k8s.io/v1beta1/subjectaccessreviews", "SubjectAccessReview", review("SubjectAccessReview", { user: "alice", group: ["system:masters"], resourceAttributes: attrs })],
      [`/apis/authorization.k8s.io/v1beta1/namespaces/${NS}/localsubjectaccessreviews`, "LocalSubjectAccessReview", review("LocalSubjectAccessReview", { user: "bob", group: ["nobody"], resourceAttributes: attrs }, NS)],
      ["/apis/authorization.k8s.io/v1beta1/selfsubjectaccessreviews", "SelfSubjectAccessReview", review("SelfSubjectAccessReview", { resourceAttributes: attrs })],
      ["/apis/authorization.k8s.io/v1beta1/selfsubjectrulesreviews", "SelfSubjectRulesReview", review("SelfSubjectRulesReview", { namespace: NS })],
    ];
    const answers: Record<string, any> = {};
    for (const [path, kind, body] of cases) {
      const r = await s.req(path, { method: "POST", headers: { "Content-Type": PB, Accept: PB }, body: encodeObject(body) });
      if (r.status !== 201) throw new Error(`${kind}: ${r.status} ${await r.text()}`);
      expect(r.headers.get("content-type")).toBe(PB);
      answers[kind] = decodeObject(await bytesOf(r));
      expect([answers[kind].apiVersion, answers[kind].kind]).toEqual(["authorization.k8s.io/v1beta1", kind]);
    }
    // v1beta1's `group` (v1: `groups`) went to the server and came back
    expect(answers.SubjectAccessReview.spec.group).toEqual(["system:masters"]);
    expect(answers.LocalSubjectAccessReview.spec).toMatchObject({ user: "bob", group: ["nobody"], resourceAttributes: attrs });
    expect(answers.SubjectAccessReview.status.allowed).toBe(true);
    expect(answers.SelfSubjectAccessReview.status.allowed).toBe(true);
    expect(answers.SelfSubjectRulesReview.status.resourceRules.length).toBeGreaterThan(0);
  });
});
