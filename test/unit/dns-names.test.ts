// How cluster DNS reads names (CoreDNS kubernetes plugin's parseRequest), and the server's answers built
// from stores directly: truncation over UDP, EDNS sizes, opcodes it does not serve.
import { expect, test } from "bun:test";
import * as packet from "dns-packet";
import { Store } from "../../pkg/client/store.ts";
import { parseUpstream } from "../../pkg/dns/forward.ts";
import { endpointLabel, inDomain, parseName, podIP } from "../../pkg/dns/names.ts";
import { ClusterRecords } from "../../pkg/dns/records.ts";
import { DNSServer } from "../../pkg/dns/server.ts";

const D = "cluster.local";
const rec = (kind: string, namespace: string, service = "", endpoint = "", port = "*", protocol = "*") => ({ type: "record", kind, namespace, service, endpoint, port, protocol });

test.each([
  [D, { type: "apex" }],
  [`svc.${D}.`, { type: "apex" }],
  [`pod.${D}`, { type: "apex" }],
  [`default.svc.${D}`, rec("svc", "default")],
  [`web.default.svc.${D}`, rec("svc", "default", "web")],
  [`Web.Default.SVC.${D.toUpperCase()}.`, rec("svc", "default", "web")],
  [`db-0.db.default.svc.${D}`, rec("svc", "default", "db", "db-0")],
  [`_http._tcp.web.default.svc.${D}`, rec("svc", "default", "web", "", "http", "tcp")],
  [`http.tcp.web.default.svc.${D}`, rec("svc", "default", "web", "", "http", "tcp")],
  [`10-0-0-1.kube-system.pod.${D}`, rec("pod", "kube-system", "10-0-0-1")],
  [`a.b.c.web.default.svc.${D}`, { type: "invalid" }],
  [`web.default.other.${D}`, { type: "invalid" }],
] as const)("parseName(%p)", (name, want) => {
  expect(parseName(name, D)).toEqual(want as never);
});

test("inDomain compares whole labels, without regard to case or a trailing dot", () => {
  expect(inDomain(`web.default.svc.${D}.`, D)).toBe(true);
  expect(inDomain("CLUSTER.LOCAL", D)).toBe(true);
  expect(inDomain("notcluster.local", D)).toBe(false);
  expect(inDomain("local", D)).toBe(false);
  expect(inDomain("example.com", D)).toBe(false);
});

test("pod names spell IPv4 with four dashed parts and IPv6 with dashes for colons", () => {
  expect(podIP("10-244-0-5")).toBe("10.244.0.5");
  expect(podIP("fd00--1")).toBe("fd00::1");
  expect(podIP("10-244-0-500")).toBeUndefined();
  expect(podIP("web")).toBeUndefined();
  expect(endpointLabel({ ip: "10.1.0.5", hostname: "db-0" })).toBe("db-0");
  expect(endpointLabel({ ip: "10.1.0.5" })).toBe("10-1-0-5");
  expect(endpointLabel({ ip: "fd00::5" })).toBe("fd00--5");
});

test("upstreams and listen addresses: host, host:port, [v6]:port; port 53 when unsaid", () => {
  expect(parseUpstream("10.0.0.10")).toEqual({ host: "10.0.0.10", port: 53 });
  expect(parseUpstream("127.0.0.1:5353")).toEqual({ host: "127.0.0.1", port: 5353 });
  expect(parseUpstream("fd00::1")).toEqual({ host: "fd00::1", port: 53 });
  expect(parseUpstream("[fd00::1]:5353")).toEqual({ host: "fd00::1", port: 5353 });
});

/** A server over stores holding a headless Service of n ready endpoints. */
function serverWith(n: number): DNSServer {
  const services = new Store(), endpoints = new Store(), namespaces = new Store();
  namespaces.upsert({ metadata: { name: "default" } });
  services.upsert({ metadata: { name: "big", namespace: "default" }, spec: { clusterIP: "None" } });
  const addresses = Array.from({ length: n }, (_, i) => ({ ip: `10.2.${i >> 8}.${i & 255}` }));
  endpoints.upsert({ metadata: { name: "big", namespace: "default" }, subsets: [{ addresses }] });
  return new DNSServer({ host: "127.0.0.1", port: 0, upstreams: [], records: new ClusterRecords({ services, endpoints, namespaces }, D) });
}

const ask = (name: string, type: string, udpPayloadSize?: number) => packet.encode({
  type: "query", id: 7, flags: packet.RECURSION_DESIRED, questions: [{ name, type: type as never }],
  additionals: udpPayloadSize ? [{ type: "OPT", name: ".", udpPayloadSize } as packet.Answer] : [],
});

test("a UDP answer too large for the client is truncated (TC) and whole over TCP; EDNS raises the limit", async () => {
  const server = serverWith(60);
  const name = `big.default.svc.${D}`;
  const udp = packet.decode((await server.handle(ask(name, "A"), false))!);
  expect(udp.flag_tc).toBe(true);
  expect(udp.answers).toEqual([]);
  const tcp = packet.decode((await server.handle(ask(name, "A"), true))!);
  expect(tcp.flag_tc).toBe(false);
  expect(tcp.answers!.length).toBe(60);
  const edns = packet.decode((await server.handle(ask(name, "A", 4096), false))!);
  expect(edns.flag_tc).toBe(false);
  expect(edns.answers!.length).toBe(60);
  expect(edns.additionals!.map((a) => a.type)).toEqual(["OPT"]);
});

test("no answer to a response; FORMERR for garbage and NOTIMP for other opcodes, with the query's id", async () => {
  const server = serverWith(1);
  const q = ask(`big.default.svc.${D}`, "A");
  const response = Buffer.from(q);
  response[2] |= 0x80;
  expect(await server.handle(response, false)).toBeUndefined();
  const garbage = Buffer.concat([q.subarray(0, 12), Buffer.from([0xff, 0xff])]);
  const formerr = packet.decode((await server.handle(garbage, false))!) as packet.DecodedPacket & { rcode: string };
  expect([formerr.id, formerr.rcode]).toEqual([7, "FORMERR"]);
  const notify = Buffer.from(q);
  notify[2] |= 4 << 3;
  const notimp = packet.decode((await server.handle(notify, false))!) as packet.DecodedPacket & { rcode: string };
  expect(notimp.rcode).toBe("NOTIMP");
});

test("SOA at the zone apex answers; other types there are NODATA", async () => {
  const server = serverWith(1);
  const soa = packet.decode((await server.handle(ask(D, "SOA"), false))!);
  expect(soa.answers!.map((a) => a.type)).toEqual(["SOA"]);
  const a = packet.decode((await server.handle(ask(D, "A"), false))!) as packet.DecodedPacket & { rcode: string };
  expect([a.rcode, a.answers!.length, a.authorities!.map((x) => x.type)]).toEqual(["NOERROR", 0, ["SOA"]]);
});
