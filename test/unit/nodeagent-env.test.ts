// A container's environment as upstream's kubelet makes it: envFrom then env, precedence, $(VAR)
// expansion order, valueFrom from every source, optional sources, upstream's messages; service links.
import { expect, test } from "bun:test";
import { containerEnv, type EnvSources } from "../../pkg/nodeagent/env.ts";
import { serviceEnv } from "../../pkg/nodeagent/env-services.ts";
import { containerResourceValue, formatMap, podFieldValue } from "../../pkg/nodeagent/volumes/downward.ts";
import { NotFoundError, type PodObjects } from "../../pkg/nodeagent/volumes/objects.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** The objects of namespace ns, in memory (what the API server would answer). */
function objects(configMaps: Record<string, Record<string, string>>, secrets: Record<string, Record<string, string>> = {}): PodObjects {
  const found = (m: Record<string, any>, word: string, name: string, wrap: (d: any) => any) => {
    if (!(name in m)) return Promise.reject(new NotFoundError(`${word} "${name}" not found`));
    return Promise.resolve(wrap(m[name]));
  };
  return {
    configMap: (_, name) => found(configMaps, "configmap", name, (data) => ({ data })),
    secret: (_, name) => found(secrets, "secret", name, (d) => ({ data: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, b64(v as string)])) })),
    claim: () => Promise.reject(new Error("unused")),
    volume: () => Promise.reject(new Error("unused")),
    token: () => Promise.reject(new Error("unused")),
    forget: () => {},
  };
}

const pod = {
  metadata: { name: "p", namespace: "ns", uid: "u-1", labels: { app: "web", tier: "front" }, annotations: { note: 'say "hi"\n' } },
  spec: { nodeName: "n1", serviceAccountName: "robot" },
};
const addresses = { hostIP: "10.0.0.1", podIPs: ["10.1.0.5", "fd00::5"] };

function sources(o: PodObjects, warnings: string[] = [], svc = new Map<string, string>()): EnvSources {
  return { objects: o, addresses, allocatable: () => ({ cpu: 4, memory: "8Gi", "ephemeral-storage": "100Gi" }), serviceEnv: svc, warn: (r, m) => warnings.push(`${r}: ${m}`) };
}

test("envFrom (prefix, later source wins, invalid names skipped with upstream's warning), then env over it", async () => {
  const warnings: string[] = [];
  const o = objects({ a: { X: "from-a", "1BAD": "x", "ok.name": "y" }, b: { X: "from-b" } }, { s: { TOKEN: "t0p" } });
  const env = await containerEnv(pod, {
    envFrom: [{ configMapRef: { name: "a" } }, { configMapRef: { name: "b" } }, { secretRef: { name: "s" }, prefix: "S_" }, { configMapRef: { name: "gone", optional: true } }],
    env: [{ name: "X", value: "mine" }],
  }, sources(o, warnings));
  expect(Object.fromEntries(env)).toEqual({ X: "mine", "ok.name": "y", S_TOKEN: "t0p" });
  expect(warnings).toEqual(["InvalidEnvironmentVariableNames: Keys [1BAD] from the EnvFrom configMap ns/a were skipped since they are considered invalid environment variable names."]);
});

test("$(VAR) in a value sees earlier variables, envFrom's and the service variables; valueFrom values are not expanded", async () => {
  const o = objects({ c: { K: "$(A)" } });
  const env = await containerEnv(pod, {
    envFrom: [{ configMapRef: { name: "c" }, prefix: "CM_" }],
    env: [
      { name: "B", value: "$(A)-early" }, { name: "A", value: "a" }, { name: "C", value: "$(A)/$(CM_K)/$(WEB_SERVICE_HOST)/$$(A)" },
      { name: "D", valueFrom: { configMapKeyRef: { name: "c", key: "K" } } },
    ],
  }, sources(o, [], new Map([["WEB_SERVICE_HOST", "10.96.0.9"], ["A", "svc"]])));
  expect(env.get("B")).toBe("svc-early");
  expect(env.get("C")).toBe("a/$(A)/10.96.0.9/$(A)");
  expect(env.get("D")).toBe("$(A)");
  // a variable the container names itself replaces the service's, the others follow
  expect(env.get("A")).toBe("a");
  expect(env.get("WEB_SERVICE_HOST")).toBe("10.96.0.9");
});

test("valueFrom: fieldRef, resourceFieldRef (node allocatable for unset limits), configMap and secret keys", async () => {
  const o = objects({ c: { k: "v" } }, { s: { pw: "secret!" } });
  const field = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
  const res = (resource: string, divisor?: string) => ({ valueFrom: { resourceFieldRef: { resource, divisor } } });
  const c = {
    resources: { limits: { memory: "64Mi" }, requests: { cpu: "250m", memory: "32Mi" } },
    env: [
      { name: "NAME", ...field("metadata.name") }, { name: "NS", ...field("metadata.namespace") }, { name: "UID", ...field("metadata.uid") },
      { name: "APP", ...field("metadata.labels['app']") }, { name: "NOTE", ...field("metadata.annotations['note']") },
      { name: "NODE", ...field("spec.nodeName") }, { name: "SA", ...field("spec.serviceAccountName") },
      { name: "HOST_IP", ...field("status.hostIP") }, { name: "POD_IP", ...field("status.podIP") }, { name: "POD_IPS", ...field("status.podIPs") },
      { name: "CPU_LIMIT", ...res("limits.cpu") }, { name: "CPU_REQ_M", ...res("requests.cpu", "1m") }, { name: "CPU_REQ", ...res("requests.cpu") },
      { name: "MEM_MI", ...res("limits.memory", "1Mi") }, { name: "EPH", ...res("limits.ephemeral-storage", "1Gi") }, { name: "EPH_REQ", ...res("requests.ephemeral-storage") },
      { name: "CM", valueFrom: { configMapKeyRef: { name: "c", key: "k" } } }, { name: "PW", valueFrom: { secretKeyRef: { name: "s", key: "pw" } } },
      { name: "OPT", valueFrom: { configMapKeyRef: { name: "c", key: "nope", optional: true } } },
      { name: "OPT2", valueFrom: { secretKeyRef: { name: "none", key: "x", optional: true } } },
      { name: "EMPTY" },
    ],
  };
  expect(Object.fromEntries(await containerEnv(pod, c, sources(o)))).toEqual({
    NAME: "p", NS: "ns", UID: "u-1", APP: "web", NOTE: 'say "hi"\n', NODE: "n1", SA: "robot",
    HOST_IP: "10.0.0.1", POD_IP: "10.1.0.5", POD_IPS: "10.1.0.5,fd00::5",
    CPU_LIMIT: "4", CPU_REQ_M: "250", CPU_REQ: "1", MEM_MI: "64", EPH: "100", EPH_REQ: "0",
    CM: "v", PW: "secret!", EMPTY: "",
  });
});

test("missing sources fail with the kubelet's messages", async () => {
  const o = objects({ c: { k: "v" } }, { s: {} });
  const fails = (c: object) => containerEnv(pod, c, sources(o)).then(() => "", (e: Error) => e.message);
  expect(await fails({ env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "x", key: "k" } } }] })).toBe(`configmap "x" not found`);
  expect(await fails({ env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "c", key: "k2" } } }] })).toBe("couldn't find key k2 in ConfigMap ns/c");
  expect(await fails({ env: [{ name: "X", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }] })).toBe("couldn't find key k in Secret ns/s");
  expect(await fails({ envFrom: [{ secretRef: { name: "t" } }] })).toBe(`secret "t" not found`);
  expect(await fails({ env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "spec.hostname" } } }] })).toBe("unsupported fieldPath: spec.hostname");
});

test("service links: the namespace's services with a cluster IP (enableServiceLinks), default/kubernetes always", () => {
  const svc = (ns: string, name: string, clusterIP: string, ports: object[]) => ({ metadata: { namespace: ns, name }, spec: { clusterIP, ports } });
  const list = [
    svc("default", "kubernetes", "10.96.0.1", [{ name: "https", port: 443, protocol: "TCP" }]),
    svc("ns", "my-web", "10.96.0.9", [{ name: "http-alt", port: 8080, protocol: "TCP" }, { name: "dns", port: 53, protocol: "UDP" }]),
    svc("ns", "headless", "None", [{ port: 80 }]),
  ];
  expect(Object.fromEntries(serviceEnv(list, "ns", true))).toEqual({
    KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443", KUBERNETES_SERVICE_PORT_HTTPS: "443",
    KUBERNETES_PORT: "tcp://10.96.0.1:443", KUBERNETES_PORT_443_TCP: "tcp://10.96.0.1:443", KUBERNETES_PORT_443_TCP_PROTO: "tcp",
    KUBERNETES_PORT_443_TCP_PORT: "443", KUBERNETES_PORT_443_TCP_ADDR: "10.96.0.1",
    MY_WEB_SERVICE_HOST: "10.96.0.9", MY_WEB_SERVICE_PORT: "8080", MY_WEB_SERVICE_PORT_HTTP_ALT: "8080", MY_WEB_SERVICE_PORT_DNS: "53",
    MY_WEB_PORT: "tcp://10.96.0.9:8080",
    MY_WEB_PORT_8080_TCP: "tcp://10.96.0.9:8080", MY_WEB_PORT_8080_TCP_PROTO: "tcp", MY_WEB_PORT_8080_TCP_PORT: "8080", MY_WEB_PORT_8080_TCP_ADDR: "10.96.0.9",
    MY_WEB_PORT_53_UDP: "udp://10.96.0.9:53", MY_WEB_PORT_53_UDP_PROTO: "udp", MY_WEB_PORT_53_UDP_PORT: "53", MY_WEB_PORT_53_UDP_ADDR: "10.96.0.9",
  });
  expect([...serviceEnv(list, "ns", false).keys()].every((k) => k.startsWith("KUBERNETES_"))).toBe(true);
  expect(serviceEnv(list, "other", true).has("MY_WEB_SERVICE_HOST")).toBe(false);
});

test("downward API values: FormatMap of labels/annotations, resources with divisors rounding up", () => {
  expect(formatMap({ b: "2", a: 'x"y\n' })).toBe('a="x\\"y\\n"\nb="2"');
  expect(podFieldValue(pod, "metadata.labels", addresses)).toBe('app="web"\ntier="front"');
  const c = { resources: { limits: { cpu: "1500m", memory: "1G" } } };
  const alloc = { cpu: "2", memory: "4Gi" };
  expect(containerResourceValue({ resource: "limits.cpu" }, c, alloc)).toBe("2");
  expect(containerResourceValue({ resource: "limits.cpu", divisor: "100m" }, c, alloc)).toBe("15");
  expect(containerResourceValue({ resource: "limits.memory", divisor: "1Mi" }, c, alloc)).toBe("954");
  expect(containerResourceValue({ resource: "limits.memory" }, {}, alloc)).toBe(String(4 * 2 ** 30));
  expect(() => containerResourceValue({ resource: "limits.gpu" }, c, alloc)).toThrow("unsupported container resource : limits.gpu");
});
