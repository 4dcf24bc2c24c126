// A person at a terminal: tmux runs a command on a real terminal of a known size, keys are typed into it
// and the screen is read back.
import { until } from "./component.ts";

/**
 * Types `keys` (each followed by Enter) into a tmux session running `cmd`, once the screen shows `ready`
 * (a shell's prompt unless told), and returns the screen once it shows `want`.
 */
export async function terminal(cmd: string[], keys: string[], want: RegExp, ready = /[#$] *$/m): Promise<string> {
  const name = `kite-exec-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  // a tmux server of its own (-L): a session killed last stops its server, and a next session started
  // meanwhile would attach to the one going away and never run
  const tmux = (...args: string[]) => Bun.spawnSync(["tmux", "-L", name, ...args], { stdout: "pipe", stderr: "pipe" }).stdout.toString();
  tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "30", cmd.map((a) => `'${a}'`).join(" "));
  try {
    await until(async () => ready.test(tmux("capture-pane", "-p", "-t", name)) || undefined, `the screen showing ${ready}`, 15_000)
      .catch((e) => { throw new Error(`${e.message}; the screen:\n${tmux("capture-pane", "-p", "-t", name)}`); });
    for (const k of keys) tmux("send-keys", "-t", name, k, "Enter");
    return await until(async () => { const screen = tmux("capture-pane", "-p", "-t", name); return want.test(screen) ? screen : undefined; }, `the screen showing ${want}`, 15_000);
  } finally {
    tmux("kill-session", "-t", name);
  }
}
