// Services' cluster IPs and node ports (--service-cluster-ip-range, --service-node-port-range): handed
// out free and in range, the ones asked for checked against both, kept across updates, freed on delete.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KITE, type TestServer, startServer } from "../helpers/server.ts";
import { createNamespace, expectCode, expectStatus } from "./fixtures.ts";

const NS = "svc";
const BASE = `/api/v1/namespaces/${NS}/services`;
const svc = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } });
const inDefaultRange = (ip: string) => /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/.test(ip);

describe("service addresses, default ranges", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    await createNamespace(s, NS);
  });
  afterAll(async () => { await s?.stop(); });

  test("each Service gets its own cluster IP in 10.96.0.0/12", async () => {
    const made = await Promise.all(Array.from({ length: 30 }, (_, i) => s.call("POST", BASE, svc(`a${i}`))));
    made.forEach((r, i) => expectCode(r, 201, `POST a${i}`));
    const ips = made.map((r) => r.body.spec.clusterIP as string);
    expect(new Set(ips).size).toBe(30);
    expect(ips.every(inDefaultRange)).toBe(true);
    expect(made.every((r) => r.body.spec.clusterIPs[0] === r.body.spec.clusterIP)).toBe(true);
  });

  test("a cluster IP asked for must be free and in range; a deleted Service's IP is free again", async () => {
    const a = await s.call("POST", BASE, svc("ip-a", { clusterIP: "10.96.100.7" }));
    expectCode(a, 201, "POST ip-a");
    expect(a.body.spec.clusterIP).toBe("10.96.100.7");
    const taken = expectStatus(await s.call("POST", BASE, svc("ip-b", { clusterIP: "10.96.100.7" })), 422, "Invalid", "POST ip-b with a taken IP");
    expect(taken.message).toContain("failed to allocate IP 10.96.100.7: provided IP is already allocated");
    expect(taken.details.causes[0].field).toBe("spec.clusterIPs");
    const outside = expectStatus(await s.call("POST", BASE, svc("ip-c", { clusterIP: "192.168.1.1" })), 422, "Invalid", "POST ip-c out of range");
    expect(outside.message).toContain("provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12");
    // a dry run of the same address holds nothing
    expectCode(await s.call("POST", `${BASE}?dryRun=All`, svc("ip-d", { clusterIP: "10.96.100.8" })), 201, "dry-run POST ip-d");
    expectCode(await s.call("POST", BASE, svc("ip-e", { clusterIP: "10.96.100.8" })), 201, "POST ip-e after the dry run");
    expectCode(await s.call("DELETE", `${BASE}/ip-a`), 200, "DELETE ip-a");
    const again = await s.call("POST", BASE, svc("ip-f", { clusterIP: "10.96.100.7" }));
    expectCode(again, 201, "POST ip-f with the deleted Service's IP");
    // headless Services take no address
    const headless = await s.call("POST", BASE, svc("headless", { clusterIP: "None" }));
    expectCode(headless, 201, "POST headless");
    expect(headless.body.spec.clusterIPs).toEqual(["None"]);
  });

  test("concurrent creates asking for one address: exactly one gets it", async () => {
    const rs = await Promise.all(["race-a", "race-b", "race-c"].map((n) => s.call("POST", BASE, svc(n, { clusterIP: "10.96.200.1" }))));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 422, 422]);
  });

  test("NodePort Services get node ports in 30000-32767; ones asked for must be free and in range; updates keep them", async () => {
    const np = await s.call("POST", BASE, svc("np-a", { type: "NodePort", ports: [{ port: 80, name: "http" }, { port: 443, name: "https", nodePort: 30443 }] }));
    expectCode(np, 201, "POST np-a");
    const [p80, p443] = np.body.spec.ports;
    expect(p80.nodePort).toBeGreaterThanOrEqual(30000);
    expect(p80.nodePort).toBeLessThanOrEqual(32767);
    expect(p443.nodePort).toBe(30443);
    const taken = expectStatus(await s.call("POST", BASE, svc("np-b", { type: "NodePort", ports: [{ port: 80, nodePort: 30443 }] })), 422, "Invalid", "POST np-b with a taken port");
    expect(taken.details.causes[0]).toMatchObject({ field: "spec.ports[0].nodePort", message: "Invalid value: 30443: provided port is already allocated" });
    const outside = expectStatus(await s.call("POST", BASE, svc("np-c", { type: "NodePort", ports: [{ port: 80, nodePort: 8080 }] })), 422, "Invalid", "POST np-c out of range");
    expect(outside.message).toContain("provided port is not in the valid range. The range of valid ports is 30000-32767");
    // an update that names nothing new keeps the addresses it has
    const cur = (await s.call("GET", `${BASE}/np-a`)).body;
    const upd = await s.call("PUT", `${BASE}/np-a`, { ...cur, metadata: { ...cur.metadata, labels: { x: "1" } } });
    expectCode(upd, 200, "PUT np-a");
    expect(upd.body.spec.clusterIP).toBe(cur.spec.clusterIP);
    expect(upd.body.spec.ports.map((p: any) => p.nodePort)).toEqual([p80.nodePort, 30443]);
    // a ClusterIP Service has none
    expect((await s.call("GET", `${BASE}/a0`)).body.spec.ports[0].nodePort).toBeUndefined();
  });
});

describe("service addresses, ranges from the flags", () => {
  test("--service-cluster-ip-range and --service-node-port-range are where addresses come from", async () => {
    const s = await startServer(["--service-cluster-ip-range=10.0.0.0/24", "--service-node-port-range=31000-31001"]);
    try {
      await createNamespace(s, NS);
      const r = await s.call("POST", BASE, svc("x", { type: "NodePort" }));
      expectCode(r, 201, "POST x");
      expect(r.body.spec.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
      expect([31000, 31001]).toContain(r.body.spec.ports[0].nodePort);
      const out = expectStatus(await s.call("POST", BASE, svc("y", { clusterIP: "10.96.0.5" })), 422, "Invalid", "POST y out of the flag's range");
      expect(out.message).toContain("The range of valid IPs is 10.0.0.0/24");
      expectCode(await s.call("POST", BASE, svc("z", { type: "NodePort" })), 201, "POST z: the other port");
      const full = expectStatus(await s.call("POST", BASE, svc("w", { type: "NodePort" })), 422, "Invalid", "POST w: no port left");
      expect(full.details.causes[0].field).toBe("spec.ports[0].nodePort");
    } finally {
      await s.stop();
    }
  });

  test("a malformed range is a usage error", async () => {
    for (const flag of ["--service-cluster-ip-range=10.0.0.0", "--service-node-port-range=40000-30000"]) {
      const p = Bun.spawn([...KITE, "apiserver", flag], { stdout: "pipe", stderr: "pipe" });
      const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
      expect(code).toBe(2);
      expect(err).toContain(`for "${flag.split("=")[0]}" flag`);
    }
  });
});
