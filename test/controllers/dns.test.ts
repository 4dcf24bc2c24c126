// Cluster DNS against a real API server: Services and Endpoints written by the test, answers read over
// UDP and TCP with dns-packet; other names forwarded to a fake resolver on loopback.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type * as packet from "dns-packet";
import { runClusterDNS } from "../../pkg/dns/run.ts";
import { clientFor } from "../helpers/client.ts";
import { dataOf, query, rcode, startFakeUpstream, type FakeUpstream } from "../helpers/dns.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let upstream: FakeUpstream;
let port: number;
let webIP: string;
const stop = new AbortController();
const D = "cluster.local";

async function create(path: string, body: unknown) {
  const r = await s.call("POST", path, body);
  expect(r.status).toBe(201);
  return r.body;
}

/** Polls until the name has A records (the informers saw the change). */
async function addressesOf(name: string, want: (ips: unknown[]) => boolean): Promise<unknown[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ips = dataOf((await query(port, name, "A")).answers, "A");
    if (want(ips) || Date.now() > deadline) return ips;
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  s = await startServer();
  upstream = await startFakeUpstream({ "example.test": "192.0.2.7", "ext.example.test": "192.0.2.8" });
  const web = await create("/api/v1/namespaces/default/services", {
    metadata: { name: "web" }, spec: { ports: [{ name: "http", port: 80, protocol: "TCP" }, { name: "dns", port: 53, protocol: "UDP" }] },
  });
  webIP = web.spec.clusterIP;
  await create("/api/v1/namespaces/default/services", {
    metadata: { name: "db" }, spec: { clusterIP: "None", ports: [{ name: "pg", port: 5432 }] },
  });
  await create("/api/v1/namespaces/default/endpoints", {
    metadata: { name: "db" },
    subsets: [{
      addresses: [{ ip: "10.1.0.5", hostname: "db-0" }, { ip: "10.1.0.6" }],
      notReadyAddresses: [{ ip: "10.1.0.7" }],
      ports: [{ name: "pg", port: 5432, protocol: "TCP" }],
    }],
  });
  await create("/api/v1/namespaces/default/services", {
    metadata: { name: "ext" }, spec: { type: "ExternalName", externalName: "ext.example.test" },
  });
  const dns = await runClusterDNS(await clientFor(s), { listen: "127.0.0.1:0", domain: D, upstreams: [`127.0.0.1:${upstream.port}`] }, stop.signal);
  port = dns.port;
}, 60_000);

afterAll(async () => {
  stop.abort();
  upstream?.stop();
  await s?.stop();
});

test("a Service's name is its ClusterIP, over UDP and TCP, authoritative with a 5 s TTL", async () => {
  for (const tcp of [false, true]) {
    const r = await query(port, `web.default.svc.${D}`, "A", tcp);
    expect(rcode(r)).toBe("NOERROR");
    expect(r.flag_aa).toBe(true);
    expect(dataOf(r.answers, "A")).toEqual([webIP]);
    expect((r.answers![0] as { ttl?: number }).ttl).toBe(5);
  }
  // Names match without regard to case; the answer repeats the name as asked.
  const upper = await query(port, `WEB.Default.svc.${D}`, "A");
  expect(dataOf(upper.answers, "A")).toEqual([webIP]);
  expect(upper.answers![0].name).toBe(`WEB.Default.svc.${D}`);
});

test("AAAA for an IPv4 Service is NODATA: no answers, no error, the SOA in authority", async () => {
  const r = await query(port, `web.default.svc.${D}`, "AAAA");
  expect(rcode(r)).toBe("NOERROR");
  expect(r.answers).toEqual([]);
  expect(r.authorities!.map((a) => a.type)).toEqual(["SOA"]);
});

test("SRV for a named port points at the Service's name, with its address as additional", async () => {
  const r = await query(port, `_http._tcp.web.default.svc.${D}`, "SRV", true);
  expect(dataOf(r.answers, "SRV")).toEqual([{ priority: 0, weight: 100, port: 80, target: `web.default.svc.${D}` }]);
  expect(r.additionals!.filter((a) => a.type === "A").map((a) => [a.name, (a as { data: string }).data])).toEqual([[`web.default.svc.${D}`, webIP]]);
  const udpPort = await query(port, `_dns._udp.web.default.svc.${D}`, "SRV");
  expect(dataOf(udpPort.answers, "SRV")).toEqual([{ priority: 0, weight: 100, port: 53, target: `web.default.svc.${D}` }]);
  // The protocol must match too.
  expect(rcode(await query(port, `_http._udp.web.default.svc.${D}`, "SRV"))).toBe("NXDOMAIN");
});

test("a headless Service answers its ready endpoints, each also by hostname or dashed IP", async () => {
  const all = await query(port, `db.default.svc.${D}`, "A");
  expect(dataOf(all.answers, "A").sort()).toEqual(["10.1.0.5", "10.1.0.6"]);
  expect(dataOf((await query(port, `db-0.db.default.svc.${D}`, "A")).answers, "A")).toEqual(["10.1.0.5"]);
  expect(dataOf((await query(port, `10-1-0-6.db.default.svc.${D}`, "A")).answers, "A")).toEqual(["10.1.0.6"]);
  expect(rcode(await query(port, `10-1-0-7.db.default.svc.${D}`, "A"))).toBe("NXDOMAIN");
  const srv = await query(port, `_pg._tcp.db.default.svc.${D}`, "SRV");
  const targets = dataOf(srv.answers, "SRV") as { target: string; port: number; weight: number }[];
  expect(targets.map((t) => t.target).sort()).toEqual([`10-1-0-6.db.default.svc.${D}`, `db-0.db.default.svc.${D}`]);
  expect(targets.every((t) => t.port === 5432 && t.weight === 50)).toBe(true);
});

test("a pod's dashed IP in an existing namespace is its A record", async () => {
  expect(dataOf((await query(port, `10-244-1-7.default.pod.${D}`, "A")).answers, "A")).toEqual(["10.244.1.7"]);
  expect(rcode(await query(port, `10-244-1-7.nosuchns.pod.${D}`, "A"))).toBe("NXDOMAIN");
  expect(rcode(await query(port, `not-an-ip.default.pod.${D}`, "A"))).toBe("NXDOMAIN");
});

test("unknown names in the cluster domain are NXDOMAIN with the zone's SOA", async () => {
  for (const name of [`nope.default.svc.${D}`, `web.default.svc.default.svc.${D}`, `foo.${D}`]) {
    const r = await query(port, name, "A");
    expect(rcode(r)).toBe("NXDOMAIN");
    const soa = r.authorities!.find((a) => a.type === "SOA") as packet.SoaAnswer;
    expect(soa.name).toBe(D);
    expect(soa.data).toMatchObject({ mname: `ns.dns.${D}`, rname: `hostmaster.${D}`, minimum: 5 });
  }
  // An existing namespace without a service name is there, with nothing in it (NODATA).
  expect(rcode(await query(port, `default.svc.${D}`, "A"))).toBe("NOERROR");
});

test("other names go to the upstream resolver, over the protocol they came in on", async () => {
  for (const tcp of [false, true]) {
    const r = await query(port, "example.test", "A", tcp);
    expect(dataOf(r.answers, "A")).toEqual(["192.0.2.7"]);
    expect(r.flag_aa).toBe(false);
  }
  expect(rcode(await query(port, "missing.test", "A"))).toBe("NXDOMAIN");
  expect(upstream.queries).toContain("missing.test A");
});

test("an ExternalName Service is a CNAME, chased through the upstream", async () => {
  const r = await query(port, `ext.default.svc.${D}`, "A");
  expect(dataOf(r.answers, "CNAME")).toEqual(["ext.example.test"]);
  expect(dataOf(r.answers, "A")).toEqual(["192.0.2.8"]);
});

test("Services created and deleted later are seen through the watch", async () => {
  const late = await create("/api/v1/namespaces/default/services", { metadata: { name: "late" }, spec: { ports: [{ port: 8080 }] } });
  expect(await addressesOf(`late.default.svc.${D}`, (ips) => ips.length > 0)).toEqual([late.spec.clusterIP]);
  expect((await s.call("DELETE", "/api/v1/namespaces/default/services/late")).status).toBe(200);
  expect(await addressesOf(`late.default.svc.${D}`, (ips) => ips.length === 0)).toEqual([]);
  expect(rcode(await query(port, `late.default.svc.${D}`, "A"))).toBe("NXDOMAIN");
});

test("a port already in use is an error at start", async () => {
  const other = new AbortController();
  const started = runClusterDNS(await clientFor(s), { listen: `127.0.0.1:${port}`, domain: D, upstreams: [] }, other.signal);
  await expect(started).rejects.toThrow(`cluster DNS: cannot listen on 127.0.0.1:${port}`);
  other.abort();
});
