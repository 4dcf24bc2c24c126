// `kite controller-manager`: its flags (an unknown controller or a bad value exits 2 with one line), and
// leader election — a manager holds the kube-system/kube-controller-manager Lease, a second one waits, and
// a stopped leader releases it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startComponent, until, type TestComponent } from "../helpers/component.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => { s = await startServer(); });
afterAll(async () => { await s?.stop(); });

const lease = async () => (await s.call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager")).body;
const start = (extra: string[] = []) => startComponent(["controller-manager", `--kubeconfig=${s.kubeconfig}`, "--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=300ms", ...extra], "the manager to start", async () => true, 10_000);

test("bad flags exit 2 with one line", () => {
  for (const [flag, says] of [
    ["--controllers=nosuch", `"nosuch" is not in the list of known controllers`],
    ["--concurrent-syncs=0", `invalid argument "0" for "--concurrent-syncs" flag`],
    ["--leader-elect-lease-duration=soon", `invalid argument "soon" for "--leader-elect-lease-duration" flag`],
    ["--node-monitor-grace-period=soon", `invalid argument "soon" for "--node-monitor-grace-period" flag`],
    ["--node-monitor-period=0s", `invalid argument "0s" for "--node-monitor-period" flag`],
    ["--horizontal-pod-autoscaler-sync-period=0s", `invalid argument "0s" for "--horizontal-pod-autoscaler-sync-period" flag`],
    ["--horizontal-pod-autoscaler-tolerance=some", `invalid argument "some" for "--horizontal-pod-autoscaler-tolerance" flag`],
    ["--horizontal-pod-autoscaler-downscale-stabilization=later", `invalid argument "later" for "--horizontal-pod-autoscaler-downscale-stabilization" flag`],
  ]) {
    const r = Bun.spawnSync([...KITE, "controller-manager", `--kubeconfig=${s.kubeconfig}`, flag]);
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.toString().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`Error: ${says}`);
  }
});

test("one manager leads; a second waits; the leader stopped with SIGTERM releases the lease to it", async () => {
  const first: TestComponent = await start();
  const holder = await until(async () => (await lease())?.spec?.holderIdentity || undefined, "a holder of the lease");
  const second = await start();
  await Bun.sleep(1000);
  expect((await lease()).spec.holderIdentity).toBe(holder);
  expect(await first.stop("SIGTERM")).toBe(0);
  const next = await until(async () => { const h = (await lease())?.spec?.holderIdentity; return h && h !== holder ? h : undefined; }, "the second manager to lead", 5000);
  expect(next).not.toBe(holder);
  expect(await second.stop("SIGTERM")).toBe(0);
});
