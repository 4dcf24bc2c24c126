// The userspace proxy's choices: which endpoint a connection gets (round-robin, ClientIP affinity and its
// timeout, a failed dial moving on, endpoints that go losing their clients), and the node's address when
// --node-ip is not given (upstream kubelet's order, then Kite's fallback).
import { expect, test } from "bun:test";
import { RoundRobin } from "../../pkg/nodeagent/proxy/balancer.ts";
import { chooseNodeIP, defaultRouteInterface } from "../../pkg/nodeagent/nodeaddress.ts";

const ep = (port: number) => ({ ip: "10.1.0.5", port });
const ports = (rr: RoundRobin, client: string, n: number, reset = false) => Array.from({ length: n }, () => rr.pick(client, reset)?.port);

test("round-robin over the endpoints; none gives no endpoint", () => {
  const rr = new RoundRobin();
  expect(rr.pick("1.1.1.1")).toBeUndefined();
  rr.update([ep(1), ep(2), ep(3)], 0);
  expect(ports(rr, "1.1.1.1", 4)).toEqual([1, 2, 3, 1]);
  // an unchanged set keeps the rotation where it was; a changed one starts it again
  rr.update([ep(3), ep(1), ep(2)], 0);
  expect(ports(rr, "1.1.1.1", 1)).toEqual([2]);
  rr.update([ep(1), ep(3)], 0);
  expect(ports(rr, "1.1.1.1", 3)).toEqual([1, 3, 1]);
});

test("ClientIP affinity keeps a client on its endpoint until the timeout, a reset or the endpoint's removal", () => {
  let now = 0;
  const rr = new RoundRobin(10, () => now);
  rr.update([ep(1), ep(2)], 10);
  expect(ports(rr, "1.1.1.1", 3)).toEqual([1, 1, 1]);
  expect(ports(rr, "2.2.2.2", 2)).toEqual([2, 2]);
  // each use renews the timeout
  now = 9_000;
  expect(ports(rr, "1.1.1.1", 1)).toEqual([1]);
  now = 18_000;
  expect(ports(rr, "1.1.1.1", 1)).toEqual([1]);
  // idle longer than the timeout: the rotation decides again
  now = 40_000;
  expect(ports(rr, "1.1.1.1", 2)).toEqual([1, 1]);
  // a failed dial asks again with reset: the next endpoint, which the client then keeps
  expect(ports(rr, "1.1.1.1", 1, true)).toEqual([2]);
  expect(ports(rr, "1.1.1.1", 1)).toEqual([2]);
  // its endpoint gone, the client gets another; a client whose endpoint stays keeps it
  rr.update([ep(1), ep(3)], 10);
  expect(ports(rr, "1.1.1.1", 2)).toEqual([1, 1]);
  rr.update([ep(1), ep(3), ep(4)], 10);
  expect(ports(rr, "1.1.1.1", 1)).toEqual([1]);
});

const ROUTES = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth1\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
`;

test("the node's address: node name as IP, its DNS address on this host, the default route's interface, any interface, loopback", () => {
  const interfaces = { lo: ["127.0.0.1"], eth1: ["192.168.0.7"], eth0: ["192.0.2.2"] };
  expect(defaultRouteInterface(ROUTES)).toBe("eth0");
  const cases: [string, string[], Record<string, string[]>, string, string][] = [
    ["10.9.9.9", [], interfaces, ROUTES, "10.9.9.9"],
    ["node", ["192.168.0.7"], interfaces, ROUTES, "192.168.0.7"],
    // loopback, link-local and addresses of other hosts are not the node's
    ["node", ["127.0.1.1", "169.254.1.1", "203.0.113.9"], interfaces, ROUTES, "192.0.2.2"],
    ["node", [], interfaces, "Iface\tDestination\n", "192.168.0.7"],
    ["node", [], { lo: ["127.0.0.1"] }, "", "127.0.0.1"],
  ];
  for (const [name, resolved, ifs, routes, want] of cases) expect(chooseNodeIP(name, { resolved, interfaces: ifs, routes })).toBe(want);
});
