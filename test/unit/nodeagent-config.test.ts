// --config: a KubeletConfiguration file under the flags. The file replaces the defaults (and turns the
// agent's server secure, as v1beta1's defaults do), a flag given on the command line beats the file, a flag
// that belongs in the file warns that it is deprecated, and a bad file is refused naming the field.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE_AGENT_ARGS } from "../../pkg/nodeagent/flags.ts";
import { nodeAgentOptions, withConfigFile } from "../../pkg/nodeagent/options.ts";

const dir = mkdtempSync(join(tmpdir(), "kite-kubelet-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const defaults: Record<string, any> = {
  ...Object.fromEntries(Object.entries(NODE_AGENT_ARGS).flatMap(([k, d]) => ("default" in d ? [[k, d.default]] : []))),
  "root-dir": dir, "hostname-override": "n1",
};
let n = 0;
const file = (text: string) => { const p = join(dir, `c${n++}.yaml`); writeFileSync(p, text); return p; };
const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

test("the file's values replace the defaults; flags given on the command line win", () => {
  const config = file(`${HEAD}maxPods: 30\nnodeStatusUpdateFrequency: 4s\nstaticPodPath: /etc/kite/manifests\nkubeReserved:\n  cpu: 100m\nevictionHard:\n  memory.available: 200Mi\nproviderID: kite://n1\nnodeLeaseDurationSeconds: 20\n`);
  const o = nodeAgentOptions({ ...defaults, config, "max-pods": "50" }, [`--config=${config}`, "--max-pods=50"]);
  expect(o).toMatchObject({ maxPods: 50, nodeStatusUpdateFrequencyMs: 4000, podManifestPath: "/etc/kite/manifests", kubeReserved: { cpu: 0.1 }, providerID: "kite://n1", nodeLeaseDurationSeconds: 20 });
  expect(o.evictionHard).toEqual([{ signal: "memory.available", quantity: 200 * 2 ** 20 }]);
  expect(o.warnings).toEqual(["Flag --max-pods has been deprecated, This parameter should be set via the config file specified by the Kubelet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information."]);
});

test("with a file, the agent's server defaults to webhook authentication and authorization, and no read-only port", () => {
  const config = file(HEAD);
  expect(withConfigFile({ ...defaults, config }, [`--config=${config}`]).args).toMatchObject({ "anonymous-auth": "false", "authentication-token-webhook": "true", "authorization-mode": "Webhook", "read-only-port": "0" });
  const open = file(`${HEAD}authentication:\n  anonymous:\n    enabled: true\nauthorization:\n  mode: AlwaysAllow\n`);
  expect(withConfigFile({ ...defaults, config: open }, [`--config=${open}`]).args).toMatchObject({ "anonymous-auth": "true", "authorization-mode": "AlwaysAllow" });
  // without --config nothing changes
  expect(withConfigFile(defaults, []).args).toBe(defaults);
});

test("a bad file is refused with the field named; unknown fields are ignored with a warning", () => {
  const refused = (text: string) => { const config = file(text); try { nodeAgentOptions({ ...defaults, config }, [`--config=${config}`]); return ""; } catch (e) { return (e as Error).message; } };
  expect(refused(`${HEAD}maxPods: lots\n`)).toContain(`cannot unmarshal string into field "maxPods" of type int32`);
  expect(refused(`${HEAD}syncFrequency: soon\n`)).toContain(`time: invalid duration "soon"`);
  expect(refused(`apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n`)).toContain(`no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1"`);
  expect(refused(`${HEAD}evictionHard:\n  memory.available: lots\n`)).toContain(`"--eviction-hard" flag`);
  expect(refused(`${HEAD}nodeLeaseDurationSeconds: 0\n`)).toContain("nodeLeaseDurationSeconds must be greater than 0");
  const missing = join(dir, "absent.yaml");
  expect(() => nodeAgentOptions({ ...defaults, config: missing }, [])).toThrow(`failed to load Kubelet config file ${missing}, error failed to read kubelet config file "${missing}", error: open ${missing}: no such file or directory`);
  const config = file(`${HEAD}maxPods: 12\nfancyNewField: 1\n`);
  const o = nodeAgentOptions({ ...defaults, config }, [`--config=${config}`]);
  expect(o.maxPods).toBe(12);
  expect(o.warnings).toEqual([`unknown field "fancyNewField" in KubeletConfiguration (ignored)`]);
});
