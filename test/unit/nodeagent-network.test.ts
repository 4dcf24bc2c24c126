// The node agent's pod addresses and pod range: the lowest free address of the range (never its network,
// gateway or broadcast address), kept on disk across agents, freed for reuse, host-local's words when
// none is left; the range from the Node, else --pod-cidr, else the default; the network flags.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { AddressBook } from "../../pkg/nodeagent/network/addresses.ts";
import { DEFAULT_POD_CIDR, podCIDR } from "../../pkg/nodeagent/network/start.ts";
import { NODE_AGENT_ARGS } from "../../pkg/nodeagent/flags.ts";
import { nodeAgentOptions } from "../../pkg/nodeagent/options.ts";
import { parseIPv4Range } from "../../pkg/util/ipv4.ts";
import { tempDir } from "../helpers/processes.ts";

test("addresses: lowest free first, held per pod, on disk for the next agent, released for reuse, none left is an error", () => {
  const dir = tempDir("kite-ipam-");
  const book = new AddressBook(dir, parseIPv4Range("10.1.2.0/29"));
  expect([book.gateway, book.prefixLength]).toEqual(["10.1.2.1", 29]);
  expect(["a", "b", "a"].map((uid) => book.allocate(uid))).toEqual(["10.1.2.2", "10.1.2.3", "10.1.2.2"]);
  expect(readFileSync(`${dir}/10.1.2.3`, "utf8")).toBe("b");

  const next = new AddressBook(dir, parseIPv4Range("10.1.2.0/29"));
  expect([next.lookup("a"), next.lookup("b"), next.owners().sort()]).toEqual(["10.1.2.2", "10.1.2.3", ["a", "b"]]);
  next.release("a");
  expect(readdirSync(dir)).toEqual(["10.1.2.3"]);
  expect(["c", "d", "e", "f"].map((uid) => next.allocate(uid))).toEqual(["10.1.2.2", "10.1.2.4", "10.1.2.5", "10.1.2.6"]);
  // 10.1.2.7 is the broadcast address
  expect(() => next.allocate("g")).toThrow("no IP addresses available in range set: 10.1.2.2-10.1.2.6");
});

test("the pod range: the Node's IPv4 one, else --pod-cidr, else the default", () => {
  const node = (spec: Record<string, unknown>) => ({ spec });
  expect(podCIDR(node({ podCIDR: "fd00::/64", podCIDRs: ["fd00::/64", "10.3.0.0/24"] }), "10.9.0.0/24")).toEqual({ cidr: "10.3.0.0/24", from: "the Node's spec.podCIDR" });
  expect(podCIDR(node({ podCIDR: "fd00::/64" }), "10.9.0.0/24")).toEqual({ cidr: "10.9.0.0/24", from: "--pod-cidr" });
  expect(podCIDR(undefined, undefined)).toEqual({ cidr: DEFAULT_POD_CIDR, from: "the default" });
  expect(DEFAULT_POD_CIDR).toBe("10.244.0.0/24");
});

test("flags: --pod-cidr an IPv4 CIDR, --pod-network bridge or host", () => {
  const a = { ...Object.fromEntries(Object.entries(NODE_AGENT_ARGS).flatMap(([k, d]) => ("default" in d ? [[k, d.default]] : []))), "root-dir": "/tmp/r" };
  expect(nodeAgentOptions({ ...a, "pod-cidr": "10.5.0.0/16" })).toMatchObject({ podCIDR: "10.5.0.0/16", podNetwork: "bridge" });
  expect(nodeAgentOptions({ ...a, "pod-network": "host" }).podNetwork).toBe("host");
  expect(() => nodeAgentOptions({ ...a, "pod-cidr": "10.5.0.0" })).toThrow(`invalid argument "10.5.0.0" for "--pod-cidr" flag`);
  expect(() => nodeAgentOptions({ ...a, "pod-network": "cni" })).toThrow(`invalid argument "cni" for "--pod-network" flag: must be one of bridge, host`);
});
