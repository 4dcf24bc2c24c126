// What controller tests share: a `kite controller-manager` running the named controllers against a test
// server (no leader election), and stock kubectl 1.20 against it.
import { startComponent, type TestComponent } from "./component.ts";
import type { TestServer } from "./server.ts";

export const KUBECTL_1_20 = "/opt/kubernetes-client-1.20/usr/bin/kubectl";

/** `kite controller-manager --controllers=<controllers>` against `s`, once it runs. */
export function startControllerManager(s: TestServer, controllers: string, extra: string[] = []): Promise<TestComponent> {
  return startComponent(["controller-manager", `--kubeconfig=${s.kubeconfig}`, "--leader-elect=false", `--controllers=${controllers}`, ...extra], "the manager to start", async () => true, 10_000);
}

/** kubectl 1.20 with the server's kubeconfig: its exit code and output. */
export async function kubectl(s: TestServer, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([KUBECTL_1_20, `--kubeconfig=${s.kubeconfig}`, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
