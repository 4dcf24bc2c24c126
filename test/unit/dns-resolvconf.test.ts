// The resolv.conf a pod gets per dnsPolicy, as v1.21's kubelet builds it.
import { expect, test } from "bun:test";
import { formatResolvConf, parseResolvConf, podResolvConf, type NodeDNS, type PodLike } from "../../pkg/dns/resolvconf.ts";

const host = parseResolvConf(`# written by the host
nameserver 192.168.1.1
nameserver 192.168.1.2 ; second
search corp.example. lab.example .
options timeout:2 attempts:3
`);
const node: NodeDNS = { clusterDNS: ["10.96.0.10"], clusterDomain: "cluster.local", host };
const pod = (spec: PodLike["spec"] = {}): PodLike => ({ metadata: { name: "p", namespace: "team", uid: "u1" }, spec });

test("the host's resolv.conf: every nameserver, the search line without dots, the options; comments dropped", () => {
  expect(host).toEqual({ nameservers: ["192.168.1.1", "192.168.1.2"], searches: ["corp.example", "lab.example"], options: ["timeout:2", "attempts:3"] });
  expect(parseResolvConf("search a\nsearch b c\n").searches).toEqual(["b", "c"]);
});

test("ClusterFirst (the default): the cluster DNS, the namespace's search path then the host's, ndots:5", () => {
  const { conf, events } = podResolvConf(pod(), node);
  expect(formatResolvConf(conf)).toBe(
    "search team.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example\nnameserver 10.96.0.10\noptions ndots:5\n",
  );
  expect(events).toEqual([]);
});

test("ClusterFirst on the host's network is Default; ClusterFirstWithHostNet stays with the cluster", () => {
  expect(podResolvConf(pod({ hostNetwork: true }), node).conf).toEqual(host);
  expect(podResolvConf(pod({ hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" }), node).conf.nameservers).toEqual(["10.96.0.10"]);
});

test("Default is the host's resolv.conf; without one (--resolv-conf=\"\") the local resolver and no search", () => {
  expect(podResolvConf(pod({ dnsPolicy: "Default" }), node).conf).toEqual(host);
  const bare = podResolvConf(pod({ dnsPolicy: "Default" }), { ...node, host: undefined, nodeIPs: ["10.0.0.4"] }).conf;
  expect(bare).toEqual({ nameservers: ["127.0.0.1"], searches: ["."], options: [] });
});

test("None is only the pod's dnsConfig", () => {
  const { conf } = podResolvConf(pod({ dnsPolicy: "None", dnsConfig: { nameservers: ["1.1.1.1"], searches: ["x.example"], options: [{ name: "ndots", value: "2" }, { name: "edns0" }] } }), node);
  expect(formatResolvConf(conf)).toBe("search x.example\nnameserver 1.1.1.1\noptions ndots:2 edns0\n");
});

test("dnsConfig adds nameservers and searches without repeats, and its options replace the same names", () => {
  const { conf } = podResolvConf(pod({ dnsConfig: { nameservers: ["10.96.0.10", "8.8.8.8"], searches: ["cluster.local", "extra.example"], options: [{ name: "ndots", value: "1" }] } }), node);
  expect(conf.nameservers).toEqual(["10.96.0.10", "8.8.8.8"]);
  expect(conf.searches).toEqual(["team.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example", "lab.example", "extra.example"]);
  expect(conf.options).toEqual(["ndots:1"]);
});

test("without --cluster-dns a ClusterFirst pod falls back to Default, with the kubelet's event", () => {
  const { conf, events } = podResolvConf(pod(), { ...node, clusterDNS: [] });
  expect(conf).toEqual(host);
  expect(events).toEqual([{
    type: "Warning", reason: "MissingClusterDNS",
    message: `pod: "p_team(u1)". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`,
  }]);
});

test("limits: 3 nameservers, 6 search domains, 256 characters of search line, each with its event", () => {
  const many = podResolvConf(pod({ dnsConfig: { nameservers: ["1.1.1.1", "2.2.2.2", "3.3.3.3"], searches: ["a.x", "b.x", "c.x"] } }), node);
  expect(many.conf.nameservers).toEqual(["10.96.0.10", "1.1.1.1", "2.2.2.2"]);
  expect(many.conf.searches.length).toBe(6);
  expect(many.events.map((e) => e.message)).toEqual([
    "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.96.0.10 1.1.1.1 2.2.2.2",
    "Search Line limits were exceeded, some search paths have been omitted, the applied search line is: team.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example a.x",
  ]);
  const long = "l".repeat(100);
  const wide = podResolvConf(pod({ dnsPolicy: "None", dnsConfig: { nameservers: ["1.1.1.1"], searches: [`${long}.a`, `${long}.b`, `${long}.c`] } }), node);
  expect(wide.conf.searches).toEqual([`${long}.a`, `${long}.b`]);
  expect(wide.events.map((e) => e.reason)).toEqual(["DNSConfigForming"]);
});
