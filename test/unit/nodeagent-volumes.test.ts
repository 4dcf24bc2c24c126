// The node agent's volume logic on a real disk: upstream's AtomicWriter layout and swaps, hostPath type
// checks, subPath/subPathExpr mounts, payloads of configMap/secret/downwardAPI/projected volumes, and the
// token manager's refresh rule.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { writeAtomically, type Payload } from "../../pkg/nodeagent/volumes/atomic.ts";
import { checkHostPath } from "../../pkg/nodeagent/volumes/hostpath.ts";
import { containerMounts } from "../../pkg/nodeagent/volumes/mounts.ts";
import { NotFoundError, type PodObjects } from "../../pkg/nodeagent/volumes/objects.ts";
import { configMapPayload, projectedPayload, secretPayload } from "../../pkg/nodeagent/volumes/payloads.ts";
import { requiresRefresh, TokenCache } from "../../pkg/nodeagent/volumes/token.ts";
import { tempDir } from "../helpers/processes.ts";

const modeOf = (p: string) => statSync(p).mode & 0o7777;
const payload = (files: Record<string, [string, number]>): Payload => new Map(Object.entries(files).map(([p, [data, mode]]) => [p, { data, mode }]));

test("AtomicWriter: ..data → a timestamped folder, top-level names through ..data, swapped whole, unchanged sets left alone", () => {
  const dir = tempDir("kite-atomic-");
  expect(writeAtomically(dir, payload({ a: ["1", 0o644], "sub/b": ["2", 0o400] }))).toBe(true);
  const ts = readlinkSync(join(dir, "..data"));
  expect(ts).toMatch(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\..+$/);
  expect(readlinkSync(join(dir, "a"))).toBe("..data/a");
  expect(readlinkSync(join(dir, "sub"))).toBe("..data/sub");
  expect(readFileSync(join(dir, "sub/b"), "utf8")).toBe("2");
  expect(modeOf(join(dir, ts, "a"))).toBe(0o644);
  expect(modeOf(join(dir, ts, "sub/b"))).toBe(0o400);
  expect(modeOf(join(dir, ts))).toBe(0o755);
  expect(writeAtomically(dir, payload({ a: ["1", 0o644], "sub/b": ["2", 0o400] }))).toBe(false);
  expect(readlinkSync(join(dir, "..data"))).toBe(ts);
  // a changed set: new folder, removed names gone, the old folder gone
  expect(writeAtomically(dir, payload({ a: ["1b", 0o644], c: ["3", 0o644] }))).toBe(true);
  expect(readlinkSync(join(dir, "..data"))).not.toBe(ts);
  expect(readFileSync(join(dir, "a"), "utf8")).toBe("1b");
  expect(readFileSync(join(dir, "c"), "utf8")).toBe("3");
  expect(existsSync(join(dir, "sub"))).toBe(false);
  expect(readdirSync(dir).sort()).toEqual(["..data", readlinkSync(join(dir, "..data")), "a", "c"].sort());
  expect(() => writeAtomically(dir, payload({ "../x": ["", 0o644] }))).toThrow("must not contain '..'");
  expect(() => writeAtomically(dir, payload({ "/x": ["", 0o644] }))).toThrow("must be relative path");
});

test("hostPath types: OrCreate creates (0755 folder, 0644 file), the others check, with upstream's messages", () => {
  const dir = tempDir("kite-hostpath-");
  checkHostPath(join(dir, "d/e"), "DirectoryOrCreate");
  expect(statSync(join(dir, "d/e")).isDirectory()).toBe(true);
  checkHostPath(join(dir, "f"), "FileOrCreate");
  expect(statSync(join(dir, "f")).isFile()).toBe(true);
  expect(modeOf(join(dir, "f")) & 0o644).toBe(0o644);
  checkHostPath(join(dir, "nothing"), "");
  checkHostPath(join(dir, "nothing"), undefined);
  checkHostPath("/dev/null", "CharDevice");
  const fails: [string, string, string][] = [
    [join(dir, "f"), "Directory", "is not a directory"], [join(dir, "f"), "DirectoryOrCreate", "is not a directory"],
    [join(dir, "d"), "File", "is not a file"], [join(dir, "d"), "FileOrCreate", "is not a file"], [join(dir, "missing"), "File", "is not a file"],
    [join(dir, "f"), "Socket", "is not a socket file"], [join(dir, "f"), "CharDevice", "is not a character device"], [join(dir, "f"), "BlockDevice", "is not a block device"],
  ];
  for (const [p, type, says] of fails) expect(() => checkHostPath(p, type)).toThrow(`hostPath type check failed: ${p} ${says}`);
  expect(() => checkHostPath(dir, "Folder")).toThrow("Folder is an invalid volume type");
});

test("mounts: subPath and subPathExpr (created with the volume's mode), read-only volumes, upstream's refusals", () => {
  const vol = tempDir("kite-mounts-");
  const volumes = new Map([["data", { path: vol, readOnly: false }], ["cfg", { path: "/cfg", readOnly: true }]]);
  const env = new Map([["POD", "p1"], ["EMPTY", ""]]);
  const c = (volumeMounts: object[]) => ({ name: "c", volumeMounts });
  expect(containerMounts(c([{ name: "data", mountPath: "/d" }, { name: "cfg", mountPath: "/c" }, { name: "data", mountPath: "/ro", readOnly: true }]), volumes, env)).toEqual([
    { hostPath: vol, containerPath: "/d", readOnly: false }, { hostPath: "/cfg", containerPath: "/c", readOnly: true }, { hostPath: vol, containerPath: "/ro", readOnly: true },
  ]);
  const [m] = containerMounts(c([{ name: "data", mountPath: "/logs", subPathExpr: "logs/$(POD)" }]), volumes, env);
  expect(m.hostPath).toBe(join(vol, "logs/p1"));
  expect(modeOf(join(vol, "logs/p1"))).toBe(modeOf(vol));
  const fails = (mount: object) => { try { containerMounts(c([mount]), volumes, env); return ""; } catch (e) { return (e as Error).message; } };
  expect(fails({ name: "data", mountPath: "/x", subPathExpr: "$(EMPTY)/$(NOPE)" })).toBe("missing value for EMPTY, NOPE");
  expect(fails({ name: "data", mountPath: "/x", subPath: "a/../../b" })).toBe("unable to provision SubPath `a/../../b`: must not contain '..'");
  expect(fails({ name: "data", mountPath: "/x", subPath: "/etc" })).toBe("error SubPath `/etc` must not be an absolute path");
  expect(fails({ name: "gone", mountPath: "/x" })).toBe(`cannot find volume "gone" to mount into container "c"`);
  symlinkSync("/etc", join(vol, "escape"));
  expect(fails({ name: "data", mountPath: "/x", subPath: "escape" })).toBe(`subpath "/etc" not within volume path "${vol}"`);
});

const pod = { metadata: { name: "p", namespace: "ns", uid: "u1", labels: { a: "b" } }, spec: { serviceAccountName: "sa", containers: [{ name: "c", resources: { limits: { memory: "1Mi" } } }] } };

function objects(): PodObjects {
  return {
    configMap: async (_: string, name: string) => { if (name !== "cm") throw new NotFoundError(`configmap "${name}" not found`); return { data: { k: "v", k2: "v2" }, binaryData: { bin: Buffer.from([0, 1]).toString("base64") } }; },
    secret: async (_: string, name: string) => { if (name !== "s") throw new NotFoundError(`secret "${name}" not found`); return { data: { pw: Buffer.from("hunter2").toString("base64") } }; },
    claim: async () => ({}), volume: async () => ({}),
    token: async (p: any, aud: string | undefined, exp: number) => `token-for-${p.metadata.name}-${aud ?? ""}-${exp}`,
    forget: () => {},
  };
}

test("payloads: every key or the items named (with modes), binaryData, optional sources, projected sources together", async () => {
  const ctx = { pod, objects: objects(), allocatable: () => ({ memory: "2Gi" }) };
  const show = (p: Payload) => Object.fromEntries([...p].map(([k, f]) => [k, [Buffer.from(f.data).toString("hex"), f.mode.toString(8)]]));
  expect(show(await configMapPayload({ name: "cm" }, ctx))).toEqual({ k: ["76", "644"], k2: ["7632", "644"], bin: ["0001", "644"] });
  expect(show(await configMapPayload({ name: "cm", defaultMode: 0o600, items: [{ key: "k", path: "dir/key" }, { key: "k2", path: "k2", mode: 0o400 }] }, ctx)))
    .toEqual({ "dir/key": ["76", "600"], k2: ["7632", "400"] });
  await expect(configMapPayload({ name: "cm", items: [{ key: "nope", path: "x" }] }, ctx)).rejects.toThrow("configmap references non-existent config key: nope");
  await expect(configMapPayload({ name: "none" }, ctx)).rejects.toThrow(`configmap "none" not found`);
  expect((await configMapPayload({ name: "none", optional: true }, ctx)).size).toBe(0);
  await expect(secretPayload({ secretName: "s", items: [{ key: "x", path: "x" }] }, ctx)).rejects.toThrow("secret references non-existent secret key: x");
  const projected = await projectedPayload({
    defaultMode: 0o440,
    sources: [
      { configMap: { name: "cm", items: [{ key: "k", path: "k" }] } }, { secret: { name: "s" } },
      { downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }, { path: "mem", resourceFieldRef: { containerName: "c", resource: "limits.memory", divisor: "1Ki" } }] } },
      { serviceAccountToken: { path: "token", audience: "vault", expirationSeconds: 600 } },
    ],
  }, ctx);
  expect(Object.fromEntries([...projected].map(([k, f]) => [k, [String(Buffer.from(f.data)), f.mode.toString(8)]]))).toEqual({
    k: ["v", "440"], pw: ["hunter2", "440"], labels: ['a="b"', "440"], mem: ["1024", "440"], token: ["token-for-p-vault-600", "440"],
  });
});

test("tokens: reused until 80 % of their lifetime (less up to 10 s of jitter) or 24 h, then requested again", async () => {
  const t = { token: "x", expiresAt: 1_000_000 + 3600_000, expirationSeconds: 3600 };
  expect(requiresRefresh(t, 1_000_000 + 0.79 * 3600_000, 0)).toBe(false);
  expect(requiresRefresh(t, 1_000_000 + 0.81 * 3600_000, 0)).toBe(true);
  expect(requiresRefresh(t, 1_000_000 + 0.8 * 3600_000 - 5_000, 10_000)).toBe(true);
  const year = { token: "y", expiresAt: 1_000_000 + 365 * 86_400_000, expirationSeconds: 365 * 86_400 };
  expect(requiresRefresh(year, 1_000_000 + 23 * 3600_000, 0)).toBe(false);
  expect(requiresRefresh(year, 1_000_000 + 25 * 3600_000, 0)).toBe(true);
  let now = 0, n = 0;
  const requests: any[] = [];
  const cache = new TokenCache(async (ns, sa, req) => {
    requests.push([ns, sa, req.spec]);
    return { spec: { expirationSeconds: req.spec.expirationSeconds }, status: { token: `t${++n}`, expirationTimestamp: new Date(now + req.spec.expirationSeconds * 1000).toISOString() } };
  }, () => now);
  expect(await cache.get(pod, "aud", 600)).toBe("t1");
  expect(requests[0]).toEqual(["ns", "sa", { audiences: ["aud"], expirationSeconds: 600, boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "p", uid: "u1" } }]);
  now = 400_000;
  expect(await cache.get(pod, "aud", 600)).toBe("t1");
  now = 500_000;
  expect(await cache.get(pod, "aud", 600)).toBe("t2");
  cache.forget("u1");
  expect(await cache.get(pod, "aud", 600)).toBe("t3");
});
