// `kite scheduler`'s command line: bad flags exit 2 with one line, the defaults as --write-config-to writes
// them, deprecated flags warn, --config replaces the flags it should, a policy with plugin configuration
// exits 2 with upstream's reason, and a written configuration read back with --config is the same.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeYaml } from "../../pkg/yaml/decode.ts";
import { tempDir } from "../helpers/processes.ts";
import { KITE } from "../helpers/server.ts";

const dir = tempDir("kite-sched-options-");
let n = 0;
const path = (name: string) => join(dir, `${n++}-${name}`);

async function scheduler(...args: string[]) {
  const p = Bun.spawn([...KITE, "scheduler", ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/** The effective configuration the flags make, as --write-config-to writes it; and what was said on stderr. */
async function written(...args: string[]) {
  const out = path("config.yaml");
  const r = await scheduler(...args, `--write-config-to=${out}`);
  expect(r.stderr).toEndWith(`Wrote configuration to: ${out}\n`);
  expect(r.code).toBe(0);
  return { text: readFileSync(out, "utf8"), config: decodeYaml(readFileSync(out, "utf8")) as any, stderr: r.stderr, file: out };
}

function file(text: string) {
  const f = path("in.yaml");
  writeFileSync(f, text);
  return f;
}

const HEADER = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n";

describe("bad flags and configurations exit 2 with one line", () => {
  const missing = join(dir, "missing.yaml");
  test.each([
    [["--bogus"], "Error: unknown flag: --bogus (see 'kite scheduler --help')"],
    [["--kube-api-qps=fast"], 'Error: invalid argument "fast" for "--kube-api-qps" flag: strconv.ParseFloat: parsing "fast": invalid syntax'],
    [["--leader-elect-lease-duration=soon"], 'Error: invalid argument "soon" for "--leader-elect-lease-duration" flag: time: invalid duration "soon"'],
    [["--leader-elect-renew-deadline=20s"], "Error: leaderElection.leaseDuration: Invalid value: 20s: LeaseDuration must be greater than RenewDeadline"],
    [["--leader-elect-resource-lock=pods"], 'Error: leaderElection.resourceLock: Unsupported value: "pods": supported values: "leases", "endpoints", "configmaps", "endpointsleases", "configmapsleases"'],
    [["--hard-pod-affinity-symmetric-weight=101"], "Error: hardPodAffinitySymmetricWeight: Invalid value: 101: not in valid range [0-100]"],
    [["--secure-port=70000"], "Error: --secure-port 70000 must be between 0 and 65535, inclusive. 0 for turning off secure port"],
    [["--port=-1"], "Error: --port -1 must be between 0 and 65535, inclusive. 0 for turning off insecure (HTTP) port"],
    [["--bind-address=here"], 'Error: invalid argument "here" for "--bind-address" flag: failed to parse IP: "here"'],
    [["--algorithm-provider=Fastest"], 'Error: invalid argument "Fastest" for "--algorithm-provider" flag: must be one of DefaultProvider, ClusterAutoscalerProvider'],
    [["--config", "UNKNOWN"], 'strict decoding error: unknown field "profiles[0].weight"'],
    [["--config", "DUPLICATE"], 'Error: profiles[1].schedulerName: Duplicate value: "a"'],
  ])("%j", async (args, line) => {
    const files: Record<string, string> = {
      UNKNOWN: file(`${HEADER}profiles:\n- schedulerName: a\n  weight: 3\n`),
      DUPLICATE: file(`${HEADER}profiles:\n- schedulerName: a\n- schedulerName: a\n`),
    };
    const r = await scheduler(...args.map((a) => files[a] ?? a));
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toContain(line);
    expect(r.stderr).not.toContain("    at ");
  });

  test("a config file that cannot be read exits 1 with one line", async () => {
    const r = await scheduler("--config", missing);
    expect([r.code, r.stderr]).toEqual([1, `Error: open ${missing}: no such file or directory\n`]);
  });
});

test("every default is in the written configuration", async () => {
  const { config, stderr } = await written();
  expect(stderr).not.toContain("Warning");
  expect(config).toMatchObject({
    apiVersion: "kubescheduler.config.k8s.io/v1beta1", kind: "KubeSchedulerConfiguration", parallelism: 16,
    leaderElection: { leaderElect: true, leaseDuration: "15s", renewDeadline: "10s", retryPeriod: "2s", resourceLock: "leases", resourceName: "kube-scheduler", resourceNamespace: "kube-system" },
    clientConnection: { kubeconfig: "", contentType: "application/vnd.kubernetes.protobuf", qps: 50, burst: 100 },
    healthzBindAddress: "0.0.0.0:10251", metricsBindAddress: "0.0.0.0:10251",
    percentageOfNodesToScore: 0, podInitialBackoffSeconds: 1, podMaxBackoffSeconds: 10,
  });
  expect(config.profiles).toHaveLength(1);
  expect(config.profiles[0].schedulerName).toBe("default-scheduler");
  const args = Object.fromEntries(config.profiles[0].pluginConfig.map((pc: any) => [pc.name, pc.args]));
  expect(Object.keys(args)).toEqual(["DefaultPreemption", "InterPodAffinity", "NodeAffinity", "NodeResourcesFit", "NodeResourcesLeastAllocated", "PodTopologySpread", "VolumeBinding"]);
  expect(args.InterPodAffinity.hardPodAffinityWeight).toBe(1);
  expect(args.VolumeBinding.bindTimeoutSeconds).toBe(600);
});

test("flags change the configuration; the deprecated ones warn, one line each", async () => {
  const { config, stderr } = await written(
    "--scheduler-name=mine", "--hard-pod-affinity-symmetric-weight=7", "--kube-api-qps=20.5", "--kube-api-burst=30", "--kubeconfig=/etc/k.yaml",
    "--port=0", "--leader-elect=false", "--leader-elect-lease-duration=1m", "--leader-elect-resource-lock=endpointsleases",
  );
  expect(config.profiles[0].schedulerName).toBe("mine");
  expect(config.profiles[0].pluginConfig.find((pc: any) => pc.name === "InterPodAffinity").args.hardPodAffinityWeight).toBe(7);
  expect(config.clientConnection).toMatchObject({ qps: 20.5, burst: 30, kubeconfig: "/etc/k.yaml" });
  expect([config.healthzBindAddress, config.metricsBindAddress]).toEqual(["", ""]);
  expect(config.leaderElection).toMatchObject({ leaderElect: false, leaseDuration: "1m0s", resourceLock: "endpointsleases" });
  const warnings = stderr.split("\n").filter((l) => l.startsWith("Warning: "));
  expect(warnings).toContain("Warning: Flag --scheduler-name has been deprecated, use a --config profile's schedulerName instead");
  expect(warnings).toContain("Warning: Flag --port has been deprecated, see --secure-port instead");
  expect(warnings).toHaveLength(6);
});

test("with --config the file is the configuration: the flags it replaces are ignored, with a warning", async () => {
  const cfg = file(`${HEADER}clientConnection:\n  qps: 7\nprofiles:\n- schedulerName: from-file\n`);
  const { config, stderr } = await written("--config", cfg, "--scheduler-name=mine", "--kube-api-qps=20", "--leader-elect=false", "--port=0");
  expect(config.profiles.map((p: any) => p.schedulerName)).toEqual(["from-file"]);
  expect(config.clientConnection.qps).toBe(7);
  expect(config.leaderElection.leaderElect).toBe(true);
  expect(config.healthzBindAddress).toBe("0.0.0.0:10251");
  expect(stderr).toContain(`Warning: Flag --leader-elect is ignored: --config ${cfg} is given\n`);
  expect(stderr).toContain(`Warning: Flag --scheduler-name has been deprecated, use a --config profile's schedulerName instead; it is ignored: --config ${cfg} is given\n`);
});

describe("policy inputs", () => {
  test("with a file's plugin configuration they exit 2 with upstream's reason", async () => {
    const cfg = file(`${HEADER}profiles:\n- schedulerName: a\n  plugins:\n    score:\n      disabled: [{name: ImageLocality}]\n`);
    for (const policy of ["--policy-config-file=/etc/policy.json", "--policy-configmap=scheduler-policy"]) {
      const r = await scheduler("--config", cfg, policy);
      expect([r.code, r.stderr.split("\n").filter((l) => l.startsWith("Error"))]).toEqual([2, ["Error: cannot set a Plugin config and Policy config"]]);
    }
  });

  test("alone they exit 1: Kite does not translate legacy policies (and --help says so)", async () => {
    const r = await scheduler("--policy-config-file=/etc/policy.json");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Error: the scheduler Policy (file /etc/policy.json) is not supported: Kite does not translate legacy Policy predicates and priorities");
    const help = await scheduler("--help");
    expect(help.stdout).toContain("Kite does not translate legacy Policy files");
  });
});

test("round trip: a written configuration read back with --config is the same configuration", async () => {
  const custom = file(`${HEADER}percentageOfNodesToScore: 30
leaderElection:
  leaseDuration: 30000ms
profiles:
- schedulerName: spread
- schedulerName: pack
  plugins:
    score:
      disabled: [{name: NodeResourcesLeastAllocated}]
      enabled: [{name: NodeResourcesMostAllocated, weight: 5}]
  pluginConfig:
  - name: NodeResourcesMostAllocated
    args: {resources: [{name: cpu, weight: 2}]}
`);
  let config: any;
  for (const args of [[], ["--scheduler-name=mine", "--port=0", "--leader-elect=false"], ["--config", custom]]) {
    const first = await written(...args);
    const second = await written("--config", first.file);
    expect(second.text).toBe(first.text);
    config = first.config;
  }
  expect(config.leaderElection.leaseDuration).toBe("30s");
  expect(config.profiles[1].pluginConfig[0].args).toEqual({ apiVersion: "kubescheduler.config.k8s.io/v1beta1", kind: "NodeResourcesMostAllocatedArgs", resources: [{ name: "cpu", weight: 2 }] });
});
