// The conversion table's rows against golden files (test/fixtures/convert/): each <name>.in.yaml names its
// target on its first line (`# --output-version G/V`) and converts to <name>.out.yaml, with exactly the
// warnings and errors <name>.notes lists (`warning FIELD` / `error FIELD`). Round trips: an object at the
// hub goes to the old version and back unchanged, and so does the old version's (defaulted) object. An input at
// the hub (`<name>-from-v1`) checks the way back to the old version the same way.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifests } from "../../pkg/cli/manifests.ts";
import { parseApiVersion, rowOf } from "../../pkg/convert/index.ts";
import { convertObject, parseOutputVersion } from "../../pkg/convert/manifest.ts";
import type { Notes } from "../../pkg/convert/table.ts";
import { ROOT } from "../helpers/server.ts";

const DIR = join(ROOT, "test/fixtures/convert");
const names = readdirSync(DIR).filter((f) => f.endsWith(".in.yaml")).map((f) => f.slice(0, -".in.yaml".length)).sort();
const read = (f: string) => { try { return readFileSync(join(DIR, f), "utf8"); } catch { return undefined; } };

async function one(text: string, source: string) {
  const docs = await parseManifests(text, source);
  expect(docs.length).toBe(1);
  expect(docs[0].error).toBeUndefined();
  return docs[0].obj!;
}

/** Every field of `a` is in `b` with the same value (`b` may hold more: defaults written out). */
function expectWithin(a: unknown, b: unknown, path: string) {
  if (typeof a !== "object" || a === null) return expect({ path, v: b }).toEqual({ path, v: a });
  if (Array.isArray(a)) {
    expect({ path, n: (b as unknown[])?.length }).toEqual({ path, n: a.length });
    return a.forEach((x, i) => expectWithin(x, (b as unknown[])[i], `${path}[${i}]`));
  }
  for (const [k, v] of Object.entries(a)) expectWithin(v, (b as Record<string, unknown>)?.[k], `${path}.${k}`);
}

const silent: Notes = { warn() {}, error(field, message) { throw new Error(`${field}: ${message}`); } };

test("every removed-versions row of §9.3 this table serves has a golden file", () => {
  const covered = new Set(names.map((n) => n.replace(/-(no-selector|no-labels|usages|legacy|errors|webhook|empty|none|duplicate|from-v1)$/, "")));
  for (const row of ["networkpolicy-extensions-v1beta1", "daemonset-extensions-v1beta1", "daemonset-apps-v1beta2",
    "deployment-extensions-v1beta1", "deployment-apps-v1beta1", "deployment-apps-v1beta2", "statefulset-apps-v1beta1",
    "statefulset-apps-v1beta2", "replicaset-extensions-v1beta1", "replicaset-apps-v1beta2", "podsecuritypolicy-extensions-v1beta1",
    "mutatingwebhookconfiguration-v1beta1", "validatingwebhookconfiguration-v1beta1", "customresourcedefinition-v1beta1",
    "subjectaccessreview-v1beta1", "localsubjectaccessreview-v1beta1", "selfsubjectaccessreview-v1beta1", "selfsubjectrulesreview-v1beta1",
    "certificatesigningrequest-v1beta1", "ingress-extensions-v1beta1", "ingress-networking-v1beta1", "endpointslice-v1beta1",
    "event-v1beta1", "poddisruptionbudget-v1beta1", "cronjob-v1beta1", "lease-v1beta1", "role-v1beta1", "rolebinding-v1beta1",
    "clusterrole-v1beta1", "clusterrolebinding-v1beta1", "priorityclass-v1beta1", "storageclass-v1beta1", "csidriver-v1beta1",
    "csinode-v1beta1", "volumeattachment-v1beta1", "runtimeclass-v1beta1", "ingressclass-v1beta1", "apiservice-v1beta1",
    "tokenreview-v1beta1", "horizontalpodautoscaler-v2beta1", "horizontalpodautoscaler-v2beta2"]) expect({ row, covered: covered.has(row) }).toEqual({ row, covered: true });
});

for (const name of names) {
  test(`golden: ${name}`, async () => {
    const text = read(`${name}.in.yaml`)!;
    const target = /^# --output-version (\S+)/.exec(text)?.[1];
    expect(target).toBeDefined();
    const to = parseOutputVersion(target!);
    if (to instanceof Error) throw to;
    const input = await one(text, `${name}.in.yaml`);
    const r = convertObject(structuredClone(input), to);
    expect(r.converted).toBe(true);
    const notes = [...r.warnings.map((n) => `warning ${n.field}`), ...r.errors.map((n) => `error ${n.field}`)];
    expect(notes).toEqual((read(`${name}.notes`) ?? "").split("\n").filter(Boolean));
    const out = read(`${name}.out.yaml`);
    if (r.errors.length) return expect(out).toBeUndefined();
    expect(r.obj).toEqual(await one(out!, `${name}.out.yaml`));

    // Round trips through the old version's row: hub → old → hub, and old → hub → old for its defaulted form.
    const from = parseApiVersion(input.apiVersion);
    const fromRow = rowOf(from.group, from.version, input.kind);
    const row = fromRow ?? rowOf(to.group, to.version, input.kind)!;
    const atHub = fromRow ? r.obj : input;
    const old = row.fromHub(atHub, silent);
    expect(old.apiVersion).toBe(fromRow ? input.apiVersion : r.obj.apiVersion);
    expect(row.toHub(structuredClone(old), silent)).toEqual(atHub);
    expect(row.fromHub(row.toHub(structuredClone(old), silent), silent)).toEqual(old);
    // Nothing of the input is lost: back at its version, every field it had is there with its value.
    expectWithin(input, fromRow ? row.fromHub(r.obj, silent) : row.toHub(r.obj, silent), "");
  });
}

test("rows do not change their input", async () => {
  const input = await one(read("deployment-extensions-v1beta1.in.yaml")!, "x");
  const copy = structuredClone(input);
  convertObject(input, { group: "apps", version: "v1" });
  expect(input).toEqual(copy);
});

test("from the hub back to the old versions: v1 fields go back to their old names", async () => {
  const hub = await one(read("ingress-extensions-v1beta1.out.yaml")!, "x");
  const back = convertObject(hub, { group: "extensions", version: "v1beta1" });
  expect(back.obj.spec.backend).toEqual({ serviceName: "fallback", servicePort: 80 });
  expect(back.obj.spec.rules[0].http.paths[0].backend).toEqual({ serviceName: "web", servicePort: "http" });
  // One hop from one old version to another goes through the hub.
  const other = convertObject(await one(read("ingress-extensions-v1beta1.in.yaml")!, "x"), { group: "networking.k8s.io", version: "v1beta1" });
  expect(other.obj.apiVersion).toBe("networking.k8s.io/v1beta1");
  expect(other.obj.spec.backend).toEqual({ serviceName: "fallback", servicePort: 80 });
  // A v1 CRD whose versions share a schema reads back with v1beta1's top-level validation.
  const crd = convertObject(await one(read("customresourcedefinition-v1beta1.out.yaml")!, "x"), { group: "apiextensions.k8s.io", version: "v1beta1" });
  expect(crd.obj.spec.version).toBe("v1");
  expect(crd.obj.spec.validation.openAPIV3Schema.type).toBe("object");
  expect(crd.obj.spec.additionalPrinterColumns[0].JSONPath).toBe(".spec.cronSpec");
  expect(crd.obj.spec.versions).toEqual([{ name: "v1", served: true, storage: true }]);
});

test("the PDB selectors whose meaning differs map both ways", () => {
  const pdb = (apiVersion: string, selector: unknown) => ({ apiVersion, kind: "PodDisruptionBudget", metadata: { name: "p" }, spec: { selector } });
  // v1's {} (every pod) reads at v1beta1 as "the marker label does not exist" (every pod), and comes back as {}.
  const all = convertObject(pdb("policy/v1", {}), { group: "policy", version: "v1beta1" }).obj;
  expect(all.spec.selector.matchExpressions[0].operator).toBe("DoesNotExist");
  expect(convertObject(all, { group: "policy", version: "v1" }).obj.spec.selector).toEqual({});
  // The marker never combines with a user's requirements.
  const mixed = { matchLabels: { a: "b" }, matchExpressions: [{ key: "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match", operator: "Exists" }] };
  expect(convertObject(pdb("policy/v1beta1", mixed), { group: "policy", version: "v1" }).obj.spec.selector).toEqual({ matchLabels: { a: "b" } });
});

test("--output-version: the short group form, the core group, and malformed values", () => {
  expect(parseOutputVersion("networking/v1")).toEqual({ group: "networking.k8s.io", version: "v1" });
  expect(parseOutputVersion("apps/v1")).toEqual({ group: "apps", version: "v1" });
  expect(parseOutputVersion("admissionregistration/v1")).toEqual({ group: "admissionregistration.k8s.io", version: "v1" });
  expect(parseOutputVersion("v1")).toEqual({ group: "", version: "v1" });
  expect(parseOutputVersion("a/b/c")).toBeInstanceOf(Error);
  expect(parseOutputVersion("apps/")).toBeInstanceOf(Error);
});

test("a kind with no row to the target is returned unchanged, marked unconverted", () => {
  const svc = { apiVersion: "v1", kind: "Service", metadata: { name: "s" } };
  const r = convertObject(svc, { group: "apps", version: "v1" });
  expect(r.converted).toBe(false);
  expect(r.obj).toBe(svc);
  // Without a target, an object already at its stable version stays as it is.
  expect(convertObject(svc, undefined)).toMatchObject({ converted: true, obj: svc });
});
