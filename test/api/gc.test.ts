// Garbage collection of dependents by propagationPolicy: Background, Orphan, Foreground.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
const cms = "/api/v1/namespaces/default/configmaps";
beforeAll(async () => { s = await startServer(); });
afterAll(() => s.stop());

async function family(tag: string) {
  const owner = (await s.call("POST", cms, { metadata: { name: `${tag}-owner` } })).body;
  const ref = { apiVersion: "v1", kind: "ConfigMap", name: owner.metadata.name, uid: owner.metadata.uid };
  for (const i of [1, 2]) {
    const r = await s.call("POST", cms, { metadata: { name: `${tag}-dep${i}`, ownerReferences: [ref] } });
    expect(r.status).toBe(201);
  }
  return owner;
}

async function until(cond: () => Promise<boolean>, ms = 5000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(50);
  }
}
const exists = async (name: string) => (await s.call("GET", `${cms}/${name}`)).status === 200;

test("Background: the owner goes at once and its dependents follow", async () => {
  await family("bg");
  const r = await s.call("DELETE", `${cms}/bg-owner`, { propagationPolicy: "Background" });
  expect(r.status).toBe(200);
  expect(await exists("bg-owner")).toBe(false);
  await until(async () => !(await exists("bg-dep1")) && !(await exists("bg-dep2")));
});

test("Orphan: dependents stay, without the owner reference; then the owner goes", async () => {
  await family("or");
  const r = await s.call("DELETE", `${cms}/or-owner`, { propagationPolicy: "Orphan" });
  expect(r.status).toBe(200);
  await until(async () => !(await exists("or-owner")));
  for (const d of ["or-dep1", "or-dep2"]) {
    const dep = await s.call("GET", `${cms}/${d}`);
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  }
});

test("Foreground: the owner waits, marked for deletion, until its dependents are gone", async () => {
  await family("fg");
  const r = await s.call("DELETE", `${cms}/fg-owner`, { propagationPolicy: "Foreground" });
  expect(r.status).toBe(200);
  expect(r.body.metadata.deletionTimestamp).toBeTruthy();
  expect(r.body.metadata.finalizers).toContain("foregroundDeletion");
  await until(async () => !(await exists("fg-owner")));
  expect(await exists("fg-dep1")).toBe(false);
  expect(await exists("fg-dep2")).toBe(false);
});

test("a dependent with another living owner only loses the deleted owner's reference", async () => {
  const a = (await s.call("POST", cms, { metadata: { name: "two-a" } })).body;
  const b = (await s.call("POST", cms, { metadata: { name: "two-b" } })).body;
  const ref = (o: any) => ({ apiVersion: "v1", kind: "ConfigMap", name: o.metadata.name, uid: o.metadata.uid });
  await s.call("POST", cms, { metadata: { name: "two-dep", ownerReferences: [ref(a), ref(b)] } });
  await s.call("DELETE", `${cms}/two-a`);
  await until(async () => (await s.call("GET", `${cms}/two-dep`)).body.metadata.ownerReferences?.length === 1);
  expect((await s.call("GET", `${cms}/two-dep`)).body.metadata.ownerReferences[0].name).toBe("two-b");
});
