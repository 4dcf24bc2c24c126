// How far this agent may isolate its containers: as root on Linux (and where the kernel lets `unshare`
// create them), each container gets its own mount, PID, UTS and IPC namespaces; otherwise it is a plain
// process group, and a container that mounts volumes is refused rather than run with files missing.
import { shimKnowsArch } from "./shim.ts";

export interface Sandbox {
  /** The shim's interpreter (shim.ts). */
  perl: string;
  /** `unshare` and `nsenter` when containers get namespaces. */
  unshare?: string;
  nsenter?: string;
  /** One line for the agent's log: the mode it runs in, and why. */
  mode: string;
}

function tool(name: string): string {
  const p = Bun.which(name);
  if (!p) throw new Error(`the process runtime needs "${name}" on PATH`);
  return p;
}

export function detectSandbox(): Sandbox {
  const perl = tool("perl");
  const plain = (why: string): Sandbox => ({ perl, mode: `containers run as plain process groups in the host's namespaces (${why}); containers that mount volumes are refused` });
  if (process.platform !== "linux") return plain(`not Linux`);
  if (process.getuid?.() !== 0) return plain("not root");
  if (!shimKnowsArch()) return plain(`no system call table for ${process.arch}`);
  const unshare = Bun.which("unshare"), nsenter = Bun.which("nsenter");
  if (!unshare || !nsenter) return plain(`no ${unshare ? "nsenter" : "unshare"} on PATH`);
  // what every container's setup does (shim.ts): new namespaces, its own /proc and /dev/shm
  const probe = Bun.spawnSync([unshare, "--mount", "--uts", "--ipc", "--pid", "--fork", "--propagation", "private", "sh", "-c", "mount -t proc proc /proc && mount -t tmpfs shm /dev/shm"], { stdout: "ignore", stderr: "pipe" });
  if (probe.exitCode !== 0) return plain(`namespaces cannot be set up here: ${probe.stderr.toString().trim()}`);
  return { perl, unshare, nsenter, mode: "containers run in their own mount, PID, UTS and IPC namespaces, volumes bind-mounted at their mountPath" };
}

/** Why a container cannot run in this sandbox, if it cannot. */
export function refusal(s: Sandbox, container: string, mounts: number): string | undefined {
  if (mounts && !s.unshare) return `container "${container}" mounts volumes, which need mount namespaces: the agent must run as root on Linux`;
  return undefined;
}
